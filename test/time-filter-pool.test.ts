/**
 * The time filter (`start`/`end`): its rows are the rows a plain BigInt comparison keeps (it compares the two 32-bit
 * words of each time), whatever the values (around the words' boundaries, negative, int64's ends) and bounds (past
 * int64's range), its order check fails exactly where the times go back; and with a pool it says dead the bytes of
 * the rows it leaves out, so that the chunk buffers come back whole once the rows kept are written: nothing said dead
 * that a batch still to be written holds (a PoisoningPool spoils a buffer the moment it is back), nothing left out.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Float64, Int64, makeData, RecordBatch, Schema, Field, Struct, tableFromIPC, TimestampNanosecond, type DataType } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { describe, expect, it, vi } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import type { ExportSettings } from "../src/export-plan.js";
import { exportToFile } from "../src/index.js";
import type { BufferPool } from "../src/memory/buffer-pool.js";
import { TimeFilter } from "../src/select/time-filter.js";
import { CopiedRows } from "../src/arrow/copied-rows.js";
import { tempDir } from "./support/cli.js";
import { CountingPool } from "./support/counting-pool.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

process.env.DT64_DECODE_THREADS ??= "2";

const NS = 10n ** 9n;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A deterministic generator of 32-bit numbers. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
		return state;
	};
}

const TIME = new Field("t", new TimestampNanosecond(), true);

/** A batch of times (null: missing) and two more columns (int64 row numbers; floats, every 7th null), its values in `alloc`'s buffers. */
function batchOf(times: (bigint | null)[], firstRow: number, alloc: (bytes: number) => Uint8Array = (bytes) => new Uint8Array(bytes)): RecordBatch {
	const length = times.length;
	const column = <T extends DataType>(type: T, array: BigInt64Array | Float64Array, valid: (i: number) => boolean) => {
		const bitmap = new Uint8Array(Math.ceil(length / 8));
		let nulls = 0;
		for (let i = 0; i < length; i++) {
			if (valid(i)) bitmap[i >> 3] |= 1 << (i & 7);
			else nulls++;
		}
		return makeData({ type, length, nullCount: nulls, nullBitmap: nulls === 0 ? null : bitmap, data: array } as never);
	};
	const timeValues = new BigInt64Array(alloc(8 * length).buffer, 0, length);
	times.forEach((t, i) => (timeValues[i] = t ?? INT64_MIN));
	const rows = new BigInt64Array(alloc(8 * length).buffer, 0, length);
	const floats = new Float64Array(alloc(8 * length).buffer, 0, length);
	for (let i = 0; i < length; i++) {
		rows[i] = BigInt(firstRow + i);
		floats[i] = (firstRow + i) / 2;
	}
	const schema = new Schema([TIME, new Field("row", new Int64(), false), new Field("half", new Float64(), true)]);
	const children = [column(new TimestampNanosecond(), timeValues, (i) => times[i] !== null), column(new Int64(), rows, () => true), column(new Float64(), floats, (i) => (firstRow + i) % 7 !== 0)];
	return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

interface Row {
	t: bigint;
	row: bigint;
	half: number | null;
}

/** The rows of batches as read (a copy, taken when the batch is written). */
function rowsOf(batch: RecordBatch): Row[] {
	const rows: Row[] = [];
	// The times as stored (apache-arrow's `get` gives a Timestamp in milliseconds, a float).
	const times = batch.getChildAt(0)!.data[0];
	for (let i = 0; i < batch.numRows; i++) {
		expect(times.getValid(i), "a missing time kept").toBe(true);
		rows.push({ t: (times.values as BigInt64Array)[i], row: batch.getChildAt(1)!.get(i) as bigint, half: batch.getChildAt(2)!.get(i) as number | null });
	}
	return rows;
}

/** Runs batches through a TimeFilter into a sink that reads each batch, then says its buffers dead (as a file does once written). */
async function filtered(batches: RecordBatch[], low: bigint | undefined, high: bigint | undefined, checkSorted: boolean, pool?: BufferPool): Promise<Row[]> {
	const filter = new TimeFilter({ timeColumn: "t", unit: "ns", bounds: { start: low === undefined ? undefined : low * NS, end: high === undefined ? undefined : high * NS }, checkSorted, truncated: false, bufferPool: pool });
	const rows: Row[] = [];
	const written: RecordBatch[] = [];
	const sink = new Writable({
		objectMode: true,
		write(batch: RecordBatch, _encoding, callback) {
			written.push(batch);
			callback();
		},
	});
	await pipeline(Readable.from(batches), filter, sink);
	// Read only once every batch went through the filter: what it said dead too early is spoilt by now.
	for (const batch of written) {
		rows.push(...rowsOf(batch));
		if (pool !== undefined) {
			for (const column of batch.data.children) {
				for (const buffer of [column.values, column.nullBitmap] as unknown[]) {
					if (ArrayBuffer.isView(buffer)) pool.release(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
				}
			}
		}
	}
	return rows;
}

/** What the filter must keep: the valid times in [low, high), by BigInt comparison. */
function expected(batches: (bigint | null)[][], low: bigint | undefined, high: bigint | undefined): Row[] {
	const rows: Row[] = [];
	let row = 0;
	for (const times of batches) {
		for (const t of times) {
			if (t !== null && (low === undefined || t >= low) && (high === undefined || t < high)) rows.push({ t, row: BigInt(row), half: row % 7 === 0 ? null : row / 2 });
			row++;
		}
	}
	return rows;
}

/** Times around the 32-bit words' boundaries and int64's ends, and random ones. */
const EDGES = [INT64_MIN + 1n, -(2n ** 32n) - 1n, -(2n ** 32n), -(2n ** 31n) - 1n, -(2n ** 31n), -1n, 0n, 1n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 32n + 1n, 2n ** 62n, INT64_MAX];

describe("the time filter's comparisons", () => {
	it("keeps the rows a BigInt comparison keeps, for bounds at, between and past the edges of the words and of int64", async () => {
		const next = random(7);
		const values = [...EDGES];
		for (let i = 0; i < 200; i++) values.push(BigInt.asIntN(64, (BigInt(next()) << 32n) | BigInt(next())));
		values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		// Missing times anywhere, batches of uneven sizes.
		const times = values.flatMap((t, i) => (i % 5 === 2 ? [null, t] : [t]));
		const batches = [times.slice(0, 37), times.slice(37, 38), times.slice(38, 150), times.slice(150)];
		const bounds = [undefined, INT64_MIN * 2n, INT64_MIN, INT64_MAX + 1n, INT64_MAX * 2n, ...EDGES, ...EDGES.map((e) => e + 1n), values[100], values[101] + 1n];
		for (const low of bounds) {
			for (const high of [undefined, ...EDGES, INT64_MAX + 1n, INT64_MIN, values[120]]) {
				const got = await filtered(batches.map((b, k) => batchOf(b, batches.slice(0, k).reduce((n, x) => n + x.length, 0))), low, high, true);
				expect(got, `[${low}, ${high})`).toEqual(expected(batches, low, high));
			}
		}
	});

	it("refuses times that go back, across batches and between words, and only those", async () => {
		for (const [before, after] of [
			[2n ** 32n, 2n ** 32n - 1n],
			[0n, -1n],
			[2n ** 31n, 2n ** 31n - 1n],
			[-(2n ** 31n), -(2n ** 31n) - 1n],
		]) {
			const ok = [batchOf([before - 2n, null, before], 0), batchOf([null, before, before + 1n], 3)];
			await expect(filtered(ok, undefined, undefined, true)).resolves.toHaveLength(4);
			const back = [batchOf([before - 2n, null, before], 0), batchOf([null, after], 3)];
			await expect(filtered(back, undefined, undefined, true)).rejects.toMatchObject({ code: "TIME_NOT_SORTED", message: expect.stringContaining("row 4 of the rows read") });
			// Not checked: kept as they are.
			await expect(filtered(back, undefined, undefined, false)).resolves.toHaveLength(3);
		}
	});

	it("reads the validity of a sliced batch at its offset", async () => {
		const times = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? null : BigInt(i)));
		const sliced = batchOf(times, 0).slice(5, 33);
		const got = await filtered([sliced], 10n, 30n, true);
		expect(got.map((r) => r.t)).toEqual(times.slice(5, 33).filter((t): t is bigint => t !== null && t >= 10n && t < 30n));
	});
});

