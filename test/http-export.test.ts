/**
 * Exports over HTTP end to end: the real CLI against test/support/http-server.ts serving stores written by
 * scripts/lib/zarr-writer.mjs, with the failures a remote bucket produces injected per request.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { readArrow, readRawInt64, tempDir } from "./support/cli.js";
import { mostInFlight, type RequestRecord } from "./support/http-server.js";
import { serveFolder } from "./support/served-folder.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { HAS_ZIP_PROGRAM, writeStoredZip, zipWithProgram } from "./support/zip.js";
import { sampleCounts } from "./support/sample-counts.js";
import { defaultConcurrency } from "../src/export-source.js";
import { openStore } from "../src/store/open-store.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const SECRET = "Bearer SECRET-TOKEN-4711";

const served = tempDir("dt64-http-served-");
const work = tempDir("dt64-http-out-");
const http = serveFolder(served);

function values(n: number, seed = 7): BigInt64Array {
	return sampleCounts(n, seed, { every: 13, at: 5 });
}

let counter = 0;
/** Writes a store under the served folder; returns its URL and its path on disk. */
async function served_store(spec: Parameters<typeof writeArray>[2], arrayPath = ""): Promise<{ url: string; root: string; name: string }> {
	const name = `s${counter++}.zarr`;
	const root = path.join(served, name);
	await writeArray(root, arrayPath, spec);
	return { url: `${http.server.url}/${name}`, root, name };
}

const rawValues = (file: string): bigint[] => readRawInt64(file).map((value) => value ?? NAT);

async function exportOk(store: string, extra: string[] = []): Promise<bigint[]> {
	const out = path.join(work, `out${counter++}.arrow`);
	const result = await runCliAsync([store, "-o", out, "-q", ...extra]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return rawValues(out);
}

const isChunk = (record: { path: string }) => /\/c\/\d+$/.test(record.path);
const overlaps = (a: RequestRecord, b: RequestRecord) => a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity);

