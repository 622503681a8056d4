/**
 * Half floats (test/fixtures/float16, made by test/golden/make_float16_fixtures.py with xarray 2023.01 and zarr 2.13):
 * exported as Float32 columns holding each half widened bit for bit (NaN payloads, subnormals, ±0, ±Infinity);
 * masked in half precision as xarray's numpy compares them; unpacked to Float32 in float32 arithmetic as xarray
 * 2023.01 does; CF time counts stored as halves decoded exactly as xarray decodes them; read back by polars (IPC) and
 * DuckDB (Parquet); inspect says what it does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table, Vector } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { exportTable, inspectStore, type ExportOptions } from "../src/index.js";
import { maskRuleOf } from "../src/cf/masking.js";
import { float32BitsOfHalf, halfBitsOf, halfComparand, halfValue, widenHalfFloats } from "../src/zarr/half-float.js";
import { parsePlainDataType, parsePlainFillValue } from "../src/zarr/plain-dtype.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/float16");

interface ExpectedColumn {
	dtype: string;
	bits: string[];
	masked: boolean[];
	stored_bits: string[];
}

interface Expected {
	store: string;
	rows: number;
	time: string[];
	dtypes: Record<string, string>;
	attributes: Record<string, Record<string, unknown>>;
	columns: Record<string, ExpectedColumn>;
	stamp: { dtype: string; values: string[] };
	all: string[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const NAMES = Object.keys(EXPECTED.columns);
const query = useDuckDB();
const work = tempDir("dt64-float16-");

const exported = (options: ExportOptions): Promise<Table> => exportedArrow((sink) => exportTable(STORE, sink, { format: "arrow", ...options }));

/** A Float32 column as xarray's expectations spell it: the float32 bits in hex, null where masked. */
function bitsOf(vector: Vector): (string | null)[] {
	const out: (string | null)[] = [];
	for (const data of vector.data) {
		const bits = new Uint32Array(data.values.buffer, data.values.byteOffset, data.length);
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? `0x${bits[i].toString(16).padStart(8, "0")}` : null);
	}
	return out;
}

const xarrayBits = (column: ExpectedColumn) => column.bits.map((bits, i) => (column.masked[i] ? null : bits));

/** A nanosecond timestamp as numpy prints datetime64[ns]. */
function isoNanoseconds(value: bigint | null): string {
	if (value === null) return "NaT";
	const ms = value / 1_000_000n;
	return `${new Date(Number(ms)).toISOString().slice(0, 19)}.${(((value % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, "0")}`;
}

