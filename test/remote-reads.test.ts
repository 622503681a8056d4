/**
 * Chunk reads of remote stores and zip files: enough requests in flight for stores of many small chunks, bounded,
 * rows in order whatever order the answers come in, one failing chunk named, an abort that stops what is in flight;
 * zip entries read in one read each (coalesced when side by side), local or over HTTP.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { readRawInt64, tempDir } from "./support/cli.js";
import { mostInFlight } from "./support/http-server.js";
import { serveFolder } from "./support/served-folder.js";
import { writeStoredZip } from "./support/zip.js";
import { rejection } from "./support/thrown.js";
import { defaultConcurrency, REMOTE_READ_BYTES, REMOTE_REQUESTS, remoteChunksInFlight } from "../src/export-source.js";
import { exportToFile } from "../src/export.js";
import { openStore } from "../src/store/open-store.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const CHUNK = 10;

const served = tempDir("dt64-remote-reads-served-");
const work = tempDir("dt64-remote-reads-out-");
const http = serveFolder(served);

const times = (n: number) => BigInt64Array.from({ length: n }, (_, i) => (i % 17 === 3 ? NAT : 1_600_000_000n + BigInt(i) * 60n));

let counter = 0;
/** A 1-D store of `chunks` chunks of CHUNK values under the served folder, and a stored zip of it beside it. */
async function smallChunks(chunks: number): Promise<{ input: BigInt64Array; name: string; folder: string; zip: string }> {
	const name = `t${counter++}`;
	const folder = path.join(served, `${name}.zarr`);
	const input = times(chunks * CHUNK);
	await writeArray(folder, "", { shape: [input.length], chunks: [CHUNK], values: input, codecs: [LE] });
	const zip = path.join(served, `${name}.zip`);
	writeStoredZip(folder, zip);
	return { input, name, folder, zip };
}

const chunkIndex = (request: { path: string }) => Number(/\/c\/(\d+)$/.exec(request.path)?.[1] ?? Number.NaN);

/**
 * Holds every chunk (or shard) read until REMOTE_REQUESTS are in flight, then answers each after `delayMs(request)`
 * (from the gate's opening): an export that kept fewer in flight would hang, and fail at the test's timeout; one that
 * asked more would be seen over it.
 */
function gateChunkReadsUntilInFlight(delayMs: (request: { path: string }) => number | undefined = () => undefined): void {
	let open = () => {};
	const gate = new Promise<void>((resolve) => {
		open = resolve;
	});
	http.fault = (request) => {
		if (Number.isNaN(chunkIndex(request))) return undefined;
		if (http.server.inFlight >= REMOTE_REQUESTS) open();
		const delay = delayMs(request);
		return delay === undefined ? { gate } : { gate, delayMs: delay };
	};
}

async function exported(store: string, options: Parameters<typeof exportToFile>[2] = {}): Promise<bigint[]> {
	const out = path.join(work, `out${counter++}.arrow`);
	await exportToFile(store, out, options);
	return readRawInt64(out).map((value) => value ?? NAT);
}

