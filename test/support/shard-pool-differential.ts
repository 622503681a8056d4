/**
 * Exports of sharded arrays read a shard at a time (ShardBands: a shard's inner chunks decoded into one buffer, each
 * at its offset, read into their places there), through a pool that spoils every buffer, shared ones included, the
 * moment it comes back (PoisoningPool), and without a pool; each output's values are checked against the values
 * written. The cases: 1-D arrays alone (handed on by runs of inner chunks), time ranges from the first inner chunk,
 * to the last, within one, across shards (the range search's probes keep inner chunks the export then reads), parts,
 * and tables of a sharded time coordinate with companion columns (sharded and not, 1-D and 2-D), in C and chunk
 * order. Run once per decode-thread setting (a process's decode threads are set once): see the test files that call
 * describeShardPoolDifferential.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { tableFromIPC, type Table } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../../scripts/lib/zarr-writer.mjs";
import { createTableExportStages, exportToFile } from "../../src/export.js";
import type { ExportOptions, OutputFormat } from "../../src/export-plan.js";
import type { BufferPool } from "../../src/memory/buffer-pool.js";
import { openTimeArray } from "../../src/open-array.js";
import { openTable, tableOfTimeArray } from "../../src/open-table.js";
import { AtomicFileWriter } from "../../src/output/atomic-file.js";
import { readBands, type ValueBand } from "../../src/stream/chunk-bands.js";
import { tempDir } from "./cli.js";
import { PoisoningPool } from "./poisoning-pool.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 0, checksum: false } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const CRC32C = { name: "crc32c" };
const ns = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
type Codec = { name: string; configuration?: Record<string, unknown> };
const sharding = (inner: number[], codecs: Codec[], location: "end" | "start"): Codec => ({
	name: "sharding_indexed",
	configuration: { chunk_shape: inner, codecs, index_codecs: [LE, CRC32C], index_location: location },
});
const BASE = 946_684_800_000_000_000n;

/** Sorted times, one row a microsecond and a few ns, ~0.5% NaT, and the inner chunks `blank` says all NaT (missing). */
function sortedTimes(length: number, inner: number, blank: (k: number) => boolean = () => false): BigInt64Array {
	return BigInt64Array.from({ length }, (_, i) => (blank(Math.floor(i / inner)) || (i * 7919) % 211 === 3 ? NAT : BASE + BigInt(i) * 1_000n + BigInt((i * 37) % 997)));
}

interface ArrayCase {
	readonly name: string;
	readonly length: number;
	readonly shard: number;
	readonly inner: number;
	readonly codecs: Codec[];
	readonly blank?: (k: number) => boolean;
}

const ARRAYS: ArrayCase[] = [
	{ name: "shards of 10 zstd inner chunks, index at the end, a missing inner chunk", length: 400_000, shard: 40_000, inner: 4_000, codecs: [sharding([4_000], [LE, ZSTD], "end")], blank: (k) => k === 13 },
	{ name: "shards of 8 blosc inner chunks, index at the start, a ragged last shard", length: 389_000, shard: 32_000, inner: 4_000, codecs: [sharding([4_000], [LE, BLOSC], "start")] },
	// Inner chunks of more rows than a batch gathers (BATCH_ROWS): each run of them a batch of its own, its rows in range
	// moved in place by the time filter (the bands the shard's reader marks its own).
	{ name: "shards of 2 zstd inner chunks of 70,000 values, a ragged last shard", length: 690_000, shard: 140_000, inner: 70_000, codecs: [sharding([70_000], [LE, ZSTD], "end")] },
];

/** Row ranges [start, end) of an array: their first and last times are the range's bounds. */
function rangesOf(c: ArrayCase): { name: string; rows: [number, number] }[] {
	const { length, inner, shard } = c;
	return [
		{ name: "from the first inner chunk", rows: [0, inner / 2] },
		{ name: "from the first row to the second shard", rows: [0, shard + inner + 7] },
		{ name: "to the last inner chunk", rows: [length - inner / 2, length] },
		{ name: "within one inner chunk", rows: [3 * inner + 100, 3 * inner + 900] },
		{ name: "across shards, from inside a first inner chunk to inside a last one", rows: [shard - inner + 37, 3 * shard + 2 * inner + 5] },
		{ name: "the first inner chunk of a shard to the last of another", rows: [shard, 3 * shard] },
	];
}

