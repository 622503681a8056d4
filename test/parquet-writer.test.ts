import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
	Bool,
	type Data,
	type DataType,
	Field,
	Float32,
	Float64,
	Int32,
	LargeUtf8,
	makeData,
	RecordBatch,
	Schema,
	SparseUnion,
	Struct,
	type Table,
	tableFromIPC,
	Timestamp,
	TimeUnit,
	Utf8,
	vectorFromArray,
} from "apache-arrow";
import fc from "fast-check";
import pl from "nodejs-polars";
import { readParquet, wasmMemory } from "parquet-wasm/node";
import { createParquetWriter, ParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import type { ParquetWriterOptions } from "../src/stream/parquet/options.js";
import { Dt64ExportError, UsageError } from "../src/errors.js";
import { useDuckDB } from "./support/duckdb.js";

type Unit = "s" | "ms" | "us" | "ns";
const ARROW_UNIT: Record<Unit, TimeUnit> = {
	s: TimeUnit.SECOND,
	ms: TimeUnit.MILLISECOND,
	us: TimeUnit.MICROSECOND,
	ns: TimeUnit.NANOSECOND,
};
/** What Parquet can hold: seconds are written as milliseconds. */
const PARQUET_UNIT: Record<Unit, "ms" | "us" | "ns"> = { s: "ms", ms: "ms", us: "us", ns: "ns" };
const PARQUET_LOGICAL_UNIT = { ms: "MILLIS", us: "MICROS", ns: "NANOS" } as const;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN_VALID = -(2n ** 63n) + 1n; // -2^63 itself is NaT, which upstream turns into null
const PAST_2_53 = 2n ** 53n + 1n;
const MAX_SECONDS = INT64_MAX / 1000n; // largest second count whose millisecond value fits int64

interface Column {
	field: Field;
	data: Data;
}

function dataTypeJson(unit: Unit): string {
	return JSON.stringify({ name: "numpy.datetime64", configuration: { unit, scale_factor: 1 } });
}

/** A nullable Timestamp column; the value under a null slot is deliberately garbage (NaT, as upstream may leave it). */
function timestampColumn(name: string, unit: Unit, timezone: string | null, values: readonly (bigint | null)[]): Column {
	const type = new Timestamp(ARROW_UNIT[unit], timezone);
	const nullBitmap = new Uint8Array(Math.ceil(values.length / 8));
	const data = new BigInt64Array(values.length);
	values.forEach((value, i) => {
		if (value === null) data[i] = -(2n ** 63n);
		else {
			data[i] = value;
			nullBitmap[i >> 3] |= 1 << (i & 7);
		}
	});
	const nullCount = values.filter((value) => value === null).length;
	return {
		field: new Field(name, type, true, new Map([["zarr.data_type", dataTypeJson(unit)]])),
		data: makeData({ type, length: values.length, data, nullBitmap, nullCount }),
	};
}

function otherColumn<T extends DataType>(name: string, type: T, values: readonly unknown[]): Column {
	return { field: new Field(name, type, true), data: vectorFromArray(values, type).data[0] };
}

function batchOf(columns: readonly Column[], metadata?: Map<string, string>): RecordBatch {
	const fields = columns.map((column) => column.field);
	const length = columns[0].data.length;
	const schema = new Schema(fields, metadata);
	return new RecordBatch(schema, makeData({ type: new Struct(fields), length, nullCount: 0, children: columns.map((c) => c.data) }));
}

/** `count` rows starting at `first`, `step` apart, every 7th row null. */
function sequence(count: number, first = 0n, step = 1n): (bigint | null)[] {
	return Array.from({ length: count }, (_, i) => (i % 7 === 3 ? null : first + BigInt(i) * step));
}

let directory: string;
let fileCount = 0;
const duckdb = useDuckDB();

beforeAll(async () => {
	directory = await mkdtemp(join(tmpdir(), "dt64-parquet-"));
});

afterAll(async () => {
	await rm(directory, { recursive: true, force: true });
});

async function writeFile(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, options?: ParquetWriterOptions): Promise<string> {
	const path = join(directory, `out-${fileCount++}.parquet`);
	await pipeline(Readable.from(batches), createParquetWriter(options), createWriteStream(path));
	return path;
}

async function query(sql: string): Promise<unknown[][]> {
	return duckdb(sql);
}

async function readArrow(path: string): Promise<Table> {
	return tableFromIPC(readParquet(await readFile(path)).intoIPCStream());
}

/** Raw int64 values of a column as read by arrow (null where invalid). */
function arrowValues(table: Table, name: string): (bigint | null)[] {
	const vector = table.getChild(name);
	if (vector === null) throw new Error(`no column ${name}`);
	const out: (bigint | null)[] = [];
	for (const data of vector.data) {
		const values = data.values as BigInt64Array;
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? values[i] : null);
	}
	return out;
}

