/**
 * Zarr v2 arrays as companion and index columns: the committed groups of test/fixtures/v2-columns (written by
 * test/golden/make_v2_columns_fixtures.py, expected values by numpy) exported with --columns and --index, read
 * back by DuckDB (Parquet) and polars (IPC), from a folder and over HTTP; the dtypes a column cannot have; inspect.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectStore } from "../src/inspect.js";
import { decodeFixedUtf32 } from "../src/zarr/fixed-utf32.js";
import { parseNumpyPlainDtype } from "../src/dtype/numpy-plain-dtype.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { startServer, type TestServer } from "./support/http-server.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/v2-columns");
const OBS = path.join(FIXTURES, "obs.zarr");
const GRID = path.join(FIXTURES, "grid.zarr");
type Value = string | boolean | null;
interface Expected {
	"obs.zarr": { rows: number; arrays: Record<string, { dtype: string; values: Value[] }> };
	"grid.zarr": { shape: number[]; index: number[][]; arrays: Record<string, { dtype: string; values: Value[] }> };
	"default-fill.zarr": { rows: number; arrays: Record<string, { dtype: string; values: Value[] }> };
}
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const obs = EXPECTED["obs.zarr"].arrays;
const grid = EXPECTED["grid.zarr"];

const COLUMNS = ["time", "temperature", "pressure", "station", "level", "small", "count", "offset", "flag", "name", "label", "lag"];
const FLOATS = new Set(["temperature", "pressure"]);
const BIGINTS = new Set(["count", "offset"]);

const work = tempDir("dt64-v2-columns-");
let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);

const query = useDuckDB();
let server: TestServer;
beforeAll(async () => {
	server = await startServer(FIXTURES);
});
afterAll(async () => {
	await server?.close();
});

/** Exports the stored values (`--no-cf`): these tests check them, missing chunks' fill values included; CF masking of the same fill values is tested with the xarray stores (tables.test.ts). */
function exportOk(args: string[]): void {
	const result = runCli([...args, "--no-cf", "-q"]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
}

/** numpy's `repr(float)` as a JS number: "nan", "inf" and "-inf" are its specials. */
const floatOf = (text: string) => ({ nan: NaN, inf: Infinity, "-inf": -Infinity })[text] ?? Number(text);

/** A value as the expected JSON writes it: floats as repr text, integers as decimal text. */
function asExpected(name: string, value: unknown): Value {
	if (value === null) return null;
	if (FLOATS.has(name)) return Number.isNaN(value) ? "nan" : value === Infinity ? "inf" : value === -Infinity ? "-inf" : String(value);
	if (typeof value === "number" || typeof value === "bigint") return String(value);
	return value as Value;
}

/** Expected floats compared through their numbers, so that repr and JS spellings of one value agree. */
function expectColumn(name: string, actual: unknown[], expected: Value[]): void {
	if (FLOATS.has(name)) {
		expect(actual.map((v) => asExpected(name, v)).map((v) => floatOf(v as string))).toEqual(expected.map((v) => floatOf(v as string)));
		return;
	}
	expect(actual.map((v) => asExpected(name, v))).toEqual(expected);
}

describe("a Zarr v2 group as companion columns", () => {
	it("DuckDB reads the Parquet file: every dtype, both byte orders, missing chunks as their exact fill values", async () => {
		const file = fresh("obs.parquet");
		exportOk([OBS, "--columns", COLUMNS.join(","), "--to", "parquet", "-o", file]);
		const types = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
		expect(types).toEqual([
			["time", "TIMESTAMP_NS"],
			["temperature", "DOUBLE"],
			["pressure", "FLOAT"],
			["station", "INTEGER"],
			["level", "SMALLINT"],
			["small", "UTINYINT"],
			["count", "UBIGINT"],
			["offset", "BIGINT"],
			["flag", "BOOLEAN"],
			["name", "VARCHAR"],
			["label", "VARCHAR"],
			["lag", "BIGINT"],
		]);
		const select = COLUMNS.map((name) => (name === "time" ? "epoch_ns(time)" : `"${name}"`)).join(", ");
		const rows = await query(`SELECT ${select} FROM read_parquet('${file}')`);
		expect(rows.length).toBe(EXPECTED["obs.zarr"].rows);
		COLUMNS.forEach((name, column) => expectColumn(name, rows.map((row) => row[column]), obs[name].values));
	});

	it("polars reads the IPC file with the same values, timedelta as a duration", () => {
		const file = fresh("obs.arrow");
		exportOk([OBS, "--columns", COLUMNS.join(","), "-o", file]);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.columns).toEqual(COLUMNS);
		expect(String(df.getColumn("lag").dtype)).toMatch(/Duration.*ms/i);
		for (const name of COLUMNS) {
			let series = df.getColumn(name);
			if (name === "time" || name === "lag") series = series.cast(pl.Int64);
			if (name === "time" || name === "lag" || BIGINTS.has(name)) series = series.cast(pl.Utf8);
			expectColumn(name, series.toArray(), obs[name].values);
		}
		expect(df.getColumn("temperature").nullCount()).toBe(0);
	});

	it("keeps the v2 dtype in the field metadata; the Arrow types are those of v3 columns", () => {
		const file = fresh("meta.arrow");
		exportOk([OBS, "--columns", "time,count,name,label,flag", "-o", file]);
		const fields = readArrow(file).schema.fields;
		expect(fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata.get("zarr.data_type")])).toEqual([
			["time", "Timestamp<NANOSECOND>", true, '"<M8[ns]"'],
			["count", "Uint64", false, '">u8"'],
			["name", "Utf8", false, '"<U7"'],
			["label", "Utf8", false, '"|O"'],
			["flag", "Bool", false, '"|b1"'],
		]);
	});

	it("over HTTP, the same rows as from the folder", async () => {
		const local = fresh("local.arrow");
		exportOk([OBS, "--columns", COLUMNS.join(","), "-o", local]);
		const remote = fresh("remote.arrow");
		const result = await runCliAsync([`${server.url}/obs.zarr`, "--columns", COLUMNS.join(","), "-o", remote, "--no-cf", "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(pl.readIPC(fs.readFileSync(remote)).frameEqual(pl.readIPC(fs.readFileSync(local)))).toBe(true);
	});

	it("a missing chunk of an array without a fill value (null) is an error naming the chunk (exit 1)", () => {
		const result = runCli([OBS, "--columns", "time,nofill", "-o", fresh("never.arrow")]);
		expect(result.stderr).toBe("dt64-export: chunk nofill/1: missing, and the array has no fill value (fill_value is null) to stand for it [CHUNK_MISSING]\n");
		expect(result.status).toBe(1);
	});

	it("object strings with zarr-python 2's default fill_value 0 are a column; a missing chunk of one is refused, saying why", () => {
		const store = path.join(FIXTURES, "default-fill.zarr");
		const out = fresh("default-fill.arrow");
		exportOk([store, "--columns", "time,name", "-o", out]);
		const names = pl.readIPC(fs.readFileSync(out)).getColumn("name").toArray();
		expect(names).toEqual(EXPECTED["default-fill.zarr"].arrays.name.values);
		const gap = runCli([store, "--columns", "time,gap", "-o", fresh("gap.arrow")]);
		expect(gap.stderr).toBe("dt64-export: chunk gap/1: missing, and the array has no string fill value (zarr-python 2's default fill_value 0, which it reads as the integer 0) to stand for it [CHUNK_MISSING]\n");
		expect(gap.status).toBe(1);
	});
});

