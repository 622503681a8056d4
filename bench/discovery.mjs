#!/usr/bin/env node
/**
 * What finding and opening a group's arrays costs over a high-latency object store: a 200-array group (Zarr v2 as
 * xarray writes it, and v3), without consolidated metadata, served as an S3 bucket by a small local server that
 * waits `--latency` ms (default 30) before each answer. Times the library's `inspectStore`, an export of the array
 * found by discovery and an export with `columns` and `index`, of this checkout's dist/ and, with `--target
 * <checkout>`, of another one's (built), and prints wall time and the server's request count per case.
 *
 *     npm run build && node bench/discovery.mjs [--arrays 200] [--latency 30] [--runs 3] [--target ../other]
 */
import * as fs from "node:fs";
import { createServer } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { median } from "./lib/median.mjs";
import { timeInChild } from "./lib/timed-child.mjs";

const { values } = parseArgs({
	options: { arrays: { type: "string", default: "200" }, latency: { type: "string", default: "30" }, runs: { type: "string", default: "3" }, target: { type: "string", multiple: true, default: [] } },
});
const ARRAYS = Number(values.arrays);
const LATENCY = Number(values.latency);
const RUNS = Number(values.runs);
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ROWS = 24;

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-discovery-bench-"));
const bucket = path.join(root, "bench");
const names = Array.from({ length: ARRAYS - 1 }, (_, i) => `var${String(i).padStart(3, "0")}`);
const times = BigInt64Array.from({ length: ROWS }, (_, i) => 1_600_000_000n + BigInt(i) * 3600n);

/** A Zarr v2 group as xarray writes it (`_ARRAY_DIMENSIONS` in each .zattrs), no .zmetadata. */
function writeV2(folder) {
	fs.mkdirSync(folder, { recursive: true });
	fs.writeFileSync(path.join(folder, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	fs.writeFileSync(path.join(folder, ".zattrs"), "{}");
	const array = (name, dtype, bytes, attributes) => {
		fs.mkdirSync(path.join(folder, name));
		const zarray = { zarr_format: 2, shape: [ROWS], chunks: [ROWS], dtype, compressor: null, fill_value: null, filters: null, order: "C" };
		fs.writeFileSync(path.join(folder, name, ".zarray"), JSON.stringify(zarray));
		fs.writeFileSync(path.join(folder, name, ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["time"], ...attributes }));
		fs.writeFileSync(path.join(folder, name, "0"), bytes);
	};
	array("time", "<M8[s]", new Uint8Array(times.buffer), {});
	for (const name of names) array(name, "<f8", new Uint8Array(Float64Array.from({ length: ROWS }, (_, i) => i / 4).buffer), { units: "K" });
}

async function writeV3(folder) {
	await writeGroup(folder, "");
	const LE = { name: "bytes", configuration: { endian: "little" } };
	await writeArray(folder, "time", { shape: [ROWS], chunks: [ROWS], values: times, codecs: [LE], dimensionNames: ["time"] });
	for (const name of names) {
		await writeArray(folder, name, { shape: [ROWS], chunks: [ROWS], dataType: "float64", fillValue: 0, values: Float64Array.from({ length: ROWS }, (_, i) => i / 4), codecs: [LE], dimensionNames: ["time"], attributes: { units: "K" } });
	}
}

function allKeys(folder, prefix = "") {
	return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? allKeys(path.join(folder, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`]));
}

const escapeXml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** ListObjectsV2 with `delimiter=/` (1000 per page, as S3) and GET, unsigned, each answered after LATENCY ms. */
function startBucketServer() {
	let requests = 0;
	const server = createServer((request, response) => {
		requests++;
		setTimeout(() => {
			const url = new URL(request.url, "http://localhost");
			const [, name, ...rest] = url.pathname.split("/").map(decodeURIComponent);
			const key = rest.join("/");
			if (name !== "bench") return response.writeHead(404).end("<Error><Code>NoSuchBucket</Code></Error>");
			if (key === "" && url.searchParams.get("list-type") === "2") {
				const prefix = url.searchParams.get("prefix") ?? "";
				const after = url.searchParams.get("continuation-token") ?? "";
				const entries = new Map();
				for (const found of allKeys(bucket).sort()) {
					if (!found.startsWith(prefix)) continue;
					const cut = found.indexOf("/", prefix.length);
					entries.set(cut === -1 ? found : found.slice(0, cut + 1), cut === -1 ? "key" : "prefix");
				}
				const ordered = [...entries].sort(([a], [b]) => (a < b ? -1 : 1)).filter(([entry]) => entry > after);
				const page = ordered.slice(0, 1000);
				const truncated = ordered.length > page.length;
				const body = [
					`<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Prefix>${escapeXml(prefix)}</Prefix><IsTruncated>${truncated}</IsTruncated>`,
					...page.map(([entry, kind]) => (kind === "key" ? `<Contents><Key>${escapeXml(entry)}</Key></Contents>` : `<CommonPrefixes><Prefix>${escapeXml(entry)}</Prefix></CommonPrefixes>`)),
					truncated ? `<NextContinuationToken>${escapeXml(page[page.length - 1][0])}</NextContinuationToken>` : "",
					"</ListBucketResult>",
				].join("");
				return response.writeHead(200, { "Content-Type": "application/xml" }).end(body);
			}
			const file = path.join(bucket, ...key.split("/"));
			if (key === "" || key.split("/").includes("..") || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) {
				return response.writeHead(404, { "Content-Type": "application/xml" }).end("<Error><Code>NoSuchKey</Code></Error>");
			}
			const bytes = fs.readFileSync(file);
			const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? "");
			if (range === null) return response.writeHead(200).end(bytes);
			const end = Math.min(Number(range[2]), bytes.length - 1);
			return response.writeHead(206, { "Content-Range": `bytes ${range[1]}-${end}/${bytes.length}` }).end(bytes.subarray(Number(range[1]), end + 1));
		}, LATENCY);
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}`, count: () => requests })));
}