describe("the time filter with a pool", () => {
	it("says dead what it leaves out: every buffer comes back once the rows kept are written, none before", async () => {
		const pool = new PoisoningPool();
		const issued: Uint8Array[] = [];
		const alloc = (bytes: number) => {
			const view = pool.acquire(bytes);
			issued.push(view);
			return view;
		};
		const back = new Set<ArrayBufferLike>();
		pool.onReturn((buffer) => back.add(buffer));
		const next = random(11);
		// Sorted times, missing ones here and there; batches cut whole, in part (one run: a slice) and in runs (copied), or left out.
		let t = 1_000n;
		const batches: (bigint | null)[][] = [];
		for (let b = 0; b < 12; b++) {
			const times: (bigint | null)[] = [];
			for (let i = 0; i < 64 + (next() % 64); i++) {
				t += BigInt(1 + (next() % 5));
				times.push(b % 3 === 1 && next() % 9 === 0 ? null : t);
			}
			batches.push(times);
		}
		const all = batches.flat().filter((x): x is bigint => x !== null);
		const [low, high] = [all[150], all[all.length - 200]];
		let first = 0;
		const made = batches.map((times) => {
			const batch = batchOf(times, first, alloc);
			first += times.length;
			return batch;
		});
		const got = await filtered(made, low, high, true, pool);
		expect(got).toEqual(expected(batches, low, high));
		// The copies the filter made come from the pool too: every buffer it issued, and each of the batches', is back.
		for (const view of issued) expect(back.has(view.buffer), "a batch's buffer not back").toBe(true);
		expect(pool.reused).toBeGreaterThan(0);
	});
});