describe("2-D Zarr v2 arrays with --index", () => {
	const NAMES = ["time", "temp", "code", "tag", "note"];

	it("index columns named by _ARRAY_DIMENSIONS; C and F order, strings in F order, to Parquet (DuckDB)", async () => {
		const file = fresh("grid.parquet");
		exportOk([GRID, "--columns", NAMES.join(","), "--index", "--to", "parquet", "-o", file]);
		const rows = await query(`SELECT y, x, epoch_ms(time), temp, code, tag, note FROM read_parquet('${file}')`);
		expect(rows.map((row) => Number(row[0]))).toEqual(grid.index[0]);
		expect(rows.map((row) => Number(row[1]))).toEqual(grid.index[1]);
		NAMES.forEach((name, i) => expect(rows.map((row) => asExpected(name, row[i + 2] ?? null))).toEqual(grid.arrays[name].values.map((v) => (name === "temp" ? String(floatOf(v as string)) : v))));
	});

	it("one 2-D v2 array with --index and --order chunk (polars)", () => {
		const file = fresh("time.arrow");
		exportOk([GRID, "--array", "time", "--index", "-o", file]);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.columns).toEqual(["y", "x", "time"]);
		expect(df.getColumn("y").toArray()).toEqual(grid.index[0]);
		expect(df.getColumn("time").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(grid.arrays.time.values);
		const chunked = fresh("chunked.arrow");
		exportOk([GRID, "--columns", "time,code", "--index", "--order", "chunk", "-o", chunked]);
		const byChunk = pl.readIPC(fs.readFileSync(chunked)).sort(["y", "x"]);
		expect(byChunk.getColumn("code").cast(pl.Utf8).toArray()).toEqual(grid.arrays.code.values);
	});
});

