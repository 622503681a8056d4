/**
 * A 1-D sharded datetime64 array is exported a shard at a time: its inner chunks decoded into one buffer, each at its
 * offset (on a decode thread, a SharedArrayBuffer it writes where it is), a record batch a run of its inner chunks
 * decoded (see shard-hand-on.test.ts), with the same values; missing inner chunks are the fill value, a corrupt one is named, a time range
 * cuts the first and last shards it holds. On the decode threads and on the calling thread alike.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NAT, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { readArrow, readRawInt64, runCli, tempDir } from "./support/cli.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/**
 * Values in shards of four inner chunks, the last shard holding three, the last one ragged. Inner chunks of 64 Ki
 * values: smaller bands are gathered into batches of that many rows anyway (joinSmallBands).
 */
const INNER = 65_536;
const SHARD = 4 * INNER;
const LENGTH = 4 * SHARD + 3 * INNER - 1000;
const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [INNER], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } };

/**
 * Seconds since 2000, increasing, with NaT every 997th value and, with `missing`, inner chunk 7 (shard 1's fourth)
 * all NaT: the writer then leaves it out of its shard (the fill value, NaT, stands for it).
 */
function timeValues(missing: boolean): BigInt64Array {
	return BigInt64Array.from({ length: LENGTH }, (_, i) => (i % 997 === 500 || (missing && i >= 7 * INNER && i < 8 * INNER) ? NAT : BigInt(946_684_800 + 60 * i)));
}

/** The stores written, by name: each is written once for both thread settings. */
const stores = new Map<string, Promise<string>>();

function shardedStore(name: string, values: BigInt64Array, corruptChunk?: (coords: number[], bytes: Uint8Array) => Uint8Array): Promise<string> {
	let store = stores.get(name);
	if (store === undefined) {
		const root = path.join(tempDir("dt64-shard-bands-"), "a.zarr");
		store = writeArray(root, "", { shape: [LENGTH], chunks: [SHARD], dataType: seconds, values, codecs: [sharding], ...(corruptChunk && { corruptChunk }) }).then(() => root);
		stores.set(name, store);
	}
	return store;
}

