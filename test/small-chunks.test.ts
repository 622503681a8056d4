/**
 * Stores of many small chunks (ten to a hundred values each: an xarray append of one time step per chunk, a time
 * coordinate chunked with its data) export in batches of a sensible size, the rows those of a store of large chunks
 * holding the same values: for a single array, a table with companion columns chunked differently, a time range,
 * Parquet (its row groups as before) and a dataset. Large chunks still make one batch each. Small zstd chunks decode
 * on the calling thread (counted), and a folder store reads small chunk files at once (before the event loop turns).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { type RecordBatch, type Table, tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages, exportToFile } from "../src/export.js";
import { exportDataset, exportSelection } from "../src/export-selection.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { openTimeArray } from "../src/open-array.js";
import { tableOfTimeArray } from "../src/open-table.js";
import { DirectoryStore } from "../src/store/directory-store.js";
import { BATCH_ROWS, joinSmallBands } from "../src/stream/band-joiner.js";
import type { TableBand } from "../src/stream/table-reader.js";
import { chunksDecoded, decodeThreadsRunning } from "../src/zarr/codecs/off-thread.js";
import { decodesHere, SMALL_CHUNK_BYTES } from "../src/zarr/small-array.js";
import { useDuckDB } from "./support/duckdb.js";
import { readArrow, tempDir } from "./support/cli.js";

// The default this file is about (small chunks decode here): no thread count asked for.
delete process.env.DT64_DECODE_THREADS;

const query = useDuckDB();
const work = tempDir("dt64-small-chunks-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };

/** A minute apart from 2024-01-01 (datetime64[s]); apache-arrow gives each as epoch milliseconds. */
const T0 = BigInt(Date.UTC(2024, 0, 1) / 1000);
const ROWS = 100_000;
const minutes = (length: number) => BigInt64Array.from({ length }, (_, i) => T0 + 60n * BigInt(i));
const millisOf = (count: bigint) => Number(count) * 1000;

/** The time array of ROWS minutes in chunks of `chunk` values, at `root` (a store of its own, or an array of a group). */
async function timeStore(name: string, chunk: number, codecs: object[] = [LE]): Promise<string> {
	const root = path.join(work, name);
	await writeArray(root, "", { shape: [ROWS], chunks: [chunk], values: minutes(ROWS), codecs, dimensionNames: ["time"] });
	return root;
}

/** A group: `time` in chunks of 40, `temperature` (float64, over time) in chunks of 60, `count` (int32) of 25. */
async function tableStore(name: string): Promise<string> {
	const root = path.join(work, name);
	await writeGroup(root, "");
	await writeArray(root, "time", { shape: [ROWS], chunks: [40], values: minutes(ROWS), dimensionNames: ["time"] });
	const temperature = Float64Array.from({ length: ROWS }, (_, i) => i / 8);
	await writeArray(root, "temperature", { shape: [ROWS], chunks: [60], values: temperature, dataType: "float64", fillValue: "NaN", dimensionNames: ["time"] });
	const count = Int32Array.from({ length: ROWS }, (_, i) => i * 3);
	await writeArray(root, "count", { shape: [ROWS], chunks: [25], values: count, dataType: "int32", fillValue: 0, dimensionNames: ["time"] });
	return root;
}

const batchLengths = (table: Table) => table.batches.map((batch) => batch.numRows);

/** The values of column `name` of an Arrow table, in row order. */
const column = (table: Table, name: string) => [...(table.getChild(name) ?? [])] as unknown[];