describe("_ARRAY_DIMENSIONS of the wrong length", () => {
	/** grid.zarr with `temp`'s _ARRAY_DIMENSIONS one name short, and `time`'s one too many (xarray opens neither). */
	function badDimensions(): string {
		const root = fresh("bad-dims.zarr");
		fs.cpSync(GRID, root, { recursive: true });
		fs.writeFileSync(path.join(root, "temp", ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["y"] }));
		return root;
	}

	it("is METADATA_INVALID naming .zattrs and the attribute, wherever the names are read (it was dropped: no names)", async () => {
		const root = badDimensions();
		const refusal = `_ARRAY_DIMENSIONS ["y"] of temp/.zattrs has 1 name for the 2 dimensions of shape [5,7]`;
		for (const args of [["--columns", "time,temp", "--index"], ["--columns", "all"], ["--columns", "temp"]]) {
			const result = runCli([root, ...args, "-o", fresh("out.arrow")]);
			expect([result.status, result.stderr]).toEqual([1, `dt64-export: ${root}/temp/.zarray: ${refusal} [METADATA_INVALID]\n`]);
		}
		const { openTable } = await import("../src/index.js");
		await expect(openTable(root, { columns: "all" })).rejects.toMatchObject({ code: "METADATA_INVALID", path: "temp/.zattrs", field: "_ARRAY_DIMENSIONS" });
		// An export that reads only the other arrays is not concerned.
		exportOk([root, "--columns", "time,code", "--index", "-o", fresh("fine.arrow")]);
		fs.writeFileSync(path.join(root, "time", ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["y", "x", "z"] }));
		const time = runCli([root, "--array", "time", "--index", "-o", fresh("time.arrow")]);
		expect([time.status, time.stderr]).toEqual([1, `dt64-export: ${root}/time/.zarray: _ARRAY_DIMENSIONS ["y","x","z"] of time/.zattrs has 3 names for the 2 dimensions of shape [5,7] [METADATA_INVALID]\n`]);
		const report = await inspectStore(root);
		const node = (name: string) => report.nodes.find((entry) => entry.path === name)!;
		expect(node("time")).toMatchObject({ exportable: false, reason: expect.stringContaining("_ARRAY_DIMENSIONS"), reasonCode: "METADATA_INVALID" });
		expect(node("temp")).toMatchObject({ companion: false, companionReason: refusal });
	});
});