/** The int64 of column `column` of `table`, null for a null, whatever its batches. */
function rawInt64(table: Table, column: number): (bigint | null)[] {
	const out: (bigint | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(column)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}

const expected = (values: BigInt64Array, from = 0, to = values.length) => Array.from(values.subarray(from, to), (v) => (v === NAT ? null : v));

/** The threads setting of each run: the decode threads (forced, as the array is small) and the calling thread. */
const THREADS = [
	["on a decode thread", "1"],
	["on the calling thread", "0"],
] as const;

describe("a 1-D sharded array exported a shard at a time", () => {
	for (const [where, threads] of THREADS) {
		it(`record batches of runs of inner chunks up to a shard, the values of its inner chunks, a missing one the fill value (${where})`, async () => {
			const values = timeValues(true);
			const store = await shardedStore("missing", values);
			// The writer left the all-NaT inner chunk out: its shard holds three.
			expect(fs.readFileSync(path.join(store, "c", "1")).byteLength).toBeLessThan(fs.readFileSync(path.join(store, "c", "0")).byteLength);
			const dir = tempDir("dt64-shard-bands-out-");
			const out = path.join(dir, "t.arrow");
			const run = runCli([store, "--unit", "s", "-o", out, "-q"], { env: { DT64_DECODE_THREADS: threads } });
			expect(run.stderr).toBe("");
			expect(run.status).toBe(0);
			const table = readArrow(out);
			// The first shard in runs of one, two and one inner chunks, then a shard a batch (see shard-hand-on.test.ts).
			expect(table.batches.map((batch) => batch.numRows)).toEqual([INNER, 2 * INNER, INNER, SHARD, SHARD, SHARD, LENGTH - 4 * SHARD]);
			expect(rawInt64(table, 0)).toEqual(expected(values));
			// Chunk order reads inner chunk by inner chunk (a batch each, beside the index column): the same values.
			const byInner = path.join(dir, "inner.arrow");
			expect(runCli([store, "--unit", "s", "--order", "chunk", "--index", "-o", byInner, "-q"], { env: { DT64_DECODE_THREADS: threads } }).status).toBe(0);
			const inner = readArrow(byInner);
			expect(inner.batches.length).toBe(Math.ceil(LENGTH / INNER));
			expect(rawInt64(table, 0)).toEqual(rawInt64(inner, 1));
		});

		it(`a time range cuts the first and last shards it holds to its rows (${where})`, async () => {
			const values = timeValues(false).map((v, i) => (v === NAT ? BigInt(946_684_800 + 60 * i) : v));
			const store = await shardedStore("sorted", values);
			const out = path.join(tempDir("dt64-shard-bands-out-"), "t.arrow");
			// Rows 12,345 to 900,000: the end of shard 0, shards 1 and 2, the start of shard 3 (in its second inner chunk).
			const [from, to] = [12_345, 900_000];
			const start = new Date((946_684_800 + 60 * from) * 1000).toISOString();
			const end = new Date((946_684_800 + 60 * to) * 1000).toISOString();
			const run = runCli([store, "--unit", "s", "--start", start, "--end", end, "-o", out, "-q"], { env: { DT64_DECODE_THREADS: threads } });
			expect(run.stderr).toBe("");
			expect(run.status).toBe(0);
			expect(readArrow(out).batches.map((batch) => batch.numRows)).toEqual([INNER - from, 2 * INNER, INNER, SHARD, SHARD, to - 3 * SHARD]);
			expect(readRawInt64(out)).toEqual(expected(values, from, to));
		});

		it(`a corrupt inner chunk is refused by its shard and place, nothing written (${where})`, async () => {
			const values = timeValues(false);
			// Shard 1's third inner chunk: its frame's blocks overwritten past the header.
			const store = await shardedStore("corrupt", values, ([c], bytes) => {
				if (c !== 1) return bytes;
				const entries = SHARD / INNER;
				const index = Buffer.from(bytes.subarray(bytes.length - (entries * 16 + 4)));
				const offset = Number(index.readBigUInt64LE(2 * 16));
				const length = Number(index.readBigUInt64LE(2 * 16 + 8));
				const spoiled = Buffer.from(bytes);
				spoiled.fill(0xff, offset + 12, offset + length);
				return spoiled;
			});
			const dir = tempDir("dt64-shard-bands-out-");
			const out = path.join(dir, "t.arrow");
			const run = runCli([store, "--unit", "s", "-o", out, "-q"], { env: { DT64_DECODE_THREADS: threads } });
			expect(run.status).toBe(1);
			expect(run.stderr).toMatch(/^dt64-export: chunk c\/1 \(inner chunk \[2\]\): cannot decode: zstd: .*\[CHUNK_CORRUPT\]\n$/);
			expect(fs.readdirSync(dir)).toEqual([]);
		});
	}
});

describe("the buffer pool's shared buffers", () => {
	it("are handed out whole, come back once all their bytes are dead, and are handed out again as shared ones only", () => {
		const pool = new BufferPool();
		const shared = pool.acquireShared(100_000);
		expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
		expect(pool.isWhole(shared)).toBe(true);
		const back: unknown[] = [];
		pool.onReturn((buffer) => back.push(buffer));
		pool.release(shared.subarray(0, 60_000));
		expect(back).toEqual([]);
		pool.release(shared.subarray(60_000));
		expect(back).toEqual([shared.buffer]);
		// An ArrayBuffer of the same size class is never the shared one, and the shared one comes back as shared.
		expect(pool.acquire(100_000).buffer).not.toBe(shared.buffer);
		expect(pool.acquireShared(100_000).buffer).toBe(shared.buffer);
	});
});