describe("batches of a sensible size whatever the chunking", () => {
	it("a 1-D array of 2,500 chunks of 40 values: two batches (65,520 and 34,480 rows), the rows of a store of large chunks", async () => {
		const small = await timeStore("small.zarr", 40);
		const large = await timeStore("large.zarr", 70_000);
		const fromSmall = path.join(work, "small.arrow");
		const fromLarge = path.join(work, "large.arrow");
		await exportToFile(small, fromSmall);
		await exportToFile(large, fromLarge);
		const table = readArrow(fromSmall);
		expect(batchLengths(table)).toEqual([Math.floor(BATCH_ROWS / 40) * 40, ROWS - Math.floor(BATCH_ROWS / 40) * 40]);
		// Large chunks are one batch each, as before: the rows of the two files are the same.
		expect(batchLengths(readArrow(fromLarge))).toEqual([70_000, 30_000]);
		expect(column(table, "small")).toEqual(column(readArrow(fromLarge), "large"));
		expect(column(table, "small").at(-1)).toBe(millisOf(T0 + 60n * BigInt(ROWS - 1)));
		// A header and padded buffers per batch, no longer per chunk: the file is about the size of its values.
		expect(fs.statSync(fromSmall).size).toBeLessThan(ROWS * 8 + 4096);
	});

	it("a table with companion columns chunked otherwise (40, 60, 25 values): few batches, every row aligned", async () => {
		const store = await tableStore("table.zarr");
		const out = path.join(work, "table.arrow");
		await exportToFile(store, out, { columns: ["time", "temperature", "count"], index: true });
		const table = readArrow(out);
		expect(table.numRows).toBe(ROWS);
		// Bands are cut where any column's chunk ends (every 5 rows here, at most): each batch gathers many.
		expect(table.batches.length).toBeLessThanOrEqual(2);
		for (const batch of table.batches) expect(batch.numRows).toBeLessThanOrEqual(BATCH_ROWS);
		expect(column(table, "time")).toEqual(Array.from(minutes(ROWS), millisOf));
		expect(column(table, "temperature")).toEqual(Array.from({ length: ROWS }, (_, i) => i / 8));
		expect(column(table, "count")).toEqual(Array.from({ length: ROWS }, (_, i) => i * 3));
	});

	it("a time range (--start/--end) in the middle of chunks: the rows of the range, in one batch", async () => {
		const store = await timeStore("ranged.zarr", 40);
		const chunks: Buffer[] = [];
		const sink = new (await import("node:stream")).Writable({
			write(chunk, _encoding, done) {
				chunks.push(chunk);
				done();
			},
		});
		// Minutes 1,005 to 31,004: the first and last chunks are cut.
		const start = new Date(Date.UTC(2024, 0, 1) + 1005 * 60_000).toISOString();
		const end = new Date(Date.UTC(2024, 0, 1) + 31_005 * 60_000).toISOString();
		const summary = await exportSelection(store, sink, { start, end, format: "arrow" });
		expect(summary.rows).toBe(30_000);
		const table = tableFromIPC(Buffer.concat(chunks));
		expect(batchLengths(table)).toEqual([30_000]);
		expect(column(table, "ranged")).toEqual(Array.from({ length: 30_000 }, (_, i) => millisOf(T0 + 60n * BigInt(1005 + i))));
	});

	it("Parquet: row groups of rowGroupRows as before, the values of every row", async () => {
		const store = await timeStore("parquet.zarr", 40);
		const out = path.join(work, "small.parquet");
		await exportToFile(store, out, { format: "parquet", rowGroupRows: 30_000 });
		expect(await query(`SELECT row_group_num_rows FROM parquet_metadata('${out}') ORDER BY row_group_id`)).toEqual([[30_000n], [30_000n], [30_000n], [10_000n]]);
		const rows = await query(`SELECT epoch_ms(parquet) FROM '${out}'`);
		expect(rows.map(([value]) => Number(value))).toEqual(Array.from(minutes(ROWS), millisOf));
		// What the Parquet writer is given: two batches, not 2,500.
		const { reader, batcher } = createTableExportStages(tableOfTimeArray(await openTimeArray(store)), { format: "parquet" });
		const given: number[] = [];
		for await (const batch of reader.pipe(batcher)) given.push((batch as RecordBatch).numRows);
		expect(given.length).toBe(2);
	});

	it("a dataset partitioned by day: each day's file in one or two batches, not one per chunk", async () => {
		const store = await timeStore("dataset.zarr", 40);
		const folder = path.join(work, "dataset");
		await exportDataset(store, folder, { partitionBy: "day", format: "arrow" });
		const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".arrow"));
		// 100,000 minutes: 69 full days and one of 640 minutes.
		expect(files.length).toBe(70);
		const days = files.map((file) => {
			const table = readArrow(path.join(folder, file));
			expect(table.batches.length).toBeLessThanOrEqual(2);
			return column(table, "dataset") as number[];
		});
		// Each day's rows in order, the days in order of their first row (folder names are not zero-padded).
		const times = days.sort((a, b) => a[0] - b[0]).flat();
		expect(times.length).toBe(ROWS);
		expect(times.every((time, i) => time === millisOf(T0 + 60n * BigInt(i)))).toBe(true);
	});
});