describe("the time filter on batches that own their buffers", () => {
	/** A PoisoningPool that counts `acquire`. */
	class CountingPoisoningPool extends PoisoningPool {
		acquired = 0;
		override acquire(size: number, room?: number): Buffer {
			this.acquired++;
			return super.acquire(size, room);
		}
	}

	/** Batches of sorted times with missing ones in every batch (cut into runs by a two-sided range), in `pool`'s buffers. */
	function owningBatches(pool: CountingPoisoningPool, mark: (batch: number, column: number) => boolean) {
		const next = random(23);
		let t = 1_000n;
		const batches: (bigint | null)[][] = [];
		for (let b = 0; b < 10; b++) {
			const times: (bigint | null)[] = [];
			for (let i = 0; i < 100 + (next() % 200); i++) {
				t += BigInt(1 + (next() % 5));
				times.push(next() % 13 === 0 ? null : t);
			}
			batches.push(times);
		}
		const issued: Uint8Array[] = [];
		let first = 0;
		const made = batches.map((times, b) => {
			let column = 0;
			const batch = batchOf(times, first, (bytes) => {
				const view = pool.acquire(bytes);
				issued.push(view);
				// The reader's word: this batch alone views these bytes, and nothing writes there any more.
				if (mark(b, column++)) pool.markOwned(view);
				return view;
			});
			first += times.length;
			return batch;
		});
		const all = batches.flat().filter((x): x is bigint => x !== null);
		return { batches, made, issued, low: all[77], high: all[all.length - 99] };
	}

	it("moves the rows kept to the front of the batch's own buffers: no copy, the right rows, every buffer back once written", async () => {
		const pool = new CountingPoisoningPool();
		const back = new Set<ArrayBufferLike>();
		pool.onReturn((buffer) => back.add(buffer));
		const { batches, made, issued, low, high } = owningBatches(pool, () => true);
		const before = pool.acquired;
		const got = await filtered(made, low, high, true, pool);
		expect(got).toEqual(expected(batches, low, high));
		// Every batch but the first and last is cut into runs: none was copied.
		expect(pool.acquired).toBe(before);
		for (const view of issued) expect(back.has(view.buffer), "a batch's buffer not back").toBe(true);
	});

	it("copies a batch one of whose columns is not marked its own", async () => {
		const pool = new CountingPoisoningPool();
		// Batch 4's float column is not marked: batch 4 is copied, the others moved in place.
		const { batches, made, low, high } = owningBatches(pool, (batch, column) => batch !== 4 || column !== 2);
		const before = pool.acquired;
		const got = await filtered(made, low, high, true, pool);
		expect(got).toEqual(expected(batches, low, high));
		// One copy, of three columns.
		expect(pool.acquired).toBe(before + 3);
	});
});

