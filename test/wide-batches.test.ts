/**
 * A wide table's memory is bounded in bytes, not by its chunking: each batch holds at most BATCH_BYTES of values of
 * all its columns (a band of chunks of twenty columns used to be one batch of 27 MB), and the chunks its columns read
 * ahead share one budget of bytes (ReadAheadBudget), where each column used to read `concurrency` chunks ahead.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type RecordBatch, tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { openTable } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { ReadAheadBudget } from "../src/stream/read-ahead-budget.js";
import { BATCH_BYTES, TableReader } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

const work = tempDir("dt64-wide-batches-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const ms = { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } };

/** Bytes of a batch's values and validity bitmaps, all columns together. */
const batchBytes = (batch: RecordBatch) => batch.data.children.reduce((sum, column) => sum + (column.values?.byteLength ?? 0) + (column.nullBitmap?.byteLength ?? 0), 0);

describe("a wide table's batches", () => {
	it("hold at most BATCH_BYTES of values each, and the values written", async () => {
		// 18 float32 variables, an int32 and a datetime64 over 4 x 256 x 256, each in one chunk, with 3 position
		// columns: 104 bytes a row, so a band of a quarter million rows (the rows of the chunk) held 27 MB.
		const shape = [4, 256, 256];
		const length = shape[0] * shape[1] * shape[2];
		const store = path.join(work, "wide.zarr");
		const floats = Array.from({ length: 18 }, (_, k) => Float32Array.from({ length }, (_, i) => (i % 1_000) * 0.5 + k));
		for (const [k, values] of floats.entries()) await writeArray(store, `v${String(k).padStart(2, "0")}`, { shape, chunks: shape, values, dataType: "float32", fillValue: 0, codecs: [LE, GZIP] });
		const counts = Int32Array.from({ length }, (_, i) => i * 3 - 5);
		await writeArray(store, "n", { shape, chunks: shape, values: counts, dataType: "int32", fillValue: 0, codecs: [LE] });
		const times = BigInt64Array.from({ length }, (_, i) => 1_600_000_000_000n + BigInt(i) * 1_000n);
		await writeArray(store, "t", { shape, chunks: shape, values: times, dataType: ms, codecs: [LE, GZIP] });
		const columns = ["n", "t", ...floats.map((_, k) => `v${String(k).padStart(2, "0")}`)];

		const pool = new PoisoningPool();
		const table = await openTable(store, { columns, bufferPool: pool });
		const { reader, batcher, writer } = createTableExportStages(table, { index: true, concurrency: 2 });
		const sizes: number[] = [];
		const counted = new Transform({
			objectMode: true,
			transform(batch: RecordBatch, _encoding, done) {
				sizes.push(batchBytes(batch));
				done(null, batch);
			},
		});
		const out = path.join(work, "wide.arrow");
		await pipeline(reader, batcher, counted, writer, new AtomicFileWriter(out, { bufferPool: pool }));

		expect(sizes.length).toBeGreaterThan(1);
		expect(Math.max(...sizes)).toBeLessThanOrEqual(BATCH_BYTES);
		const result = tableFromIPC(fs.readFileSync(out));
		expect(result.numRows).toBe(length);
		// Raw values, batch by batch; rows in C order, so row i is flat index i of every array.
		const raw = <T>(name: string) => result.getChild(name)!.data.flatMap((data) => Array.from(data.values as ArrayLike<T>));
		const expected: [string, ArrayLike<unknown>][] = [
			["dim_0", Array.from({ length }, (_, i) => BigInt(Math.floor(i / 65_536)))],
			["dim_2", Array.from({ length }, (_, i) => BigInt(i % 256))],
			["n", counts],
			["t", times],
			...floats.map((values, k): [string, ArrayLike<unknown>] => [`v${String(k).padStart(2, "0")}`, values]),
		];
		for (const [name, values] of expected) {
			const written = raw<unknown>(name);
			expect(written).toHaveLength(length);
			let wrong = 0;
			for (let i = 0; i < length; i++) if (written[i] !== values[i]) wrong++;
			expect(wrong, name).toBe(0);
		}
	});
});

/** A 2-D source of `rows` chunks of one row of `width` int64 values, counting its reads. */
function rowSource(rows: number, width: number, reads: number[]): ChunkSource {
	return {
		chunkShape: [1, width],
		gridShape: [rows, 1],
		describe: (coords) => `c/${coords.join("/")}`,
		async read(coords) {
			reads.push(coords[0]);
			return new BigInt64Array(width).fill(BigInt(coords[0]));
		},
	};
}

const settle = async () => {
	for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("a wide table's reads ahead", () => {
	it("hold at most the budget's bytes, all columns together, behind an output that stopped", async () => {
		// 30 columns in chunks of 512 KiB; a budget of 2 MiB is 4 chunks ahead, where each column read 2.
		const width = 65_536;
		const reads = Array.from({ length: 30 }, () => [] as number[]);
		const reader = new TableReader(
			reads.map((counted) => ({ source: rowSource(20, width, counted), shape: [20, width], axes: [0, 1] })),
			[20, width],
			{ concurrency: 2, readAheadBytes: 2 * 2 ** 20 },
		);
		const taken: unknown[] = [];
		// An output that takes the first band and never finishes writing it.
		const stalled = new Writable({ objectMode: true, highWaterMark: 1, write: (band, _encoding, _done) => taken.push(band) });
		reader.pipe(stalled);
		await settle();
		await new Promise((resolve) => setTimeout(resolve, 50));
		await settle();
		expect(taken).toHaveLength(1);
		// The first band's row of every column, and 4 chunks read ahead (each column read 2 ahead: 90 chunks).
		const total = reads.reduce((sum, counted) => sum + counted.length, 0);
		expect(total).toBeLessThanOrEqual(30 + 4);
		expect(reads.every((counted) => counted[0] === 0)).toBe(true);
		reader.destroy();
	});

	it("go to the rows needed soonest: a column waiting for an earlier row goes first", () => {
		const budget = new ReadAheadBudget(10);
		const resumed: string[] = [];
		// Column 3 reads a chunk of row 12 ahead: 6 of the 10 bytes.
		expect(budget.fits(3, 12, 6, () => resumed.push("3"))).toBe(true);
		budget.take(3, 6);
		// Column 7 asks for row 0: it does not fit, so it waits.
		expect(budget.fits(7, 0, 6, () => resumed.push("7"))).toBe(false);
		// Column 1 asks for row 24 and would fit, but column 7 waits for an earlier row: refused too.
		expect(budget.fits(1, 24, 4, () => resumed.push("1"))).toBe(false);
		// Column 3's chunk is taken: its bytes come back, and the waiting columns are told, the earliest row first.
		budget.give(6);
		expect(resumed).toEqual(["7"]);
		// Column 7, told, reads its chunk ahead; column 1 is next.
		expect(budget.fits(7, 0, 6, () => resumed.push("7"))).toBe(true);
		budget.take(7, 6);
		expect(budget.fits(1, 24, 4, () => resumed.push("1"))).toBe(true);
		// A chunk larger than the whole budget is read ahead alone, when nothing else is.
		budget.take(1, 4);
		budget.give(4);
		budget.give(6);
		expect(budget.available).toBe(10);
		expect(budget.fits(2, 36, 25, () => resumed.push("2"))).toBe(true);
	});
});