describe("remote chunk reads", () => {
	it("keep REMOTE_REQUESTS chunks in flight, never more, and rows in order when answers come out of order", async () => {
		const { input, name } = await smallChunks(200);
		// No chunk is answered until REMOTE_REQUESTS are in flight, then later chunks of each group of seven answer
		// first: their delays all start as the gate opens, so the first answers come out of order on any schedule.
		gateChunkReadsUntilInFlight((request) => 5 + (6 - (chunkIndex(request) % 7)) * 12);
		expect(await exported(`${http.server.url}/${name}.zarr`)).toEqual(Array.from(input));
		const chunks = http.server.requests.filter((request) => !Number.isNaN(chunkIndex(request)));
		expect(chunks).toHaveLength(200);
		expect(chunks.some((request, i) => i > 0 && (request.end ?? 0) < (chunks[i - 1].end ?? 0))).toBe(true);
		expect(http.server.maxInFlight).toBe(REMOTE_REQUESTS);
	});

	it("share the requests among the columns and hold fewer large chunks, never under 8 a column", () => {
		const remote = { remote: true };
		expect(defaultConcurrency(remote, [[10]])).toBe(32);
		expect(defaultConcurrency(remote, [[10], [10]])).toBe(16);
		expect(defaultConcurrency(remote, [[10], [10], [10], [10], [10]])).toBe(8);
		expect(defaultConcurrency(remote, [[2 ** 18]])).toBe(32);
		expect(defaultConcurrency(remote, [[2 ** 19]])).toBe(16);
		expect(defaultConcurrency(remote, [[2 ** 24]])).toBe(8);
	});

	it("a chunk that fails ends the export with its key, and no chunk is asked for once it has", async () => {
		const { name } = await smallChunks(200);
		http.fault = (request) => (chunkIndex(request) === 57 ? { status: 500, delayMs: 30 } : { delayMs: 10 });
		const out = path.join(work, `fail${counter++}.arrow`);
		const error = await rejection(exportToFile(`${http.server.url}/${name}.zarr`, out, { retries: 0 }));
		expect(error).toMatchObject({ code: "READ_FAILED", key: "c/57" });
		expect(fs.existsSync(out)).toBe(false);
		const failed = http.server.requests.find((request) => chunkIndex(request) === 57)!;
		// What was asked for after the failure came back: at most the reads the chunks then answering freed.
		expect(http.server.requests.filter((request) => request.start > failed.end! + 5).length).toBeLessThanOrEqual(REMOTE_REQUESTS);
		expect(Math.max(...http.server.requests.map(chunkIndex).filter((index) => !Number.isNaN(index)))).toBeLessThan(57 + 2 * REMOTE_REQUESTS);
	});

	it("an abort cancels every request in flight and asks for no more", async () => {
		const { name } = await smallChunks(200);
		http.fault = (request) => (Number.isNaN(chunkIndex(request)) ? undefined : { delayMs: 20_000 });
		const controller = new AbortController();
		const export_ = exportToFile(`${http.server.url}/${name}.zarr`, path.join(work, `abort${counter++}.arrow`), { signal: controller.signal });
		export_.catch(() => undefined);
		while (http.server.inFlight < REMOTE_REQUESTS) await new Promise((resolve) => setTimeout(resolve, 10));
		const asked = http.server.requests.length;
		controller.abort();
		await expect(export_).rejects.toMatchObject({ name: "AbortError" });
		for (let waited = 0; http.server.inFlight > 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(http.server.inFlight).toBe(0);
		expect(http.server.requests.length).toBe(asked);
	});
});

/** A 1-D store of `shards` shards of `inner` inner chunks of CHUNK values each, uncompressed, under the served folder. */
async function shardedChunks(shards: number, inner: number): Promise<{ input: BigInt64Array; name: string }> {
	const name = `s${counter++}`;
	const input = times(shards * inner * CHUNK);
	const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [CHUNK], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } }];
	await writeArray(path.join(served, `${name}.zarr`), "", { shape: [input.length], chunks: [inner * CHUNK], values: input, codecs });
	return { input, name };
}

