/**
 * Text xarray stores as byte strings (`|S n` with `_Encoding: "utf-8"`; test/fixtures/bytes-text, made by
 * test/golden/make_bytes_text_fixtures.py): exported as Utf8 columns with the strings xarray reads back (polars for
 * IPC, DuckDB for Parquet), a fill value included (it fills missing chunks and masks nothing, as in xarray 2023.01);
 * byte strings without `_Encoding` refused by name, and left out of `--columns all` with the reason instead of
 * failing it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { inspectStore } from "../src/inspect.js";
import { openTable } from "../src/open-table.js";
import { decodeEncodedBytesText, isUtf8EncodingName } from "../src/zarr/encoded-bytes-text.js";
import { parsePlainDataType, parsePlainFillValue } from "../src/zarr/plain-dtype.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/bytes-text");

interface Expected {
	store: string;
	dtypes: Record<string, string>;
	fill_values: Record<string, string | null>;
	coded: (string | null)[];
	attributes: Record<string, Record<string, unknown>>;
	label_x: { time: string[]; label: string[]; x: string[] };
	all: string[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const query = useDuckDB();
const work = tempDir("dt64-bytes-text-");
const NULL_TERMINATED = (width: number) => ({ name: "null_terminated_bytes", configuration: { length_bytes: width } });

describe("text stored as byte strings, as xarray writes it", () => {
	it("the fixture is what the test is about", () => {
		expect(EXPECTED.dtypes).toEqual({ label: "|S9", x: "<f8", raw: "|S2", h: "<f2", coded: "|S6" });
		expect(EXPECTED.fill_values).toEqual({ label: null, coded: "YWI=" });
		expect(fs.existsSync(path.join(STORE, "coded", "2"))).toBe(false);
		expect(EXPECTED.attributes.label._Encoding).toBe("utf-8");
		expect(EXPECTED.attributes.raw._Encoding).toBeUndefined();
	});

	it("IPC: a Utf8 column with xarray's strings, read back by polars", () => {
		const file = path.join(work, "label-x.arrow");
		const result = runCli([STORE, "--columns", "label,x", "--index", "-o", file, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(String(readArrow(file).schema.fields.find((field) => field.name === "label")!.type)).toBe("Utf8");
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.getColumn("label").toArray()).toEqual(EXPECTED.label_x.label);
		expect(df.getColumn("x").toArray().map(String)).toEqual(EXPECTED.label_x.x.map((v) => String(Number(v))));
	});

	it("Parquet: read back by DuckDB as VARCHAR with xarray's strings", async () => {
		const file = path.join(work, "label-x.parquet");
		expect(runCli([STORE, "--columns", "label,x", "--index", "-o", file, "-q"]).status).toBe(0);
		const rows = await query(`SELECT strftime(time, '%Y-%m-%dT%H:%M:%S'), label, typeof(label) FROM read_parquet('${file}') ORDER BY time`);
		expect(rows.map((row) => row[0])).toEqual(EXPECTED.label_x.time);
		expect(rows.map((row) => row[1])).toEqual(EXPECTED.label_x.label);
		expect(rows[0][2]).toBe("VARCHAR");
	});

	it("byte strings without _Encoding are refused by name, saying what would make them text", () => {
		const result = runCli([STORE, "--columns", "raw", "--index", "-o", path.join(work, "raw.arrow")]);
		expect(result.status).not.toBe(0);
		expect(result.stderr).toMatch(/COLUMN_UNSUPPORTED/);
		expect(result.stderr).toMatch(/raw bytes, not text, unless an _Encoding attribute names their encoding/);
	});

	it("a fill value: its text fills the missing chunk and masks nothing, as xarray 2023.01 reads it", async () => {
		const file = path.join(work, "coded.arrow");
		const result = runCli([STORE, "--columns", "coded", "-o", file, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const table = readArrow(file);
		expect(String(table.schema.fields[0].type)).toBe("Utf8");
		expect(table.getChild("coded")!.nullCount).toBe(0);
		expect(pl.readIPC(fs.readFileSync(file)).getColumn("coded").toArray()).toEqual(EXPECTED.coded);
		const parquet = path.join(work, "coded.parquet");
		expect(runCli([STORE, "--columns", "coded,label", "--index", "-o", parquet, "-q"]).status).toBe(0);
		const rows = await query(`SELECT coded FROM read_parquet('${parquet}') ORDER BY time`);
		expect(rows.map((row) => row[0])).toEqual(EXPECTED.coded);
	});

	it("--columns all leaves out what no column can hold, with why, and exports the rest", async () => {
		const table = await openTable(STORE, { columns: "all" });
		expect(table.columns.map((column) => column.name).sort()).toEqual(["coded", "h", "label", "x"]);
		expect(table.leftOut).toHaveLength(1);
		expect(table.leftOut.find((entry) => entry.startsWith("raw:"))).toMatch(/raw bytes, not text/);
		const file = path.join(work, "all.parquet");
		const result = runCli([STORE, "--columns", "all", "--index", "-o", file]);
		expect(result.status).toBe(0);
		expect(result.stderr).toMatch(/columns all left out raw: /);
		const rows = await query(`SELECT label FROM read_parquet('${file}') ORDER BY time`);
		expect(rows.map((row) => row[0])).toEqual(EXPECTED.label_x.label);
	});

	it("inspect calls it a string companion column", async () => {
		const report = await inspectStore(STORE);
		const label = report.nodes.find((node) => node.path === "label")!;
		expect(label.companion).toBe(true);
		expect(label.arrowType).toBe("string");
		const raw = report.nodes.find((node) => node.path === "raw")!;
		expect(raw.companion).toBe(false);
	});
});

describe("decoding byte strings as text", () => {
	const bytes = (...values: number[][]) => Uint8Array.from(values.flat());

	it("drops trailing NULs, keeps inner ones, decodes UTF-8", () => {
		expect(decodeEncodedBytesText(bytes([0x61, 0x62, 0, 0], [0x61, 0, 0x62, 0], [0, 0, 0, 0], [0xc3, 0xa9, 0x21, 0x21]), 4)).toEqual(["ab", "a\0b", "", "é!!"]);
	});

	it("refuses bytes that are no UTF-8 rather than replacing them", () => {
		expect(() => decodeEncodedBytesText(bytes([0x61, 0x62], [0xff, 0x61]), 2)).toThrow(/value 1 of the chunk is not UTF-8 text.*ff 61/);
		expect(() => decodeEncodedBytesText(bytes([0xc3, 0x28]), 2)).toThrow(expect.objectContaining({ code: "CHUNK_CORRUPT" }));
	});

	it("reads Python's spellings of UTF-8 and refuses other encodings", () => {
		for (const name of ["utf-8", "UTF-8", "utf8", "utf_8", "U8"]) expect(isUtf8EncodingName(name), name).toBe(true);
		for (const name of ["latin-1", "ascii", "utf-16", 8, undefined]) expect(isUtf8EncodingName(name), String(name)).toBe(false);
		expect(parsePlainDataType(NULL_TERMINATED(3), { _Encoding: "utf-8" }).name).toBe("string");
		expect(() => parsePlainDataType(NULL_TERMINATED(3), { _Encoding: "latin-1" })).toThrow(/encoding "latin-1" of their _Encoding attribute: only UTF-8 is read/);
		expect(() => parsePlainDataType(NULL_TERMINATED(3), {})).toThrow(/raw bytes, not text/);
		expect(() => parsePlainDataType({ name: "null_terminated_bytes", configuration: { length_bytes: 0 } }, { _Encoding: "utf-8" })).toThrow(/length_bytes must be a positive integer/);
	});

	it("reads a fill value of text stored as bytes: base64 of its bytes, trailing NULs dropped, UTF-8", () => {
		const type = parsePlainDataType(NULL_TERMINATED(3), { _Encoding: "utf-8" });
		expect(parsePlainFillValue('"YWI="', type)).toEqual({ kind: "string", value: "ab" });
		expect(parsePlainFillValue('""', type)).toEqual({ kind: "string", value: "" });
		expect(parsePlainFillValue('"YQBi"', type)).toEqual({ kind: "string", value: "a\0b" });
		expect(parsePlainFillValue('"w6kA"', type)).toEqual({ kind: "string", value: "é" });
		expect(() => parsePlainFillValue('"YWJjZA=="', type)).toThrow(/holds 4 bytes, more than the 3 of the data type/);
		expect(() => parsePlainFillValue('"/w=="', type)).toThrow(/is not UTF-8 text.*bytes ff/);
		expect(() => parsePlainFillValue("0", type)).toThrow(expect.objectContaining({ code: "METADATA_INVALID", message: expect.stringMatching(/expected the base64 text/) }));
		expect(() => parsePlainFillValue('"YW?="', type)).toThrow(/expected the base64 text/);
	});
});