/** Polars values as exact int64 strings (its toArray goes through JS numbers). */
function polarsValues(path: string, name: string): (string | null)[] {
	return pl.readParquet(path).getColumn(name).cast(pl.Int64).cast(pl.Utf8).toArray() as (string | null)[];
}

const stringify = (values: readonly (bigint | null)[]) => values.map((v) => (v === null ? null : String(v)));
const toParquetValues = (unit: Unit, values: readonly (bigint | null)[]) => (unit === "s" ? values.map((v) => (v === null ? null : v * 1000n)) : [...values]);

const CASES = (["s", "ms", "us", "ns"] as const).flatMap((unit) => [null, "UTC"].map((timezone) => ({ unit, timezone })));
const columnName = (unit: Unit, timezone: string | null) => `${unit}_${timezone === null ? "naive" : "utc"}`;

describe("Parquet logical types", () => {
	let path: string;
	beforeAll(async () => {
		path = await writeFile([batchOf(CASES.map(({ unit, timezone }) => timestampColumn(columnName(unit, timezone), unit, timezone, [0n, 1n, null, -1n])))]);
	});

	it.each(CASES)("$unit with timezone $timezone is INT64 TIMESTAMP in the right unit and UTC flag", async ({ unit, timezone }) => {
		const [row] = await query(
			`SELECT type, logical_type, converted_type, duckdb_type FROM parquet_schema('${path}') WHERE name = '${columnName(unit, timezone)}'`,
		);
		const [physical, logical, converted, duckdbType] = row as (string | null)[];
		const parquetUnit = PARQUET_LOGICAL_UNIT[PARQUET_UNIT[unit]];
		expect(physical).toBe("INT64");
		expect(logical).toMatch(new RegExp(`^TimestampType\\(isAdjustedToUTC=${timezone === null ? 0 : 1}, unit=TimeUnit\\(.*${parquetUnit}=\\w+\\(\\)`));
		// There is no converted type for nanoseconds; arrow-rs sets TIMESTAMP_MILLIS/MICROS whatever the UTC flag.
		expect(converted).toBe(parquetUnit === "NANOS" ? null : `TIMESTAMP_${parquetUnit}`);
		const expectedDuckdb = timezone !== null ? "TIMESTAMP WITH TIME ZONE" : parquetUnit === "NANOS" ? "TIMESTAMP_NS" : "TIMESTAMP";
		expect(duckdbType).toBe(expectedDuckdb);
	});

	it("polars reads every column as Datetime with the Parquet unit and the timezone", () => {
		const schema = pl.readParquet(path).schema;
		for (const { unit, timezone } of CASES) {
			expect(String(schema[columnName(unit, timezone)])).toBe(`DataType(Datetime(${PARQUET_UNIT[unit]},${timezone ?? ""}))`);
		}
	});

	it("timestamps are DELTA_BINARY_PACKED without a dictionary", async () => {
		const rows = await query(`SELECT DISTINCT encodings FROM parquet_metadata('${path}')`);
		expect(rows.map(([encodings]) => String(encodings).split(", ").sort())).toEqual([["DELTA_BINARY_PACKED", "RLE"]]);
	});

	it("floats are PLAIN without a dictionary (however few their values); strings and integers keep arrow-rs's dictionary", async () => {
		const repeated = Array.from({ length: 1000 }, (_, i) => i % 3);
		const file = await writeFile([
			batchOf([
				otherColumn("f64", new Float64(), repeated.map((v) => v + 0.5)),
				otherColumn("f32", new Float32(), repeated.map((v) => v + 0.25)),
				otherColumn("i32", new Int32(), repeated),
				otherColumn("name", new Utf8(), repeated.map((v) => `n${v}`)),
			]),
		]);
		const rows = await query(`SELECT path_in_schema, encodings FROM parquet_metadata('${file}') ORDER BY column_id`);
		expect(rows.map(([name, encodings]) => [name, String(encodings).split(", ").sort()])).toEqual([
			["f64", ["PLAIN", "RLE"]],
			["f32", ["PLAIN", "RLE"]],
			["i32", ["PLAIN", "RLE", "RLE_DICTIONARY"]],
			["name", ["PLAIN", "RLE", "RLE_DICTIONARY"]],
		]);
		expect(await query(`SELECT sum(f64), sum(f32), sum(i32) FROM read_parquet('${file}')`)).toEqual([[1499, 1249, 999n]]);
	});
});