writeV2(path.join(bucket, "v2.zarr"));
await writeV3(path.join(bucket, "v3.zarr"));
const { server, url, count } = await startBucketServer();
const env = { ...process.env, AWS_ENDPOINT_URL: url, AWS_REGION: "us-east-1", HOME: root, AWS_PROFILE: "", AWS_CONFIG_FILE: "", AWS_SHARED_CREDENTIALS_FILE: "" };
const out = path.join(root, "out.arrow");


const storeUrl = (format) => `s3://bench/${format}.zarr`;
const cases = ["v2", "v3"].flatMap((format) => [
	[`inspect ${format}`, format, "inspect"],
	[`export ${format} (found)`, format, "found"],
	[`export ${format} --columns`, format, "columns"],
]);

/** One case in the child: inspect the store, or export the array found in it, or a table of it. */
const RUN_CASE = `
const [store, kind, out] = args;
const options = { signRequests: false, env: process.env };
const run = () => kind === "inspect" ? api.inspectStore(store, { ...options, maxChunks: 1 })
	: api.exportToFile(store, out, { ...options, overwrite: true, ...(kind === "columns" ? { columns: ["var010", "var100", "var150"], index: true } : {}) });
`;

/** Runs one case in a child process (this one serves its requests meanwhile): its times, and requests per run. */
async function timeCase(checkout, format, kind) {
	const before = count();
	const { times } = await timeInChild(checkout, RUN_CASE, [storeUrl(format), kind, out], { runs: RUNS, env });
	return { times, requests: (count() - before) / (RUNS + 1) };
}

const checkouts = [HERE, ...values.target.map((target) => path.resolve(target))];
console.log(`${ARRAYS} arrays per group, ${LATENCY} ms per request, median of ${RUNS} runs in one process each; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
console.log(`${"case".padEnd(26)}${checkouts.map((checkout) => `${path.basename(checkout).padStart(24)}`).join("")}`);
for (const [label, format, kind] of cases) {
	const cells = [];
	for (const checkout of checkouts) {
		const { times, requests } = await timeCase(checkout, format, kind);
		cells.push(`${(median(times) / 1000).toFixed(2)} s, ${String(requests).padStart(3)} req`);
	}
	console.log(`${label.padEnd(26)}${cells.map((cell) => cell.padStart(24)).join("")}`);
}
console.log(`load average at the end ${os.loadavg()[0].toFixed(1)}`);
server.close();
fs.rmSync(root, { recursive: true, force: true });
