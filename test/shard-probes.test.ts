/**
 * --start/--end over a sharded array served over HTTP: what is fetched is each shard's index (once), one inner chunk
 * per probe of the range search and the range's inner chunks, never a whole shard's data, and no byte twice.
 * Proven from the server's request log against the shards' own indexes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { formatIsoTimestamp } from "../src/convert/iso8601.js";
import { exportSelection } from "../src/index.js";
import { inspectStore } from "../src/inspect.js";
import { tempDir } from "./support/cli.js";
import { startServer, type TestServer } from "./support/http-server.js";

const work = tempDir("dt64-shard-probes-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
const ms = { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } };
/** 1.2M sorted times in 4 shards of 20 inner chunks of 15,000: 80 blocks, longer than the search reads whole first. */
const LENGTH = 1_200_000;
const SHARD = 300_000;
const INNER = 15_000;
const PER_SHARD = SHARD / INNER;
const INDEX_BYTES = PER_SHARD * 16 + 4;
const T0 = BigInt(Date.UTC(2020, 0, 1));

/** Times that grow irregularly (steps of 1 ms to 2 s), so that the search probes several shards. */
const times = (() => {
	const values = new BigInt64Array(LENGTH);
	let state = 7;
	let t = T0;
	for (let i = 0; i < LENGTH; i++) {
		state = (state * 1103515245 + 12345) % 2 ** 31;
		t += BigInt(1 + (state % 2000)) * (i < LENGTH / 2 ? 1n : 3n);
		values[i] = t;
	}
	return values;
})();

let server: TestServer;
beforeAll(async () => {
	const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [INNER], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
	await writeArray(path.join(work, "t.zarr"), "", { shape: [LENGTH], chunks: [SHARD], dataType: ms, values: times, codecs });
	server = await startServer(work);
});
afterAll(() => server?.close());

/** Each shard's inner chunks as the index at its end says: byte ranges by inner chunk. */
function innerChunks(shard: number): { offset: number; length: number }[] {
	const bytes = fs.readFileSync(path.join(work, "t.zarr", "c", String(shard)));
	const index = new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - INDEX_BYTES, INDEX_BYTES - 4);
	return Array.from({ length: PER_SHARD }, (_, k) => ({ offset: Number(index.getBigUint64(16 * k, true)), length: Number(index.getBigUint64(16 * k + 8, true)) }));
}

interface Fetched {
	shard: number;
	/** `index`, or the byte range [from, to] of the shard. */
	what: "index" | { from: number; to: number };
}

/** The requests for shards since the log was cleared: each must be a ranged read. */
function fetchedShards(): Fetched[] {
	return server.requests
		.filter((request) => request.path.startsWith("/t.zarr/c/"))
		.map((request) => {
			const shard = Number(request.path.slice("/t.zarr/c/".length));
			expect(request.range, `a whole GET of shard ${shard}`).toBeDefined();
			if (request.range === `bytes=-${INDEX_BYTES}`) return { shard, what: "index" };
			const match = /^bytes=(\d+)-(\d+)$/.exec(request.range!);
			expect(match, request.range).not.toBeNull();
			return { shard, what: { from: Number(match![1]), to: Number(match![2]) } };
		});
}

/** Exports [start, end) of the served array as Arrow IPC (known sorted, unless said otherwise); its times and the search's probes. */
async function exportRange(start: bigint, end: bigint, knownSorted = true): Promise<{ values: bigint[]; probes: number }> {
	const chunks: Buffer[] = [];
	const sink = new Writable({ write: (chunk: Buffer, _encoding, callback) => void (chunks.push(chunk), callback()) });
	server.reset();
	const summary = await exportSelection(`${server.url}/t.zarr`, sink, { start: formatIsoTimestamp(start, "ms"), end: formatIsoTimestamp(end, "ms"), format: "arrow-stream", ...(knownSorted ? { timeSorted: true } : {}) });
	expect(summary.selection.sorted).toBe(true);
	const table = tableFromIPC(Buffer.concat(chunks));
	return { values: Array.from(table.getChild("t")!.toArray() as BigInt64Array), probes: summary.selection.probes };
}

/** The inner chunks (shard, inner chunk) holding rows [first, last]. */
function innerChunksOfRows(first: number, last: number): string[] {
	const held: string[] = [];
	for (let c = Math.floor(first / INNER); c <= Math.floor(last / INNER); c++) held.push(`${Math.floor(c / PER_SHARD)}/${c % PER_SHARD}`);
	return held;
}

/**
 * Checks the fetches: each shard's index at most once; every data range one inner chunk or a run of adjacent ones,
 * never a whole shard's; no byte of a shard twice. The inner chunks fetched, as `shard/inner`.
 */
function checkFetches(fetched: Fetched[]): string[] {
	const indexes = fetched.filter((f) => f.what === "index").map((f) => f.shard);
	expect(new Set(indexes).size, "an index read twice").toBe(indexes.length);
	const read: string[] = [];
	const ranges = new Map<number, { from: number; to: number }[]>();
	for (const { shard, what } of fetched) {
		if (what === "index") continue;
		expect(indexes, `shard ${shard} read before its index`).toContain(shard);
		const chunks = innerChunks(shard);
		const first = chunks.findIndex((chunk) => chunk.offset === what.from);
		const last = chunks.findIndex((chunk) => chunk.offset + chunk.length - 1 === what.to);
		expect(first >= 0 && last >= first, `shard ${shard} bytes ${what.from}-${what.to}: not a run of inner chunks`).toBe(true);
		expect(last - first + 1, `shard ${shard}: all of its data read`).toBeLessThan(PER_SHARD);
		for (let k = first; k <= last; k++) read.push(`${shard}/${k}`);
		const seen = ranges.get(shard) ?? [];
		for (const other of seen) expect(what.to < other.from || what.from > other.to, `shard ${shard}: bytes ${what.from}-${what.to} fetched twice`).toBe(true);
		ranges.set(shard, [...seen, what]);
	}
	return read;
}