describe("remote reads of sharded arrays (trial 20, finding 02)", () => {
	const shardReads = () => http.server.requests.filter((request) => !Number.isNaN(chunkIndex(request)));

	it("count requests, not inner chunks: REMOTE_REQUESTS shards in flight, each an index read and one read of its data", async () => {
		// 40 shards of 10 inner chunks: with the limit in inner chunks, 32 of them were 4 shards in flight.
		const { input, name } = await shardedChunks(40, 10);
		// As the unsharded case: no shard read is answered until REMOTE_REQUESTS are in flight.
		gateChunkReadsUntilInFlight();
		expect(await exported(`${http.server.url}/${name}.zarr`)).toEqual(Array.from(input));
		expect(shardReads()).toHaveLength(80);
		expect(http.server.maxInFlight).toBe(REMOTE_REQUESTS);
	});

	it("concurrency counts shards too: 4 shards of 100 inner chunks with concurrency 3 are 3 requests in flight, not 1", async () => {
		const { input, name } = await shardedChunks(4, 100);
		http.fault = (request) => (Number.isNaN(chunkIndex(request)) ? undefined : { delayMs: 40 });
		expect(await exported(`${http.server.url}/${name}.zarr`, { concurrency: 3 })).toEqual(Array.from(input));
		expect(shardReads()).toHaveLength(8);
		expect(mostInFlight(shardReads())).toBe(3);
	});

	it("a row of inner chunks across more shards than are held (7): each byte of each shard asked for once, not once a row of inner chunks", async () => {
		// 20 x 70 in shards of 10 x 10, inner chunks of 5 x 5: 2 x 7 shards of 2 x 2 inner chunks.
		const name = `t${counter++}`;
		const input = times(20 * 70);
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [5, 5], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(path.join(served, `${name}.zarr`), "", { shape: [20, 70], chunks: [10, 10], values: input, codecs });
		expect(await exported(`${http.server.url}/${name}.zarr`)).toEqual(Array.from(input));
		const shardKey = (request: { path: string }) => /\/c\/\d+\/\d+$/.exec(request.path)?.[0];
		const asked = new Map<string, number>();
		for (const request of http.server.requests) {
			const key = shardKey(request);
			if (key === undefined || request.range === undefined || request.range.startsWith("bytes=-")) continue;
			const [first, last] = request.range.slice("bytes=".length).split("-").map(Number);
			asked.set(key, (asked.get(key) ?? 0) + last - first + 1);
		}
		// Each shard: 4 inner chunks of 25 int64 values, asked for once (an index of 4 entries and its crc32c aside).
		expect(asked.size).toBe(14);
		for (const [key, bytes] of asked) expect(bytes, key).toBe(4 * 25 * 8);
		expect(http.server.requests.filter((request) => shardKey(request) !== undefined).length).toBeLessThanOrEqual(14 * 3);
	});

	it("hold the inner chunks in flight to about REMOTE_READ_BYTES of values, shared by the columns", () => {
		const remote = { remote: true };
		expect(remoteChunksInFlight({ remote: false }, [[10]])).toBeUndefined();
		expect(remoteChunksInFlight(remote, [[2 ** 10]])).toBe(REMOTE_READ_BYTES / 2 ** 13);
		expect(remoteChunksInFlight(remote, [[2 ** 10], [2 ** 10]])).toBe(REMOTE_READ_BYTES / 2 ** 14);
		expect(remoteChunksInFlight(remote, [[2 ** 24]])).toBe(0);
	});
});

describe("remote reads of a table's columns (trial 20, finding 16)", () => {
	it("every column's first chunks are asked for at once, not column after column", async () => {
		// time and 20 variables of 10 values, one chunk each: asked for in turn, one request was in flight.
		const name = `wide${counter++}`;
		const root = path.join(served, `${name}.zarr`);
		await writeGroup(root, "");
		const time = times(10);
		await writeArray(root, "time", { shape: [10], chunks: [10], values: time, codecs: [LE], dimensionNames: ["time"] });
		const names = Array.from({ length: 20 }, (_, k) => `v${k}`);
		for (const variable of names) {
			await writeArray(root, variable, { shape: [10], chunks: [10], values: Float64Array.from({ length: 10 }, (_, i) => i), dataType: "float64", fillValue: 0, codecs: [LE], dimensionNames: ["time"] });
		}
		http.fault = (request) => (/\/c\/0$/.test(request.path) ? { delayMs: 100 } : undefined);
		const out = path.join(work, `wide${counter++}.arrow`);
		await exportToFile(`${http.server.url}/${name}.zarr`, out, { columns: ["time", ...names] });
		const chunks = http.server.requests.filter((request) => request.path.endsWith("/c/0"));
		expect(chunks).toHaveLength(21);
		// The most chunk requests in flight at once, from the log's times: 1 when asked for in turn.
		const inFlight = Math.max(...chunks.map(({ start }) => chunks.filter((other) => other.start <= start && (other.end ?? Number.POSITIVE_INFINITY) > start).length));
		expect(inFlight).toBe(21);
	});
});