describe("float16 arrays, as xarray reads them", () => {
	it("the fixture is what the test is about", () => {
		for (const name of [...NAMES, "stamp"]) expect(EXPECTED.dtypes[name], name).toBe("float16");
		expect(EXPECTED.attributes.m.missing_value).toEqual([0.1, 65510]);
		// xarray masked the half 0.1 and kept 65504, which the float32 comparison of 65510 does not reach.
		expect(EXPECTED.columns.m.masked).toEqual([true, false, false, true, false, false, false, false, true, false, false, false]);
		expect(EXPECTED.columns.p.dtype).toBe("float32");
	});

	it("every column is Float32 with xarray's values bit for bit, null where xarray masks", async () => {
		const table = await exported({ columns: NAMES, index: true });
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", ...NAMES]);
		for (const name of NAMES) {
			const field = table.schema.fields.find((f) => f.name === name)!;
			expect(String(field.type), name).toBe("Float32");
			expect(field.metadata.get("zarr.data_type"), name).toBe('"<f2"');
			expect(bitsOf(table.getChild(name)!), name).toEqual(xarrayBits(EXPECTED.columns[name]));
		}
		expect(JSON.parse(table.schema.fields.find((f) => f.name === "m")!.metadata.get("zarr.cf_applied")!)).toEqual({ missing_value: [0.1, 65510] });
		expect(JSON.parse(table.schema.fields.find((f) => f.name === "p")!.metadata.get("zarr.cf_applied")!)).toEqual({ _FillValue: "-1.0", scale_factor: 0.1, add_offset: 1000.5 });
	});

	it("without CF decoding, the stored halves widened, none masked", async () => {
		const table = await exported({ columns: ["m", "f", "p"], cf: false });
		for (const name of ["m", "f", "p"]) expect(bitsOf(table.getChild(name)!), name).toEqual(EXPECTED.columns[name].stored_bits.map((bits, i) => (name === "f" && i >= 8 ? "0x40200000" : bits)));
	});

	it("CF time stored as halves: xarray's instants, to the nanosecond", async () => {
		const table = await exported({ columns: ["stamp"] });
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<NANOSECOND>");
		const data = table.getChildAt(0)!.data[0];
		const values = Array.from({ length: data.length }, (_, i) => (data.getValid(i) ? (data.values as BigInt64Array)[i] : null));
		expect(values.map(isoNanoseconds)).toEqual(EXPECTED.stamp.values);
	});

	it("--columns all exports every half float array; polars reads the IPC file", () => {
		const file = path.join(work, "all.arrow");
		const result = runCli([STORE, "--columns", "all", "--index", "-o", file]);
		expect(result.stderr).not.toMatch(/left out/);
		expect(result.status).toBe(0);
		expect(readArrow(file).schema.fields.map((field) => field.name)).toEqual(["time", ...EXPECTED.all]);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(String(df.getColumn("h").dtype)).toBe("DataType(Float32)");
		const values = df.getColumn("h").toArray() as number[];
		const halves = [0x0000, 0x8000, 0x3c00, 0x2e66, 0x7bff, 0x7c00, 0xfc00, 0x0001, 0x03ff, 0x7e01, 0x7c01, 0xfe00];
		expect(values.map((value) => (Number.isNaN(value) ? "NaN" : Object.is(value, -0) ? "-0" : String(value)))).toEqual(halves.map((bits) => (bits >= 0x7c01 && bits <= 0x7fff) || bits >= 0xfc01 ? "NaN" : Object.is(halfValue(bits), -0) ? "-0" : String(halfValue(bits))));
		expect(df.getColumn("m").nullCount()).toBe(3);
	});

	it("Parquet: DuckDB reads FLOAT columns with xarray's values and nulls", async () => {
		const file = path.join(work, "float16.parquet");
		expect(runCli([STORE, "--columns", "h,m,p,q", "-o", file, "-q"]).status).toBe(0);
		const rows = await query(`SELECT typeof(h), typeof(p), h, m, p, q FROM read_parquet('${file}')`);
		expect(rows[0].slice(0, 2)).toEqual(["FLOAT", "FLOAT"]);
		const asFloat32 = (bits: string | null) => (bits === null ? null : new Float32Array(new Uint32Array([Number(bits)]).buffer)[0]);
		for (const [k, name] of ["h", "m", "p", "q"].entries()) {
			const expected = xarrayBits(EXPECTED.columns[name]).map(asFloat32);
			const got = rows.map((row) => row[2 + k] as number | null);
			expect(got.map((v) => (v === null ? null : Number.isNaN(v) ? "NaN" : v)), name).toEqual(expected.map((v) => (v === null ? null : Number.isNaN(v) ? "NaN" : v)));
		}
	});

	it("inspect says the halves are widened to float32", async () => {
		const report = await inspectStore(STORE);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("h")).toMatchObject({ companion: true, arrowType: "float", widening: "float16 widened exactly to float32" });
		expect(node("h").cfDecoding).toBeUndefined();
		expect(node("p")).toMatchObject({ companion: true, arrowType: "float", widening: "float16 widened exactly to float32", cfDecoding: "null where _FillValue, then unpacked by scale_factor and add_offset; float as stored without CF decoding" });
		expect(node("stamp")).toMatchObject({ exportable: true, arrowType: "timestamp[ns]", cfTime: "hours since 2000-01-01, proleptic_gregorian, counts float16 widened exactly to float32" });
		const text = runCli(["inspect", STORE]).stdout.toString();
		expect(text).toMatch(/companion +yes, as float \(float16 widened exactly to float32; null where missing_value; float as stored without CF decoding\)/);
	});
});