describe("joinSmallBands", () => {
	/** A 1-D band of rows [first, first + length), its values from `pool` (a chunk read into it). */
	function band(first: number, length: number, pool?: BufferPool): TableBand {
		const bytes = pool?.acquire(length * 8);
		const values = bytes === undefined ? new BigInt64Array(length) : new BigInt64Array(bytes.buffer, 0, length);
		for (let i = 0; i < length; i++) values[i] = BigInt(first + i);
		return { columns: [values], length, region: { kind: "box", origin: [first], extent: [length] } };
	}

	async function joined(bands: TableBand[], pool?: BufferPool): Promise<TableBand[]> {
		const out: TableBand[] = [];
		for await (const one of joinSmallBands((async function* () {
			yield* bands;
		})(), [true], pool)) {
			out.push(one);
		}
		return out;
	}

	it("passes large bands, and a small band no other joins, unchanged (the same objects)", async () => {
		const bands = [band(0, BATCH_ROWS), band(BATCH_ROWS, 100), band(BATCH_ROWS + 100, BATCH_ROWS + 5)];
		const out = await joined(bands);
		expect(out.length).toBe(3);
		out.forEach((one, k) => expect(one).toBe(bands[k]));
	});

	it("memory stays flat: every small chunk's buffer comes back to the pool once copied, and is the next chunk's", async () => {
		const pool = new BufferPool();
		const out: TableBand[] = [];
		const chunks = 10_000;
		async function* reads() {
			// As a store reads them: each chunk into a buffer of the pool, taken after the last was handed back.
			for (let k = 0; k < chunks; k++) yield band(k * 10, 10, pool);
		}
		for await (const one of joinSmallBands(reads(), [true], pool)) out.push(one);
		expect(out.map((one) => one.length)).toEqual([Math.floor(BATCH_ROWS / 10) * 10, chunks * 10 - Math.floor(BATCH_ROWS / 10) * 10]);
		expect([...(out[1].columns[0] as BigInt64Array)].slice(-2)).toEqual([99_998n, 99_999n]);
		// Two buffers of chunks at most were ever made (the one held as the first of a batch, the one copied); every
		// other read reused a buffer handed back. Nothing else is kept.
		expect(pool.reused).toBeGreaterThanOrEqual(chunks - 4);
		expect(pool.freeBytes).toBeLessThanOrEqual(2 * 4096);
		// The batches' buffers come back once written, whole.
		for (const one of out) pool.release(new Uint8Array((one.columns[0] as BigInt64Array).buffer, 0, (one.columns[0] as BigInt64Array).byteLength));
		expect(pool.freeBytes).toBeGreaterThanOrEqual(2 * BATCH_ROWS * 8);
	});

	it("joins only bands that continue each other over the same box of the other axes", async () => {
		const box = (origin: number[], extent: number[]): TableBand => ({
			columns: [new BigInt64Array(extent[0] * extent[1])],
			length: extent[0] * extent[1],
			region: { kind: "box", origin, extent },
		});
		// Chunk order over [rows, 20] in chunks of [5, 10]: boxes alternate along the second axis, so none join.
		const alternating = [box([0, 0], [5, 10]), box([0, 10], [5, 10]), box([5, 0], [5, 10]), box([5, 10], [5, 10])];
		expect((await joined(alternating)).length).toBe(4);
		// Chunks spanning the second axis: one box of 20 rows.
		const spanning = [box([0, 0], [5, 20]), box([5, 0], [5, 20]), box([10, 0], [5, 20]), box([15, 0], [5, 20])];
		const out = await joined(spanning);
		expect(out.map((one) => one.region)).toEqual([{ kind: "box", origin: [0, 0], extent: [20, 20] }]);
		expect(out[0].length).toBe(400);
	});
});

describe("small chunks decode on the calling thread", () => {
	it("at most SMALL_CHUNK_BYTES decoded, whatever the array's size", () => {
		expect(SMALL_CHUNK_BYTES).toBe(64 * 1024);
		expect(decodesHere([10_000_000], 8, [8192])).toBe(true);
		expect(decodesHere([10_000_000], 8, [8193])).toBe(false);
		expect(decodesHere([10_000_000], 8)).toBe(false);
		expect(decodesHere([10_000_000], "variable", [10])).toBe(false);
	});

	it("a 4.8 MB zstd array in chunks of 8 KB decodes every chunk here and starts no thread; chunks of 80 KB go to the threads", async () => {
		const length = 600_000;
		const values = minutes(length);
		const small = path.join(work, "zstd-small.zarr");
		await writeArray(small, "", { shape: [length], chunks: [1000], values, codecs: [LE, ZSTD] });
		const before = chunksDecoded();
		const out = path.join(work, "zstd-small.arrow");
		await exportToFile(small, out);
		expect(readArrow(out).numRows).toBe(length);
		expect(chunksDecoded()).toEqual({ here: before.here + 600, onThreads: before.onThreads });
		expect(decodeThreadsRunning()).toBe(0);

		const large = path.join(work, "zstd-large.zarr");
		await writeArray(large, "", { shape: [length], chunks: [10_000], values, codecs: [LE, ZSTD] });
		await exportToFile(large, path.join(work, "zstd-large.arrow"));
		expect(chunksDecoded()).toEqual({ here: before.here + 600, onThreads: before.onThreads + 60 });
	});
});

describe("a folder store reads small chunk files at once", () => {
	it("before the event loop turns (no round trip through the thread pool); others, and missing files, as before", async () => {
		const root = path.join(work, "files");
		fs.mkdirSync(root);
		fs.writeFileSync(path.join(root, "small"), Buffer.from("0123456789"));
		fs.writeFileSync(path.join(root, "large"), Buffer.alloc(2 * 2 ** 20, 7));
		const store = new DirectoryStore(root);
		let turned = false;
		setImmediate(() => {
			turned = true;
		});
		const small = await store.get("/small", { small: true });
		expect(turned).toBe(false);
		expect(Buffer.from(small!).toString()).toBe("0123456789");
		expect(await store.get("/missing", { small: true })).toBeUndefined();
		// A file larger than a small read may be is read as any other, whole.
		expect((await store.get("/large", { small: true }))?.byteLength).toBe(2 * 2 ** 20);
		await expect(store.get("/small/below", { small: true })).resolves.toBeUndefined();
	});
});