describe("zip entries", () => {
	it("over HTTP: one read per entry at most, side by side entries coalesced, rows in order", async () => {
		const { input, name } = await smallChunks(200);
		const zipPath = `/${name}.zip`;
		http.fault = (request) => (request.path === zipPath ? { delayMs: 5 + Math.floor(Math.random() * 20) } : undefined);
		expect(await exported(`${http.server.url}${zipPath}`)).toEqual(Array.from(input));
		const reads = http.server.requests.filter((request) => request.path === zipPath);
		// unzipit read each entry's local header, then its data: two requests per chunk, one after the other.
		expect(reads.length).toBeLessThan(200 / 4);
		expect(reads.every((request) => request.status === 206)).toBe(true);
	});

	it("over HTTP: a zip whose local headers are longer than the central directory says (Info-ZIP's `zip -r`) reads each run of entries in one request, not again 4 bytes longer (trial 20, finding 14)", async () => {
		const { input, name, folder } = await smallChunks(200);
		const zipPath = `/${name}-timestamps.zip`;
		const zipFile = path.join(served, zipPath.slice(1));
		writeStoredZip(folder, zipFile, { timestamps: true });
		const bytes = fs.readFileSync(zipFile);
		// Where the central directory starts (its end record's offset field): the entries' reads are before it.
		const directory = bytes.readUInt32LE(bytes.length - 22 + 16);
		http.fault = (request) => (request.path === zipPath ? { delayMs: 5 + Math.floor(Math.random() * 20) } : undefined);
		expect(await exported(`${http.server.url}${zipPath}`)).toEqual(Array.from(input));
		const ranges = http.server.requests
			.filter((request) => request.path === zipPath && request.range !== undefined)
			.map((request) => /^bytes=(\d+)-(\d+)$/.exec(request.range!)!.slice(1).map(Number))
			.filter(([from]) => from < directory)
			.sort((a, b) => a[0] - b[0]);
		// Each run of entries was read again from its data to 4 bytes past the first read's end: two requests, one
		// after the other, the second from the entry's data, past the first (reads of opening may hold later ones whole).
		const rereads = ranges.filter(([from, to], j) => ranges.some(([start, end], i) => i !== j && start < from && from - start < 256 && from <= end && to > end));
		expect(rereads).toEqual([]);
		expect(ranges.length).toBeLessThan(200 / 4);
	});

	it("over HTTP: an abort cancels the range reads in flight", async () => {
		const { name } = await smallChunks(200);
		const zipPath = `/${name}.zip`;
		const opened = await openStore(`${http.server.url}${zipPath}`);
		const asked = http.server.requests.length;
		http.fault = () => ({ delayMs: 20_000 });
		const controller = new AbortController();
		const read = opened.store.get("/c/5", { signal: controller.signal });
		read.catch(() => undefined);
		while (http.server.inFlight < 1) await new Promise((resolve) => setTimeout(resolve, 10));
		controller.abort();
		await expect(read).rejects.toMatchObject({ name: "AbortError" });
		for (let waited = 0; http.server.inFlight > 0 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
		expect(http.server.inFlight).toBe(0);
		expect(http.server.requests.length).toBe(asked + 1);
	});

	it("an entry whose local header is damaged fails with its key, as READ_FAILED", async () => {
		const { zip } = await smallChunks(100);
		const bytes = fs.readFileSync(zip);
		const at = bytes.indexOf(Buffer.from("c/57"));
		// The local header's signature, 30 bytes before its name.
		bytes.writeUInt32LE(0, at - 30);
		fs.writeFileSync(zip, bytes);
		const error = await rejection(exportToFile(zip, path.join(work, `bad${counter++}.arrow`)));
		expect(error).toMatchObject({ code: "READ_FAILED", key: "c/57" });
		expect(error.message).toContain("c/57");
	});

	it("deflated entries are inflated, exactly", async () => {
		const { input, folder } = await smallChunks(50);
		const zip = path.join(served, `deflated${counter++}.zip`);
		writeStoredZip(folder, zip, { deflate: true });
		expect(await exported(zip)).toEqual(Array.from(input));
	});
});