describe("HTTP export through the CLI", () => {
	it("retries a 503 on every chunk's first request and exports the exact values", async () => {
		const input = values(1000);
		const { url, name } = await served_store({ shape: [1000], chunks: [100], dataType: seconds, values: input, codecs: [LE, { name: "zstd", configuration: { level: 1 } }] });
		http.fault = (request) => (isChunk(request) && request.attempt === 1 ? { status: 503 } : undefined);
		expect(await exportOk(url)).toEqual(Array.from(input));
		for (let chunk = 0; chunk < 10; chunk++) {
			expect(http.server.requests.filter((r) => r.path === `/${name}/c/${chunk}`).map((r) => r.status)).toEqual([503, 200]);
		}
	});

	it("a chunk that always fails: one line naming its key, exit 1, no output file", async () => {
		const { url, name } = await served_store({ shape: [500], chunks: [100], dataType: seconds, values: values(500), codecs: [LE] });
		http.fault = (request) => (request.path === `/${name}/c/3` ? { status: 500 } : undefined);
		const out = path.join(work, `fail${counter++}`);
		fs.mkdirSync(out);
		const result = await runCliAsync([url, "-o", path.join(out, "t.arrow"), "--retries", "1", "--header", `Authorization: ${SECRET}`]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`dt64-export: GET ${url}/c/3 failed after 2 attempts: HTTP 500 Internal Server Error [READ_FAILED]\n`);
		expect(result.stderr).not.toContain("SECRET");
		expect(fs.readdirSync(out)).toEqual([]);
		expect(http.server.requests.filter((r) => r.path === `/${name}/c/3`)).toHaveLength(2);
	});

	for (const [how, args, env] of [
		["--timeout 1", ["--timeout", "1"], {}],
		["DT64_EXPORT_TIMEOUT=1", [], { DT64_EXPORT_TIMEOUT: "1" }],
	] as const) {
		it(`${how}: a server that never answers a chunk fails the request after a second, saying so`, async () => {
			const { url, name } = await served_store({ shape: [500], chunks: [100], dataType: seconds, values: values(500), codecs: [LE] });
			// Not timed: the server answers after an hour, so only the 1 s timeout can end the export within the test's.
			http.fault = (request) => (request.path === `/${name}/c/2` ? { delayMs: 3_600_000 } : undefined);
			const result = await runCliAsync([url, "-o", path.join(work, `hang${counter++}.arrow`), "--retries", "1", ...args], { env });
			expect(result.stderr).toBe(`dt64-export: GET ${url}/c/2 failed after 2 attempts: timed out: no response within 1000 ms [READ_FAILED]\n`);
			expect(result.status).toBe(1);
		});
	}

	it("slow responses overlap up to --concurrency 4", async () => {
		const input = values(1600);
		const { url } = await served_store({ shape: [1600], chunks: [100], dataType: seconds, values: input, codecs: [LE] });
		http.fault = (request) => (isChunk(request) ? { delayMs: 150 } : undefined);
		expect(await exportOk(url, ["--concurrency", "4"])).toEqual(Array.from(input));
		const chunks = http.server.requests.filter(isChunk);
		expect(chunks).toHaveLength(16);
		expect(mostInFlight(chunks)).toBeGreaterThan(1);
		// Never more than asked for (the reader once started the next chunk before its slot was free: 5 of 4).
		expect(mostInFlight(chunks)).toBeLessThanOrEqual(4);
		expect(chunks.some((a, i) => chunks.some((b, j) => i !== j && overlaps(a, b)))).toBe(true);
	});

	it("a chunk answered 404 is the fill value, exactly (past 2^53)", async () => {
		const fill = 2n ** 53n + 1n;
		const input = values(300);
		const { url, name } = await served_store({ shape: [300], chunks: [100], dataType: seconds, values: input, fillValue: fill, codecs: [LE] });
		http.fault = (request) => (request.path === `/${name}/c/1` ? { status: 404 } : undefined);
		const out = await exportOk(url);
		expect(out.slice(0, 100)).toEqual(Array.from(input.subarray(0, 100)));
		expect(out.slice(100, 200)).toEqual(new Array(100).fill(fill));
		expect(out.slice(200)).toEqual(Array.from(input.subarray(200)));
	});

	for (const location of ["end", "start"] as const) {
		it(`reads a sharded store (index at the ${location}) by byte ranges`, async () => {
			const input = values(2000);
			const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [LE, { name: "gzip", configuration: { level: 1 } }], index_codecs: [LE, { name: "crc32c" }], index_location: location } };
			const { url, name } = await served_store({ shape: [2000], chunks: [500], dataType: seconds, values: input, codecs: [sharding] });
			expect(await exportOk(url)).toEqual(Array.from(input));
			const shardRequests = http.server.requests.filter((r) => r.path.startsWith(`/${name}/c/`));
			expect(shardRequests.length).toBeGreaterThan(4);
			expect(shardRequests.every((r) => r.range !== undefined && r.status === 206)).toBe(true);
			expect(new Set(shardRequests.map((r) => r.path))).toEqual(new Set([0, 1, 2, 3].map((c) => `/${name}/c/${c}`)));
		});
	}

	it("sends --header with every request and never prints it", async () => {
		const input = values(400);
		const { url, name } = await served_store({ shape: [400], chunks: [100], dataType: seconds, values: input, codecs: [LE] });
		expect(await exportOk(url, ["--header", `Authorization: ${SECRET}`, "--header", "X-Api-Key: k-123"])).toEqual(Array.from(input));
		expect(http.server.requests.length).toBeGreaterThan(4);
		expect(http.server.requests.every((r) => r.headers.authorization === SECRET && r.headers["x-api-key"] === "k-123")).toBe(true);
		http.server.reset();
		http.fault = (request) => (request.path === `/${name}/zarr.json` ? { status: 403 } : undefined);
		const denied = await runCliAsync([`${url}?sig=QUERYSECRET`, "-o", path.join(work, "denied.arrow"), "--header", `Authorization: ${SECRET}`]);
		expect(denied.status).toBe(1);
		expect(denied.stderr).toMatch(/^dt64-export: .*HTTP 403 Forbidden \(access denied.*\) \[ACCESS_DENIED\]\n$/);
		expect(denied.stderr).not.toContain("SECRET");
		const debug = await runCliAsync([url, "-o", path.join(work, "denied.arrow"), "--header", `Authorization: ${SECRET}`], { env: { DT64_DEBUG: "1" } });
		expect(debug.stderr).not.toContain("SECRET-TOKEN");
	});

	it("a URL's query and fragment (a presigned signature) reach no manifest, --json, column name or field metadata of a dataset part", async () => {
		const input = values(400);
		const { url, name } = await served_store({ shape: [400], chunks: [100], dataType: seconds, values: input, codecs: [LE] });
		const signature = "SIGNATURE-Never-Recorded-0042";
		const folder = path.join(work, `dataset${counter++}`);
		const result = await runCliAsync([`${url}?X-Amz-Signature=${signature}#frag-Never-Recorded`, "--part", "0/1", "-o", folder, "--to", "arrow", "--json"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const manifest = fs.readFileSync(path.join(folder, "_parts", "part-0-of-1.json"), "utf8");
		expect(JSON.parse(manifest).options.store).toBe(name);
		const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".arrow"));
		expect(files).toHaveLength(1);
		const data = fs.readFileSync(path.join(folder, files[0]));
		expect(readArrow(path.join(folder, files[0])).schema.fields.map((field) => field.name)).toEqual([name.replace(/\.zarr$/, "")]);
		for (const text of [manifest, result.stdout, data.toString("latin1")]) {
			expect(text).not.toContain("Never-Recorded");
			expect(text).not.toContain("X-Amz-Signature");
		}
	});

	it("finds the array of a group through its consolidated metadata, and asks for --array without it", async () => {
		const input = values(50);
		const { url, root } = await served_store({ shape: [50], chunks: [20], dataType: seconds, values: input, codecs: [LE] }, "obs/time");
		const plain = await runCliAsync([url, "-o", path.join(work, "plain.arrow")]);
		expect(plain.status).toBe(2);
		expect(plain.stderr).toBe(`dt64-export: ${url} is a group without consolidated metadata, and an HTTP store cannot be listed: name the array with --array [ARRAY_UNNAMED]\n`);
		expect(await exportOk(url, ["--array", "obs/time"])).toEqual(Array.from(input));
		const member = (p: string) => `${JSON.stringify(p)}: ${fs.readFileSync(path.join(root, p, "zarr.json"), "utf8")}`;
		fs.writeFileSync(
			path.join(root, "zarr.json"),
			`{"zarr_format": 3, "node_type": "group", "attributes": {}, "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {${member("obs")}, ${member("obs/time")}}}}`,
		);
		const out = path.join(work, `consolidated${counter++}.arrow`);
		const found = await runCliAsync([url, "-o", out, "-q"]);
		expect(found.stderr).toBe("");
		expect(readArrow(out).schema.fields[0].name).toBe("time");
		expect(rawValues(out)).toEqual(Array.from(input));
	});
});