describe("v2 dtypes a column cannot have: usage errors naming the .zarray and the dtype (exit 2)", () => {
	const cases: [string, string][] = [
		["complex", 'dtype "<c8" cannot be exported as a column (Arrow has no complex type)'],
		["raw", 'data type null_terminated_bytes (numpy "|S4") cannot be exported as a column (fixed-width byte strings are raw bytes, not text, unless an _Encoding attribute names their encoding (xarray writes _Encoding: "utf-8"); store text as <U or as object strings with the vlen-utf8 filter)'],
		["blobs", 'dtype "|O" (object) cannot be exported as a column (object codec "vlen-bytes": raw bytes, not text; only strings with the vlen-utf8 filter are read)'],
		["pickled", 'dtype "|O" (object) cannot be exported as a column (object codec "pickle"; only strings with the vlen-utf8 filter are read)'],
		["native", 'dtype "=i4" cannot be exported as a column (native byte order "=" is not portable: expected "<", ">" or "|")'],
		["record", 'dtype [["a","<i4"]] (structured) cannot be exported as a column (structured dtypes have no column type)'],
	];
	for (const [name, message] of cases) {
		it(name, () => {
			const result = runCli([OBS, "--columns", `time,${name}`, "-o", fresh("never.arrow")]);
			expect(result.stderr).toBe(`dt64-export: --columns: array ${name} (${OBS}/${name}/.zarray): ${message} [COLUMN_UNSUPPORTED]\n`);
			expect(result.status).toBe(2);
		});
	}

	it("an unknown name lists the group's arrays by their v2 dtype", () => {
		const result = runCli([GRID, "--columns", "time,nope", "-o", fresh("never.arrow")]);
		expect(result.stderr).toBe("dt64-export: --columns: no array \"nope\" in the store root; it holds code (<i2), note (|O), tag (>U2), temp (>f8), time (<M8[ms]) [COLUMN_NOT_FOUND]\n");
		expect(result.status).toBe(2);
	});
});

describe("inspect and the pure cores", () => {
	it("inspect shows v2 plain arrays as they are read, with their companion status", async () => {
		const report = await inspectStore(OBS);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("count")).toMatchObject({ zarrFormat: 2, dtype: ">u8", dataType: "uint64", codecs: ["bytes(big)"], fillValue: "18446744073709551615", exportable: false, companion: true, arrowType: "uint64", dimensionNames: ["obs"] });
		expect(node("label")).toMatchObject({ dtype: "|O", dataType: "string", codecs: ["vlen-utf8", "zlib(level=1)"], companion: true, arrowType: "string" });
		expect(node("name")).toMatchObject({ dtype: "<U7", dataType: "fixed_length_utf32", codecs: ["bytes(little)"], companion: true });
		expect(node("half")).toMatchObject({ dtype: "<f2", dataType: "float16", companion: true, arrowType: "float", widening: "float16 widened exactly to float32" });
		const text = runCli(["inspect", GRID]).stdout.toString();
		expect(text).toContain("  codecs      transpose(order=[1,0]) vlen-utf8\n");
		expect(text).toContain("  companion   yes, as string: a table column, broadcast by dimension names\n");
	});

	it("fixed-width unicode drops trailing NULs only, and refuses code units that are not scalar values", () => {
		expect(decodeFixedUtf32(Uint32Array.of(0x61, 0, 0x62, 0, 0x1d11e, 0, 0, 0), 4)).toEqual(["a\0b", "\u{1d11e}"]);
		expect(() => decodeFixedUtf32(Uint32Array.of(0xd800, 0), 2)).toThrow("fixed_length_utf32: value 0 holds 0xd800 at character 0, not a Unicode scalar value");
		expect(parseNumpyPlainDtype(">U3")).toEqual({ dataType: { name: "fixed_length_utf32", configuration: { length_bytes: 12 } }, endian: "big", itemBytes: 12 });
		expect(parseNumpyPlainDtype("|b1")).toEqual({ dataType: "bool", endian: "little", itemBytes: 1 });
	});
});