const isoOf = (count: bigint) => {
	const seconds = count / 1_000_000_000n;
	return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${String(count % 1_000_000_000n).padStart(9, "0")}`;
};

/** The first non-NaT time at or after `row` (or before it, at the end). */
function timeAt(values: BigInt64Array, row: number): bigint {
	for (let r = row; r < values.length; r++) if (values[r] !== NAT) return values[r];
	for (let r = values.length - 1; r >= 0; r--) if (values[r] !== NAT) return values[r] + 1n;
	throw new Error("no time");
}

function rawColumn(table: Table, name: string): (bigint | null)[] {
	const out: (bigint | null)[] = [];
	for (const data of table.getChild(name)!.data) {
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}

function read(file: string, format: OutputFormat): Table {
	const bytes = fs.readFileSync(file);
	return tableFromIPC(format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes);
}

function expectValues(actual: (bigint | null)[], expected: (bigint | null)[], what: string): void {
	expect(actual.length, `${what}: rows`).toBe(expected.length);
	const at = actual.findIndex((value, i) => value !== expected[i]);
	if (at >= 0) expect.fail(`${what}: row ${at} is ${actual[at]}, expected ${expected[at]}`);
}

export function describeShardPoolDifferential(threads: string): void {
	const work = tempDir(`dt64-shard-pool-${threads}-`);
	let counter = 0;
	const out = (format: OutputFormat) => path.join(work, `${counter++}.${format === "parquet" ? "parquet" : "arrow"}`);

	async function exportArray(store: string, options: ExportOptions, pool: BufferPool | undefined, format: OutputFormat): Promise<Table> {
		const file = out(format);
		if (options.start !== undefined || options.end !== undefined || options.part !== undefined) {
			// Selected rows: the one-call export, the pool given (today it writes selected rows without one).
			await exportToFile(store, file, { ...options, format, concurrency: 4, bufferPool: pool });
			return read(file, format);
		}
		const array = await openTimeArray(store, { bufferPool: pool });
		const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { ...options, format, concurrency: 4 });
		await pipeline(reader, batcher, writer, new AtomicFileWriter(file, { bufferPool: pool }));
		return read(file, format);
	}

	describe.concurrent(`sharded arrays read a shard at a time, through a poisoning pool and without one (DT64_DECODE_THREADS=${threads})`, () => {
		for (const c of ARRAYS) {
			it(`1-D, ${c.name}: whole, ranges, parts`, async () => {
				const values = sortedTimes(c.length, c.inner, c.blank);
				const store = path.join(work, `${counter++}.zarr`);
				await writeArray(store, "", { shape: [c.length], chunks: [c.shard], values, dataType: ns, codecs: c.codecs });
				const name = path.basename(store, ".zarr");
				const all = Array.from(values, (v) => (v === NAT ? null : v));
				for (const format of ["arrow", "parquet"] as const) {
					for (const pool of [new PoisoningPool(), undefined]) {
						const what = `${format}, ${pool ? "a poisoning pool" : "no pool"}`;
						expectValues(rawColumn(await exportArray(store, {}, pool, format), name), all, `whole, ${what}`);
						if (pool) expect(pool.reused, "shard buffers reused").toBeGreaterThan(0);
					}
				}
				for (const range of rangesOf(c)) {
					const start = timeAt(values, range.rows[0]);
					const end = timeAt(values, range.rows[1]);
					const from = range.rows[0] > 0 ? start : undefined;
					const expected = all.filter((v) => v !== null && (from === undefined || v >= from) && v < end);
					for (const format of ["arrow", "parquet"] as const) {
						for (const pool of [new PoisoningPool(), undefined]) {
							// A new store opened each time: the search's probes keep inner chunks the export's shard reads then meet.
							const table = await exportArray(store, { ...(from !== undefined && { start: isoOf(from) }), end: isoOf(end) }, pool, format);
							expectValues(rawColumn(table, name), expected, `${range.name}, ${format}, ${pool ? "a poisoning pool" : "no pool"}`);
						}
					}
				}
				// Parts: each part's rows, in order, are the array's.
				let parts: (bigint | null)[] = [];
				for (const part of ["0/3", "1/3", "2/3"]) parts = parts.concat(rawColumn(await exportArray(store, { part }, new PoisoningPool(), "arrow"), name));
				expectValues(parts, all, "parts 0/3, 1/3, 2/3");
			});
		}

		it("1-D, rows cut at both ends, read a shard at a time into a poisoning pool, each band checked as it is written", async () => {
			// What a range export reads once it writes through a pool: the bytes a range leaves unused in a shard's
			// buffer are said dead when the shard is opened, its inner chunks still decoding into it. Each band is checked
			// when it is written (two bands after it came, as a busy output would), then handed back, as the output does.
			const c = ARRAYS[0];
			const values = sortedTimes(c.length, c.inner, c.blank);
			const store = path.join(work, `${counter++}.zarr`);
			await writeArray(store, "", { shape: [c.length], chunks: [c.shard], values, dataType: ns, codecs: c.codecs });
			for (const range of rangesOf(c)) {
				const rows = { start: range.rows[0], end: range.rows[1] };
				const pool = new PoisoningPool();
				pool.expectWrittenBack();
				const array = await openTimeArray(store, { bufferPool: pool });
				const written: (bigint | null)[] = [];
				const pending: ValueBand[] = [];
				const write = (band: ValueBand) => {
					for (const value of band.values) written.push(value === NAT ? null : value);
					pool.release(new Uint8Array(band.values.buffer, band.values.byteOffset, band.values.byteLength));
				};
				const bands = readBands(array.chunks, [c.length], { requests: 2, chunks: 20 }, new AbortController().signal, undefined, undefined, rows, {
					bufferPool: pool,
					countHandedOn: true,
					shards: true,
				});
				for await (const band of bands) {
					pending.push(band);
					// Turns of the event loop between bands: reads and decodes of the shards opened ahead go on.
					await new Promise((resolve) => setImmediate(resolve));
					if (pending.length > 2) write(pending.shift()!);
				}
				while (pending.length > 0) write(pending.shift()!);
				expectValues(written, Array.from(values.subarray(rows.start, rows.end), (v) => (v === NAT ? null : v)), `rows [${rows.start}, ${rows.end}) ${range.name}`);
				expect(pool.reused + pool.freeBytes, `${range.name}: buffers came back`).toBeGreaterThan(0);
			}
		});

		it("a table of 1-D columns: a sharded time coordinate, a sharded companion with missing values and a plain one, ranges, Arrow and Parquet", async () => {
			// No index column: every column of a batch is the band's own (gathered from small inner chunks), so the time
			// filter moves a range's rows in place in all of them, the companions' validity cut to the rows kept.
			const rows = 150_000;
			const time = sortedTimes(rows, 5_000, (k) => k === 11);
			const v = BigInt64Array.from({ length: rows }, (_, i) => (i % 89 === 4 ? NAT : BASE - BigInt(i) * 13n));
			const f = Float64Array.from({ length: rows }, (_, i) => i / 4);
			const store = path.join(work, `${counter++}.zarr`);
			await writeGroup(store, "");
			await writeArray(store, "time", { shape: [rows], chunks: [50_000], values: time, dataType: ns, dimensionNames: ["time"], codecs: [sharding([5_000], [LE, ZSTD], "end")] });
			await writeArray(store, "v", { shape: [rows], chunks: [30_000], values: v, dataType: ns, dimensionNames: ["time"], codecs: [sharding([5_000], [LE, BLOSC], "start")] });
			await writeArray(store, "f", { shape: [rows], chunks: [7_000], values: f, dataType: "float64", dimensionNames: ["time"], codecs: [LE, ZSTD] });
			const nullable = (x: bigint) => (x === NAT ? null : x);
			for (const [first, last] of [
				[0, 4_000],
				[2_500, 61_003],
				[49_999, 100_001],
				[140_000, rows],
			]) {
				const start = first === 0 ? undefined : timeAt(time, first);
				const end = timeAt(time, last);
				const kept: number[] = [];
				for (let i = 0; i < rows; i++) if (time[i] !== NAT && (start === undefined || time[i] >= start) && time[i] < end) kept.push(i);
				for (const format of ["arrow", "parquet"] as const) {
					for (const pool of [new PoisoningPool(), undefined]) {
						const file = out(format);
						await exportToFile(store, file, { ...(start !== undefined && { start: isoOf(start) }), end: isoOf(end), timeColumn: "time", columns: ["time", "v", "f"], format, concurrency: 4, bufferPool: pool });
						const result = read(file, format);
						const what = `[${first}, ${last}), ${format}, ${pool ? "a poisoning pool" : "no pool"}`;
						expectValues(rawColumn(result, "time"), kept.map((i) => nullable(time[i])), `${what}: time`);
						expectValues(rawColumn(result, "v"), kept.map((i) => nullable(v[i])), `${what}: v`);
						const outF = result.getChild("f")!.toArray() as Float64Array;
						expect(Array.from(outF), `${what}: f`).toEqual(kept.map((i) => f[i]));
					}
				}
			}
		});

		for (const order of ["c", "chunk"] as const) {
			it(`a table: a sharded time coordinate, a sharded companion and a 2-D column, --index, ${order} order`, async () => {
				const rows = 96_000;
				const ys = 3;
				const time = sortedTimes(rows, 3_000, (k) => k === 7);
				const v = BigInt64Array.from({ length: rows }, (_, i) => (i % 89 === 4 ? NAT : BASE - BigInt(i) * 13n));
				const w = BigInt64Array.from({ length: rows * ys }, (_, i) => (i % 97 === 5 ? NAT : BASE + BigInt(i) * 7n));
				const store = path.join(work, `${counter++}.zarr`);
				await writeGroup(store, "");
				await writeArray(store, "time", { shape: [rows], chunks: [30_000], values: time, dataType: ns, dimensionNames: ["time"], codecs: [sharding([3_000], [LE, ZSTD], "end")] });
				await writeArray(store, "v", { shape: [rows], chunks: [24_000], values: v, dataType: ns, dimensionNames: ["time"], codecs: [sharding([4_000], [LE, BLOSC], "start")] });
				await writeArray(store, "w", { shape: [rows, ys], chunks: [3_000, ys], values: w, dataType: ns, dimensionNames: ["time", "y"], codecs: [LE, ZSTD] });
				const nullable = (x: bigint) => (x === NAT ? null : x);
				for (const selection of [{}, { start: isoOf(timeAt(time, 2_500)), end: isoOf(timeAt(time, 61_003)) }, { end: isoOf(timeAt(time, 1_000)) }]) {
					for (const pool of [new PoisoningPool(), undefined]) {
						const file = out("arrow");
						if ("end" in selection) await exportToFile(store, file, { ...selection, timeColumn: "time", columns: ["time", "v", "w"], index: true, order, concurrency: 4, bufferPool: pool });
						else {
							const table = await openTable(store, { columns: ["time", "v", "w"], bufferPool: pool });
							const { reader, batcher, writer } = createTableExportStages(table, { index: true, order, concurrency: 4 });
							await pipeline(reader, batcher, writer, new AtomicFileWriter(file, { bufferPool: pool }));
						}
						const result = read(file, "arrow");
						const t = rawColumn(result, "time");
						const y = rawColumn(result, "y");
						const [outV, outW] = [rawColumn(result, "v"), rawColumn(result, "w")];
						const what = `${JSON.stringify(selection)}, ${pool ? "a poisoning pool" : "no pool"}`;
						const start = "start" in selection ? timeAt(time, 2_500) : undefined;
						const end = "end" in selection ? (start === undefined ? timeAt(time, 1_000) : timeAt(time, 61_003)) : undefined;
						const inRange = (i: number) => (start === undefined && end === undefined) || (time[i] !== NAT && (start === undefined || time[i] >= start) && (end === undefined || time[i] < end));
						// Rows in C order of (time, y), those of the range: row r is time row kept[r / ys], y r % ys.
						const kept: number[] = [];
						for (let i = 0; i < rows; i++) if (inRange(i)) kept.push(i);
						expect(t.length, `${what}: rows`).toBe(kept.length * ys);
						let wrong = 0;
						let firstWrong = "";
						for (let r = 0; r < t.length; r++) {
							const i = kept[Math.floor(r / ys)];
							const j = r % ys;
							const ok = Number(y[r]) === j && t[r] === nullable(time[i]) && outV[r] === nullable(v[i]) && outW[r] === nullable(w[i * ys + j]);
							if (!ok && wrong++ === 0) firstWrong = `row ${r} (time row ${i}, y ${j}): time ${t[r]}, y ${y[r]}, v ${outV[r]}, w ${outW[r]}`;
						}
						expect(wrong, `${what}: ${firstWrong}`).toBe(0);
					}
				}
			});
		}
	});
}