describe("a time range exported to a file with a pool", () => {
	const work = tempDir("dt64-filter-pool-");
	const LE = { name: "bytes", configuration: { endian: "little" } };
	const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
	const ns = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
	const LENGTH = 240_000;
	// Sorted times, one in 97 missing: every batch of a range is cut into runs by the filter.
	/** A time in ns since the epoch (after it) as an ISO bound, to the nanosecond. */
	const iso = (v: bigint) => new Date(Number(v / 1_000_000n)).toISOString().replace("Z", "") + String(v % 1_000_000n).padStart(6, "0");
	const times = BigInt64Array.from({ length: LENGTH }, (_, i) => (i % 97 === 5 ? INT64_MIN : 1_700_000_000n * NS + BigInt(i) * 1_000_003n));

	for (const [name, codecs, chunks] of [
		["sharded zstd (a shard at a time)", [{ name: "sharding_indexed", configuration: { chunk_shape: [10_000], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }], [60_000]],
		["zstd chunks", [LE, ZSTD], [20_000]],
	] as const) {
		it(`${name}: the rows in range, the pool's buffers back`, async () => {
			const store = path.join(work, `${name.split(" ")[0]}-${chunks[0]}.zarr`);
			if (!fs.existsSync(store)) await writeArray(store, "", { shape: [LENGTH], chunks: [...chunks], dataType: ns, values: times, codecs: codecs as never });
			for (const [from, to] of [
				[0, 170_001],
				[12_345, LENGTH],
				[33_333, 200_017],
			]) {
				const pool = new PoisoningPool();
				const out = path.join(work, `${name.split(" ")[0]}-${from}-${to}.arrow`);
				const start = from === 0 ? undefined : `${times[from]}`;
				// The pool as the CLI gives its own (ExportSettings): a PoisoningPool is the package's BufferPool.
				const settings: ExportSettings & { overwrite: boolean } = { start: start === undefined ? undefined : iso(times[from]), end: to === LENGTH ? undefined : iso(times[to]), format: "arrow", bufferPool: pool, overwrite: true };
				let back = 0;
				pool.onReturn(() => back++);
				await exportToFile(store, out, settings);
				const got = tableFromIPC(fs.readFileSync(out)).getChildAt(0)!.toArray() as BigInt64Array;
				const want = Array.from(times.subarray(from, to)).filter((v) => v !== INT64_MIN);
				expect(got.length, `[${from}, ${to})`).toBe(want.length);
				expect(Array.from(got)).toEqual(want);
				// The batches' buffers come back once written (moved in place, the filter makes no copy to reuse them).
				expect(back, `[${from}, ${to}): no buffer came back`).toBeGreaterThan(0);
			}
		});
	}

	for (const [inner, shard, how] of [
		[10_000, 60_000, "gathered from small inner chunks"],
		[70_000, 140_000, "a run of inner chunks each"],
	] as const) {
		it(`moves the rows of a shard's batches (${how}) in place: a range over shards with missing times in every batch copies none`, async () => {
			const store = path.join(work, `sharded-${shard}-${inner}.zarr`);
			const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [inner], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
			if (!fs.existsSync(store)) await writeArray(store, "", { shape: [LENGTH], chunks: [shard], dataType: ns, values: times, codecs: codecs as never });
			// The filter's copies (CopiedRows.appendRuns), counted.
			const copies = vi.spyOn(CopiedRows.prototype, "appendRuns");
			try {
				for (const [from, to] of [
					[0, 170_001],
					[33_333, 200_017],
					[inner, 2 * inner - 1],
					[inner + 1_234, inner + 2_345],
					[12_345, LENGTH],
				]) {
					for (const format of ["arrow", "parquet"] as const) {
						const pool = new PoisoningPool();
						copies.mockClear();
						const out = path.join(work, `in-place-${inner}-${from}-${to}.${format}`);
						const settings: ExportSettings & { overwrite: boolean } = { start: from === 0 ? undefined : iso(times[from]), end: to === LENGTH ? undefined : iso(times[to]), format, bufferPool: pool, overwrite: true };
						await exportToFile(store, out, settings);
						const bytes = fs.readFileSync(out);
						const got = tableFromIPC(format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes).getChildAt(0)!.toArray() as BigInt64Array;
						expect(Array.from(got), `[${from}, ${to}) ${format}`).toEqual(Array.from(times.subarray(from, to)).filter((v) => v !== INT64_MIN));
						expect(copies, `[${from}, ${to}) ${format}`).not.toHaveBeenCalled();
					}
				}
			} finally {
				copies.mockRestore();
			}
		});
	}

	it("plain zstd chunks of a column read whole to check it sorted: every buffer issued comes back once the export ends, and the pool's buffers are reused", async () => {
		// 120 chunks of 2,000 values: a short column, read whole and kept for the export (keepingTimeChunks). Its
		// decoded chunks were never handed back: 13 of the 16 buffers of a range over 20,000-value chunks, none reused.
		const store = path.join(work, "zstd-2000.zarr");
		if (!fs.existsSync(store)) await writeArray(store, "", { shape: [LENGTH], chunks: [2_000], dataType: ns, values: times, codecs: [LE, ZSTD] as never });
		for (const [from, to] of [
			[33_333, 200_017],
			[0, 4_001],
			[12_345, LENGTH],
		]) {
			for (const format of ["arrow", "parquet"] as const) {
				const pool = new CountingPool();
				const out = path.join(work, `zstd-2000-${from}-${to}.${format}`);
				const settings: ExportSettings & { overwrite: boolean } = { start: from === 0 ? undefined : iso(times[from]), end: to === LENGTH ? undefined : iso(times[to]), format, bufferPool: pool, overwrite: true };
				await exportToFile(store, out, settings);
				const bytes = fs.readFileSync(out);
				const got = tableFromIPC(format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes).getChildAt(0)!.toArray() as BigInt64Array;
				expect(Array.from(got), `[${from}, ${to}) ${format}`).toEqual(Array.from(times.subarray(from, to)).filter((v) => v !== INT64_MIN));
				expect(pool.outstanding, `[${from}, ${to}) ${format}: buffers never back`).toBe(0);
				// Each of the 120 chunks read (and decoded) once into a buffer the one before handed back.
				expect(pool.reused, `[${from}, ${to}) ${format}`).toBeGreaterThanOrEqual(100);
			}
		}
	});

	it("holds as many buffers for a range of 40 shards as for one of 10: the chunk buffers and the filter's copies come back and are reused", async () => {
		const long = 2_400_000;
		const many = BigInt64Array.from({ length: long }, (_, i) => (i % 97 === 5 ? INT64_MIN : 1_700_000_000n * NS + BigInt(i) * 1_000_003n));
		const store = path.join(work, "flat.zarr");
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [10_000], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		if (!fs.existsSync(store)) await writeArray(store, "", { shape: [long], chunks: [60_000], dataType: ns, values: many, codecs: codecs as never });
		/** The buffers the pool made (acquired and not handed back before) for the range [from, to) of rows. */
		const made = async (from: number, to: number) => {
			const pool = new CountingPool();
			const out = path.join(work, `flat-${from}-${to}.arrow`);
			const settings: ExportSettings & { overwrite: boolean } = { start: iso(many[from]), end: iso(many[to]), format: "arrow", bufferPool: pool, overwrite: true };
			await exportToFile(store, out, settings);
			const got = tableFromIPC(fs.readFileSync(out)).getChildAt(0)!;
			expect(got.length).toBe(Array.from(many.subarray(from, to)).filter((v) => v !== INT64_MIN).length);
			return pool.acquired + pool.acquiredShared - pool.reused;
		};
		// Both start and end inside a shard (its inner chunks cut), 10 and 40 shards apart.
		const ten = await made(30_017, 30_017 + 600_000);
		const forty = await made(30_017, 30_017 + 2_340_000);
		// 18 and 19 here; without the filter's releases 20 and 50: no shard buffer back, a new one per shard and per copy.
		expect(forty).toBeLessThanOrEqual(ten + 2);
	});
});