describe("half floats, bit by bit", () => {
	/** The value of a half from its fields, by arithmetic alone. */
	const reference = (bits: number) => {
		const sign = bits & 0x8000 ? -1 : 1;
		const exponent = (bits >> 10) & 0x1f;
		const fraction = bits & 0x3ff;
		if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
		return exponent === 0 ? sign * fraction * 2 ** -24 : sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
	};

	it("every half widens to the float32 of its value, NaNs keeping sign, quiet bit and payload", () => {
		const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
		const widened = new Uint32Array(widenHalfFloats(all).buffer);
		for (let bits = 0; bits < 65536; bits++) {
			const value = reference(bits);
			if (Number.isNaN(value)) expect(widened[bits], bits.toString(16)).toBe((((bits & 0x8000) << 16) | 0x7f800000 | ((bits & 0x3ff) << 13)) >>> 0);
			else expect(new Float32Array(widened.buffer, bits * 4, 1)[0], bits.toString(16)).toBe(value);
			expect(float32BitsOfHalf(bits)).toBe(widened[bits]);
		}
	});

	it("a double rounds to the nearest half, ties to even, as np.float16 rounds it", () => {
		for (let bits = 0; bits < 65536; bits++) if (!Number.isNaN(reference(bits))) expect(halfBitsOf(reference(bits)), bits.toString(16)).toBe(bits);
		expect(halfBitsOf(0.1)).toBe(0x2e66);
		expect(halfBitsOf(2049)).toBe(0x6800); // 2048, the even neighbour
		expect(halfBitsOf(2051)).toBe(0x6802); // 2052
		expect(halfBitsOf(65519.99)).toBe(0x7bff);
		expect(halfBitsOf(65520)).toBe(0x7c00);
		expect(halfBitsOf(2 ** -25)).toBe(0x0000);
		expect(halfBitsOf(3 * 2 ** -25)).toBe(0x0002);
		expect(halfBitsOf(-0)).toBe(0x8000);
		expect(halfBitsOf(NaN)).toBe(0x7e00);
	});

	it("markers compare as numpy 1.x compares a half array with a Python float", () => {
		expect(halfComparand(0.1)).toBe(0.0999755859375);
		expect(halfComparand(64999)).toBe(64992);
		expect(halfComparand(65510)).toBe(65510); // in float32: no half equals it
		expect(halfComparand(1e39)).toBe(1e39);
		const rule = maskRuleOf({ name: "m", type: "float16", zarrFormat: 2, attributes: { missing_value: [0.1, 65510] }, fillValue: null })!;
		expect([...rule.markers]).toEqual([0.0999755859375, 65510]);
	});

	it("fill values of half floats: numbers rounded to a half, NaN, infinities and 4 hex digits", () => {
		const type = parsePlainDataType("float16");
		expect(parsePlainFillValue("2.5", type)).toMatchObject({ kind: "float", bits: 0x4100n });
		expect(parsePlainFillValue('"NaN"', type)).toMatchObject({ bits: 0x7e00n });
		expect(parsePlainFillValue('"-Infinity"', type)).toMatchObject({ bits: 0xfc00n });
		expect(parsePlainFillValue('"0x7c01"', type)).toMatchObject({ bits: 0x7c01n });
		expect(() => parsePlainFillValue('"0x7fc00000"', type)).toThrow(/4 hex digits/);
		const chunk = new Uint32Array((type.fillChunk(3, { kind: "float", bits: 0x7c01n, text: "0x7c01" }) as Float32Array).buffer);
		expect([...chunk]).toEqual([0x7f802000, 0x7f802000, 0x7f802000]);
	});
});