describe("values", () => {
	it.each(CASES)("$unit with timezone $timezone: exact int64 values and nulls, read by polars and arrow", async ({ unit, timezone }) => {
		const extremes = unit === "s" ? [MAX_SECONDS, -MAX_SECONDS] : [INT64_MAX, INT64_MIN_VALID];
		const values = [...extremes, PAST_2_53, -PAST_2_53, null, 0n, -1n, 1n, null];
		const name = columnName(unit, timezone);
		const path = await writeFile([batchOf([timestampColumn(name, unit, timezone, values)])]);
		const expected = toParquetValues(unit, values);
		expect(polarsValues(path, name)).toEqual(stringify(expected));
		const table = await readArrow(path);
		expect(arrowValues(table, name)).toEqual(expected);
		const type = table.schema.fields[0].type as Timestamp;
		expect(type).toBeInstanceOf(Timestamp);
		expect(type.unit).toBe(ARROW_UNIT[PARQUET_UNIT[unit]]);
		expect(type.timezone ?? null).toBe(timezone);
	});

	it("DuckDB reads the same epoch values (within its range; ns with a timezone becomes its microsecond TIMESTAMPTZ)", async () => {
		const inRange = [PAST_2_53, -PAST_2_53, 0n, 1n, -1n, null, 1_700_000_000_123n];
		const secondValues = [2n ** 33n + 1n, -(2n ** 33n) - 1n, 0n, 1n, -1n, null, 1_700_000_000n];
		const columns = [
			timestampColumn("s", "s", null, secondValues),
			timestampColumn("s_utc", "s", "UTC", secondValues),
			timestampColumn("ms", "ms", null, inRange),
			timestampColumn("ms_utc", "ms", "UTC", inRange),
			timestampColumn("us", "us", null, inRange),
			timestampColumn("us_utc", "us", "UTC", inRange),
			timestampColumn("ns", "ns", null, [...inRange.slice(0, 6), INT64_MAX]),
			timestampColumn("ns_min", "ns", null, [...inRange.slice(0, 6), INT64_MIN_VALID]),
		];
		const path = await writeFile([batchOf(columns)]);
		const rows = await query(
			`SELECT epoch_ms(s), epoch_ms(s_utc), epoch_ms(ms), epoch_ms(ms_utc), epoch_us(us), epoch_us(us_utc), epoch_ns(ns), epoch_ns(ns_min) FROM '${path}'`,
		);
		const expectedColumns = [
			toParquetValues("s", secondValues),
			toParquetValues("s", secondValues),
			inRange,
			inRange,
			inRange,
			inRange,
			[...inRange.slice(0, 6), INT64_MAX],
			[...inRange.slice(0, 6), INT64_MIN_VALID],
		];
		expect(rows).toEqual(inRange.map((_, row) => expectedColumns.map((column) => column[row])));
	});

	it("converts seconds exactly at the int64 limits and refuses one past them, naming the column and row", async () => {
		const ok = await writeFile([batchOf([timestampColumn("t", "s", null, [MAX_SECONDS, -MAX_SECONDS])])]);
		expect(arrowValues(await readArrow(ok), "t")).toEqual([MAX_SECONDS * 1000n, -MAX_SECONDS * 1000n]);
		for (const bad of [MAX_SECONDS + 1n, -MAX_SECONDS - 1n]) {
			const batches = [batchOf([timestampColumn("when", "s", null, [1n, 2n])]), batchOf([timestampColumn("when", "s", null, [null, 5n, bad])])];
			const failure = writeFile(batches);
			await expect(failure).rejects.toBeInstanceOf(Dt64ExportError);
			await expect(failure).rejects.toThrow(`column "when": ${bad} s at row 4 overflows int64`);
		}
	});

	it("multiplies any int64 second count by 1000 exactly, or names the first one that overflows (property)", async () => {
		const limit = MAX_SECONDS + 3n;
		const near = fc.oneof(fc.bigInt({ min: -limit, max: limit }), fc.bigInt({ min: MAX_SECONDS - 2n, max: limit }), fc.bigInt({ min: -limit, max: -MAX_SECONDS + 2n }));
		const value = fc.oneof(near, fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }), fc.constant(null));
		await fc.assert(
			fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 40 }), async (values) => {
				const batches = [batchOf([timestampColumn("t", "s", "UTC", values)])];
				const overflowRow = values.findIndex((v) => v !== null && (v > MAX_SECONDS || v < -MAX_SECONDS));
				if (overflowRow >= 0) {
					await expect(writeFile(batches)).rejects.toThrow(`column "t": ${values[overflowRow]} s at row ${overflowRow} overflows`);
				} else {
					expect(arrowValues(await readArrow(await writeFile(batches)), "t")).toEqual(toParquetValues("s", values));
				}
			}),
			{ numRuns: 40 },
		);
	});

	it("ignores whatever value sits under a null second (no false overflow)", async () => {
		const column = timestampColumn("t", "s", null, [null, 7n]);
		(column.data.values as BigInt64Array)[0] = INT64_MAX;
		const path = await writeFile([batchOf([column])]);
		expect(arrowValues(await readArrow(path), "t")).toEqual([null, 7000n]);
	});
});