describe("a time range of a sharded array over HTTP", () => {
	it("fetches the shard indexes, one inner chunk per probe and the range's inner chunks: no whole shard, nothing twice", async () => {
		// 100 rows inside one inner chunk of the third shard.
		const first = 2 * SHARD + 7 * INNER + 120;
		const { values, probes } = await exportRange(times[first], times[first + 100]);
		expect(values).toEqual(Array.from(times.subarray(first, first + 100)));
		const read = checkFetches(fetchedShards());
		// Each probe's one inner chunk (the search may read a block it probed again: not fetched again), and the range's.
		expect(read.length).toBeLessThanOrEqual(probes);
		expect(read).toEqual(expect.arrayContaining(innerChunksOfRows(first, first + 99)));
		expect(new Set(read).size).toBe(read.length);
	});

	it("reads a range across a shard boundary as runs of its inner chunks, the probed ones not again", async () => {
		const first = SHARD - 3 * INNER - 10;
		const last = SHARD + 4 * INNER + 20;
		const { values, probes } = await exportRange(times[first], times[last + 1]);
		expect(values).toEqual(Array.from(times.subarray(first, last + 1)));
		const fetched = fetchedShards();
		const read = checkFetches(fetched);
		expect(read.sort()).toEqual(expect.arrayContaining(innerChunksOfRows(first, last)));
		// Beyond the range's inner chunks, only the probes'.
		expect(read.length).toBeLessThanOrEqual(innerChunksOfRows(first, last).length + probes);
		// The range's inner chunks that no probe fetched come in runs, not one request each.
		const runs = fetched.filter((f) => f.what !== "index").map(({ shard, what }) => {
			const { from, to } = what as { from: number; to: number };
			return innerChunks(shard).filter((chunk) => chunk.offset >= from && chunk.offset + chunk.length - 1 <= to).length;
		});
		expect(Math.max(...runs)).toBeGreaterThanOrEqual(2);
	});

	it("reads a range from the first row without the first inner chunk again: the search's probe of it is kept", async () => {
		// The first probe reads inner chunk 0/0 (the bound is at or before its first time); the export's read of shard 0,
		// all of it, is then a run of its other inner chunks. It read 0/0 again with them (and, read into one buffer on a
		// decode thread, into the place its kept bytes were decoded to: see shard-kept-inner.test.ts).
		const end = SHARD + 17;
		const { values, probes } = await exportRange(T0, times[end]);
		expect(values).toEqual(Array.from(times.subarray(0, end)));
		const read = checkFetches(fetchedShards());
		expect(new Set(read).size).toBe(read.length);
		expect(read.sort()).toEqual(expect.arrayContaining(innerChunksOfRows(0, end - 1)));
		expect(read.length).toBeLessThanOrEqual(innerChunksOfRows(0, end - 1).length + probes);
	});

	it("not known sorted, reads every inner chunk once, in runs, to check the time sorted before the search; known sorted, answers a range before the data at the first probe, one after it at the first and last", async () => {
		const dataBytes = [0, 1, 2, 3].reduce((sum, shard) => sum + innerChunks(shard).reduce((total, chunk) => total + chunk.length, 0), 0);
		for (const [start, end, probes] of [[T0 - 10_000n, T0, 1], [times[LENGTH - 1] + 1n, times[LENGTH - 1] + 10_000n, 2]] as const) {
			expect(await exportRange(start, end)).toEqual({ values: [], probes });
			expect(checkFetches(fetchedShards())).toHaveLength(probes);
			const answer = await exportRange(start, end, false);
			// Each of the 80 blocks once to check the time sorted (nothing in range hides anywhere), then the search.
			expect(answer).toEqual({ values: [], probes: 80 });
			const fetched = fetchedShards();
			const indexes = fetched.filter((f) => f.what === "index").map((f) => f.shard);
			expect(indexes.sort()).toEqual([0, 1, 2, 3]);
			const data = fetched.flatMap((f) => (f.what === "index" ? [] : [f.what.to - f.what.from + 1]));
			// Every inner chunk's bytes, the probes' at most once more; in runs, not one request per inner chunk.
			const probed = innerChunks(0)[0].length + innerChunks(3)[PER_SHARD - 1].length;
			expect(data.reduce((sum, n) => sum + n, 0)).toBeGreaterThanOrEqual(dataBytes);
			expect(data.reduce((sum, n) => sum + n, 0)).toBeLessThanOrEqual(dataBytes + probed);
			expect(data.length).toBeLessThan(4 * PER_SHARD);
		}
	});

	it("inspect reads the first and the last inner chunk for the first and last time, not their shards", async () => {
		server.reset();
		const [array] = (await inspectStore(`${server.url}/t.zarr`)).nodes;
		expect([array.first, array.last]).toMatchObject([{ row: 0, count: times[0] }, { row: LENGTH - 1, count: times[LENGTH - 1] }]);
		expect(checkFetches(fetchedShards()).sort()).toEqual(["0/0", `3/${PER_SHARD - 1}`]);
	});
});
