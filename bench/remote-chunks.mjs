#!/usr/bin/env node
/**
 * What reading many small chunks costs over a high-latency server and from a zip: a 1-D datetime64[s] array of
 * `--chunks` chunks of `--values` values each (uncompressed), served over HTTP by a small local server that waits
 * `--latency` ms before each answer, as a folder and as a zip of STORED entries (as zarr-python's ZipStore writes),
 * and read from the same zip on disk. Each case is exported `--runs` times with the library's `exportToFile` in a
 * child process of its own (after one run to load the modules), for this checkout's dist/ and, with `--target
 * <checkout>`, another one's (built); prints the median wall time, the server's requests and the most in flight at
 * once per run, and the child's peak RSS.
 *
 *     npm run build && node bench/remote-chunks.mjs [--chunks 10000] [--values 100] [--latency 20] [--runs 1] [--target ../other]
 */
import * as fs from "node:fs";
import { createServer } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeStoredZip } from "../scripts/lib/stored-zip.mjs";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { median } from "./lib/median.mjs";
import { timeInChild } from "./lib/timed-child.mjs";

const { values } = parseArgs({
	options: {
		chunks: { type: "string", default: "10000" },
		values: { type: "string", default: "100" },
		latency: { type: "string", default: "20" },
		runs: { type: "string", default: "1" },
		only: { type: "string" },
		target: { type: "string", multiple: true, default: [] },
	},
});
const CHUNKS = Number(values.chunks);
const PER_CHUNK = Number(values.values);
const LATENCY = Number(values.latency);
const RUNS = Number(values.runs);
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-remote-chunks-bench-"));
const served = path.join(root, "served");
const folder = path.join(served, "times.zarr");
const zipFile = path.join(served, "times.zip");

/** Serves `served` with single byte ranges, each answer after LATENCY ms; counts requests and the most in flight. */
function startServer() {
	let requests = 0;
	let inFlight = 0;
	let maxInFlight = 0;
	const server = createServer((request, response) => {
		requests++;
		maxInFlight = Math.max(maxInFlight, ++inFlight);
		response.on("close", () => inFlight--);
		setTimeout(() => {
			const file = path.join(served, ...decodeURIComponent(new URL(request.url, "http://localhost").pathname).split("/"));
			if (!file.startsWith(served + path.sep) || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return response.writeHead(404).end();
			const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? "");
			if (range === null) return response.writeHead(200).end(fs.readFileSync(file));
			const fd = fs.openSync(file, "r");
			const size = fs.fstatSync(fd).size;
			const start = Number(range[1]);
			const end = Math.min(Number(range[2]), size - 1);
			const bytes = Buffer.alloc(Math.max(0, end - start + 1));
			fs.readSync(fd, bytes, 0, bytes.length, start);
			fs.closeSync(fd);
			return response.writeHead(206, { "Content-Range": `bytes ${start}-${end}/${size}` }).end(bytes);
		}, LATENCY);
	});
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () =>
			resolve({
				server,
				url: `http://127.0.0.1:${server.address().port}`,
				count: () => requests,
				takeMaxInFlight: () => {
					const most = maxInFlight;
					maxInFlight = 0;
					return most;
				},
			}),
		),
	);
}

const EXPORT = `
const [store, out] = args;
const run = () => api.exportToFile(store, out, { overwrite: true });
`;

async function timeCase(checkout, store, counter) {
	const before = counter.count();
	counter.takeMaxInFlight();
	const { times, maxRssKiB } = await timeInChild(checkout, EXPORT, [store, path.join(root, "out.arrow")], { runs: RUNS });
	return { times, maxRssKiB, requests: (counter.count() - before) / (RUNS + 1), maxInFlight: counter.takeMaxInFlight() };
}

const times = BigInt64Array.from({ length: CHUNKS * PER_CHUNK }, (_, i) => 1_600_000_000n + BigInt(i) * 60n);
await writeArray(folder, "", { shape: [times.length], chunks: [PER_CHUNK], values: times, codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
writeStoredZip(folder, zipFile);
const counter = await startServer();
const cases = [
	["http folder", `${counter.url}/times.zarr`],
	["http zip", `${counter.url}/times.zip`],
	["local zip", zipFile],
].filter(([label]) => values.only === undefined || values.only.split(",").includes(label.replace(" ", "-")));
const checkouts = [HERE, ...values.target.map((target) => path.resolve(target))];
console.log(`${CHUNKS} chunks of ${PER_CHUNK} values, ${LATENCY} ms per request, median of ${RUNS} runs; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
for (const [label, store] of cases) {
	for (const checkout of checkouts) {
		const { times: runTimes, maxRssKiB, requests, maxInFlight } = await timeCase(checkout, store, counter);
		console.log(`${label.padEnd(12)} ${path.basename(checkout).padEnd(20)} ${(median(runTimes) / 1000).toFixed(2).padStart(7)} s ${String(requests).padStart(7)} req ${String(maxInFlight).padStart(4)} in flight ${(maxRssKiB / 1024).toFixed(0).padStart(5)} MiB peak RSS`);
	}
}
console.log(`load average at the end ${os.loadavg()[0].toFixed(1)}`);
counter.server.close();
fs.rmSync(root, { recursive: true, force: true });