describe("row groups", () => {
	it("regroups small and empty batches into row groups of rowGroupRows, in order", async () => {
		const sizes = [1, 999, 1, 2500, 0, 37];
		let first = 0n;
		const all: (bigint | null)[] = [];
		const batches = sizes.map((size) => {
			const values = sequence(size, first * 1000n, 1000n);
			first += BigInt(size);
			all.push(...values);
			return batchOf([timestampColumn("t", "us", "UTC", values)]);
		});
		const path = await writeFile(batches, { rowGroupRows: 1000 });
		expect(await query(`SELECT row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id`)).toEqual([[1000n], [1000n], [1000n], [538n]]);
		expect((await query(`SELECT epoch_us(t) FROM '${path}'`)).map(([v]) => v)).toEqual(all);
	});

	it("without rowGroupRows, caps a row group at 8 MiB of values: 2^20 rows of one timestamp, fewer of a table", async () => {
		// 30 float32 columns and a timestamp: 128 bytes a row, so 65,536 rows (2^20 would hold 128 MiB of values,
		// which arrow-rs keeps several times over until the row group is flushed: 1.1 GB for the trial's ERA5 table).
		const rows = 600_000;
		const times = sequence(rows, 0n, 1000n);
		const floats = Float32Array.from({ length: rows }, (_, i) => i);
		const floatColumn = (name: string): Column => ({ field: new Field(name, new Float32(), true), data: makeData({ type: new Float32(), length: rows, data: floats }) });
		const wide = batchOf([timestampColumn("t", "us", null, times), ...Array.from({ length: 30 }, (_, k) => floatColumn(`v${k}`))]);
		const widePath = await writeFile([wide]);
		const groups = async (path: string) => (await query(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id`)).map(([, n]) => Number(n));
		expect(await groups(widePath)).toEqual([...Array(9).fill(65_536), 600_000 - 9 * 65_536]);
		// A narrow one (a timestamp and three float32 columns, 20 bytes a row): 418,816 rows, a multiple of 1,024.
		const narrow = batchOf([timestampColumn("t", "us", null, sequence(1_100_000, 0n, 1000n)), ...["a", "b", "c"].map((name) => ({ field: new Field(name, new Float32(), true), data: makeData({ type: new Float32(), length: 1_100_000, data: new Float32Array(1_100_000) }) }))]);
		expect(await groups(await writeFile([narrow]))).toEqual([418_816, 418_816, 1_100_000 - 2 * 418_816]);
		// rowGroupRows given is kept, whatever the width.
		expect(await groups(await writeFile([wide], { rowGroupRows: 500_000 }))).toEqual([500_000, 100_000]);
	});

	it("splits a batch larger than a row group (and larger than one wasm slice)", async () => {
		const values = sequence(200_000, -(2n ** 60n), 12_345_678_901n);
		const path = await writeFile([batchOf([timestampColumn("t", "ns", null, values)])], { rowGroupRows: 30_000 });
		const groups = await query(`SELECT row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id`);
		expect(groups.map(([rows]) => rows)).toEqual([...Array(6).fill(30_000n), 20_000n]);
		expect(arrowValues(await readArrow(path), "t")).toEqual(values);
	});

	it("defaults to 1,048,576 rows per row group", async () => {
		const values = sequence(1_048_577, 1_600_000_000_000n);
		const path = await writeFile([batchOf([timestampColumn("t", "ms", null, values)])]);
		expect(await query(`SELECT row_group_num_rows FROM parquet_metadata('${path}') ORDER BY row_group_id`)).toEqual([[1_048_576n], [1n]]);
		expect(await query(`SELECT count(t), min(epoch_ms(t)), max(epoch_ms(t)) FROM '${path}'`)).toEqual([
			[BigInt(values.filter((v) => v !== null).length), 1_600_000_000_000n, 1_600_000_000_000n + 1_048_576n],
		]);
	});
});

describe("compression", () => {
	const codecs = [
		[undefined, "ZSTD"],
		["zstd", "ZSTD"],
		["snappy", "SNAPPY"],
		["gzip", "GZIP"],
		["none", "UNCOMPRESSED"],
	] as const;
	it.each(codecs)("%s is written as %s and reads back", async (compression, expected) => {
		const values = sequence(5000, 1_700_000_000_000_000n, 1_000_000n);
		const path = await writeFile([batchOf([timestampColumn("t", "us", null, values)])], compression === undefined ? {} : { compression });
		expect(await query(`SELECT DISTINCT compression FROM parquet_metadata('${path}')`)).toEqual([[expected]]);
		expect(polarsValues(path, "t")).toEqual(stringify(values));
	});
});

describe("Arrow schema in the file", () => {
	it("keeps field and schema metadata, and other column types, for an Arrow reader", async () => {
		const columns = [
			timestampColumn("time", "ns", "UTC", [1n, null]),
			timestampColumn("secs", "s", null, [2n, 3n]),
			otherColumn("i", new Int32(), [1, null]),
			otherColumn("f", new Float64(), [0.5, 1.5]),
			otherColumn("b", new Bool(), [true, null]),
			otherColumn("label", new Utf8(), ["a", "b"]),
			otherColumn("note", new LargeUtf8(), [null, "z"]),
		];
		const path = await writeFile([batchOf(columns, new Map([["origin", "dt64-export test"]]))]);
		const { schema } = await readArrow(path);
		expect(schema.metadata.get("origin")).toBe("dt64-export test");
		expect(schema.fields.map((f) => [f.name, String(f.type)])).toEqual([
			["time", "Timestamp<NANOSECOND, UTC>"],
			["secs", "Timestamp<MILLISECOND>"],
			["i", "Int32"],
			["f", "Float64"],
			["b", "Bool"],
			["label", "Utf8"],
			["note", "LargeUtf8"],
		]);
		expect(schema.fields[0].metadata.get("zarr.data_type")).toBe(dataTypeJson("ns"));
		expect(schema.fields[1].metadata.get("zarr.data_type")).toBe(dataTypeJson("s"));
		expect(await query(`SELECT i, f, b, label, note FROM '${path}'`)).toEqual([
			[1, 0.5, true, "a", null],
			[null, 1.5, null, "b", "z"],
		]);
	});

	it("writes a valid empty file from a single zero-row batch", async () => {
		const path = await writeFile([batchOf([timestampColumn("t", "ms", "UTC", [])])]);
		expect(await query(`SELECT count(*) FROM '${path}'`)).toEqual([[0n]]);
		expect(await query(`SELECT duckdb_type FROM parquet_schema('${path}') WHERE name = 't'`)).toEqual([["TIMESTAMP WITH TIME ZONE"]]);
	});
});

describe("errors and cleanup", () => {
	const sink = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

	it("propagates an upstream error thrown mid-stream", async () => {
		async function* failing() {
			yield batchOf([timestampColumn("t", "ns", null, sequence(100_000))]);
			yield batchOf([timestampColumn("t", "ns", null, sequence(10))]);
			throw new Error("chunk 3 is corrupt");
		}
		await expect(pipeline(Readable.from(failing()), createParquetWriter({ rowGroupRows: 1000 }), sink())).rejects.toThrow("chunk 3 is corrupt");
	});

	it("refuses a batch whose schema differs from the first one", async () => {
		const batches = [batchOf([timestampColumn("t", "ns", null, [1n])]), batchOf([timestampColumn("t", "ns", "UTC", [1n])])];
		const failure = pipeline(Readable.from(batches), createParquetWriter(), sink());
		await expect(failure).rejects.toBeInstanceOf(Dt64ExportError);
		await expect(failure).rejects.toThrow("differs from the first batch");
	});

	it("refuses a column type that would crash arrow-rs inside wasm, before it gets there", async () => {
		const type = new SparseUnion([0], [new Field("a", new Int32(), true)]);
		const union = { field: new Field("u", type, true), data: makeData({ type, length: 1, nullCount: 0, typeIds: Int8Array.of(0), children: [vectorFromArray([5], new Int32()).data[0]] }) };
		const failure = pipeline(Readable.from([batchOf([timestampColumn("t", "ns", null, [1n]), union])]), createParquetWriter(), sink());
		await expect(failure).rejects.toBeInstanceOf(Dt64ExportError);
		await expect(failure).rejects.toThrow('column "u": Arrow type Union<Int32> is not supported by the Parquet writer');
	});

	it("refuses something that is not a RecordBatch, and an input with no batch at all", async () => {
		await expect(pipeline(Readable.from([{ rows: [] }]), createParquetWriter(), sink())).rejects.toThrow("expects apache-arrow RecordBatch objects, got Object");
		await expect(pipeline(Readable.from([]), createParquetWriter(), sink())).rejects.toThrow("no record batches to write");
	});

	it("validates options when it is created", () => {
		expect(() => createParquetWriter({ compression: "lz4" as never })).toThrow(UsageError);
		expect(() => createParquetWriter({ compression: "lz4" as never })).toThrow('unknown Parquet compression "lz4" (expected one of: zstd, snappy, gzip, none)');
		for (const rowGroupRows of [0, -1, 1.5, Number.NaN]) expect(() => new ParquetWriter({ rowGroupRows })).toThrow(UsageError);
	});

	it("does not pull more input while its output is not read", async () => {
		let pulled = 0;
		async function* endless() {
			for (;;) {
				pulled++;
				// random values do not compress, so each row group is ~8 KB of output
				yield batchOf([timestampColumn("t", "ns", null, Array.from({ length: 1000 }, () => BigInt(Math.floor(Math.random() * 2 ** 52))))]);
			}
		}
		const source = Readable.from(endless(), { highWaterMark: 1 });
		const writer = createParquetWriter({ rowGroupRows: 1000, compression: "none" });
		const stalled = new Writable({ highWaterMark: 1, write: () => undefined });
		const done = pipeline(source, writer, stalled).catch((error: unknown) => error);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(pulled).toBeLessThan(20);
		writer.destroy(new Error("stop"));
		expect(await done).toBeInstanceOf(Error);
	});

	it("frees wasm memory when destroyed mid-stream (repeated aborts do not grow it)", async () => {
		async function aborted() {
			async function* failing() {
				for (let i = 0; i < 4; i++) yield batchOf([timestampColumn("t", "ns", null, sequence(100_000, BigInt(i) * 10n ** 12n, 7919n))]);
				throw new Error("abort");
			}
			await expect(pipeline(Readable.from(failing()), createParquetWriter({ rowGroupRows: 250_000 }), sink())).rejects.toThrow("abort");
		}
		await aborted();
		const before = wasmMemory().buffer.byteLength;
		for (let i = 0; i < 8; i++) await aborted();
		expect(wasmMemory().buffer.byteLength).toBeLessThanOrEqual(before + 1024 * 1024);
		// and the shared wasm instance still writes correct files afterwards
		const path = await writeFile([batchOf([timestampColumn("t", "ns", null, [42n])])]);
		expect(arrowValues(await readArrow(path), "t")).toEqual([42n]);
	});
});