describe("companion columns over HTTP", () => {
	it("--columns reads each named array of the group, retrying each column's chunks, with the exact values", async () => {
		const name = `s${counter++}.zarr`;
		const root = path.join(served, name);
		const times = values(300, 11);
		const temperature = Float64Array.from({ length: 300 }, (_, i) => i / 8 - 7);
		const station = Int32Array.from({ length: 300 }, (_, i) => i * 31 - 4000);
		await writeGroup(root, "");
		await writeArray(root, "time", { shape: [300], chunks: [70], dataType: seconds, values: times, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
		await writeArray(root, "temperature", { shape: [300], chunks: [128], dataType: "float64", fillValue: "NaN", values: temperature, codecs: [LE] });
		await writeArray(root, "station", { shape: [300], chunks: [300], dataType: "int32", fillValue: 0, values: station, codecs: [LE] });
		http.fault = (request) => (isChunk(request) && request.attempt === 1 ? { status: 503 } : undefined);
		const out = path.join(work, `columns${counter++}.arrow`);
		const result = await runCliAsync([`${http.server.url}/${name}`, "--columns", "time,temperature,station", "-o", out, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const table = readArrow(out);
		expect(table.schema.fields.map((f) => f.name)).toEqual(["time", "temperature", "station"]);
		expect(Array.from(table.getChild("time")!, (v) => (v === null ? NAT : BigInt(v as number) / 1000n))).toEqual(Array.from(times));
		expect(Float64Array.from(table.getChild("temperature")!)).toEqual(temperature);
		expect(Int32Array.from(table.getChild("station")!)).toEqual(station);
		for (const [array, chunks] of [["time", 5], ["temperature", 3], ["station", 1]] as const) {
			const requests = http.server.requests.filter((r) => r.path.startsWith(`/${name}/${array}/c/`));
			expect(requests.filter((r) => r.status === 503)).toHaveLength(chunks);
			expect(requests.filter((r) => r.status === 200)).toHaveLength(chunks);
		}
	});
});

describe("zip stores over HTTP", () => {
	async function zipStore(make: (folder: string, zip: string) => void) {
		const input = values(700);
		const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [50], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } };
		const { root, name } = await served_store({ shape: [700], chunks: [200], dataType: seconds, values: input, codecs: [sharding] }, "grid/time");
		const zip = `${root}.zip`;
		make(root, zip);
		return { input, url: `${http.server.url}/${name}.zip`, zipPath: `/${name}.zip`, zipFile: zip };
	}
	const makers: [string, boolean, (folder: string, zip: string) => void][] = [
		["STORED (own writer)", true, (f, z) => writeStoredZip(f, z)],
		["deflate (zip -r)", HAS_ZIP_PROGRAM, (f, z) => zipWithProgram(f, z, { fromParent: true })],
	];
	if (!HAS_ZIP_PROGRAM) console.warn("skipping the deflated zip over HTTP: the zip program is not installed");
	for (const [name, available, make] of makers) {
		it.skipIf(!available)(`${name}: export and inspect by HTTP ranges, with --header on every request`, async () => {
			const { input, url, zipPath } = await zipStore(make);
			expect(await exportOk(url, ["--header", `Authorization: ${SECRET}`])).toEqual(Array.from(input));
			const requests = http.server.requests.filter((r) => r.path === zipPath);
			expect(requests[0].range).toBe("bytes=0-0");
			expect(requests.every((r) => r.method === "GET" && r.range !== undefined && r.status === 206)).toBe(true);
			expect(http.server.requests.every((r) => r.headers.authorization === SECRET)).toBe(true);
			const inspected = await runCliAsync(["inspect", url, "--json", "--header", `Authorization: ${SECRET}`]);
			expect(inspected.stderr).toBe("");
			const report = JSON.parse(inspected.stdout.toString());
			expect(report).toMatchObject({ storeKind: "zip", discovery: "zip" });
			expect(report.nodes.map((n: { path: string }) => n.path)).toEqual(["", "grid", "grid/time"]);
			expect(report.nodes[2]).toMatchObject({ shardShape: [200], chunkShape: [50], first: { status: "found", row: 0 }, last: { status: "found", row: 699 } });
		});
	}

	it("a zip read over HTTP is remote (default concurrency 32); the same zip or its folder read locally is not (one per core, 2 to 4)", async () => {
		const { url, zipPath } = await zipStore((f, z) => writeStoredZip(f, z));
		const localZip = path.join(served, zipPath);
		const localConcurrency = Math.min(4, Math.max(2, os.availableParallelism()));
		const stores = await Promise.all([openStore(url), openStore(`${http.server.url}/${path.basename(zipPath, ".zip")}`), openStore(localZip), openStore(localZip.slice(0, -".zip".length))]);
		expect(stores.map((store) => [store.kind, store.remote, defaultConcurrency(store)])).toEqual([
			["zip", true, 32],
			["http", true, 32],
			["zip", false, localConcurrency],
			["directory", false, localConcurrency],
		]);
	});

	it("retries a 503 on the zip and redacts its query string in errors", async () => {
		const { input, url, zipPath } = await zipStore((f, z) => writeStoredZip(f, z));
		http.fault = (request) => (request.attempt <= 2 ? { status: 503 } : undefined);
		expect(await exportOk(url)).toEqual(Array.from(input));
		expect(http.server.requests.filter((r) => r.path === zipPath && r.status === 503)).toHaveLength(2);
		http.server.reset();
		http.fault = () => ({ status: 500 });
		const failed = await runCliAsync([`${url}?token=QUERYSECRET`, "-o", path.join(work, "never.arrow"), "--retries", "0"]);
		expect(failed.status).toBe(1);
		expect(failed.stderr).toBe(`dt64-export: GET ${url}?… (bytes=0-0) failed after 1 attempt: HTTP 500 Internal Server Error [READ_FAILED]\n`);
		expect(http.server.requests.map((r) => r.query)).toEqual(["?token=QUERYSECRET"]);
	});

	it("a server that ignores Range (200 and the whole zip for each range): the zip is downloaded once and kept, not once per read", async () => {
		const { input, url, zipPath } = await zipStore((f, z) => writeStoredZip(f, z));
		http.fault = (request) => (request.path === zipPath ? { ignoreRange: true } : undefined);
		expect(await exportOk(url)).toEqual(Array.from(input));
		const requests = http.server.requests.filter((r) => r.path === zipPath);
		expect(requests.map((r) => [r.range, r.status])).toEqual([["bytes=0-0", 200]]);
	});

	it("a zip from a server without ranges that sends it slowly is read, however long the download, while bytes keep coming (--timeout)", async () => {
		const { input, url, zipPath, zipFile } = await zipStore((f, z) => writeStoredZip(f, z));
		// Six pieces 400 ms apart: 2 s in all, twice --timeout, each wait well within it.
		const piece = Math.ceil(fs.statSync(zipFile).size / 6);
		http.fault = (request) => (request.path === zipPath ? { ignoreRange: true, trickleMs: 400, trickleBytes: piece } : undefined);
		expect(await exportOk(url, ["--timeout", "1", "--retries", "0"])).toEqual(Array.from(input));
		expect(http.server.requests.filter((r) => r.path === zipPath).map((r) => r.status)).toEqual([200]);
	});

	it("a missing zip is one line", async () => {
		const result = await runCliAsync([`${http.server.url}/nope.zip`, "-o", path.join(work, "never.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`dt64-export: store not found: ${http.server.url}/nope.zip (HTTP 404) [STORE_NOT_FOUND]\n`);
	});
});
