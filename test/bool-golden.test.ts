/**
 * Booleans as xarray writes them (int8 with `dtype: "bool"`; test/fixtures/bool, made by
 * test/golden/make_bool_fixtures.py): exported as Arrow Bool, the values of xarray's `to_dataframe()`, read back
 * by polars (IPC) and DuckDB (Parquet) as booleans; other integer types too, a `_FillValue` as null, the stored
 * integers with --no-cf, and inspect saying so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { inspectStore } from "../src/inspect.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/bool");

interface ExpectedColumn {
	name: string;
	dtype: string;
	values: (string | boolean)[];
}

interface Expected {
	store: string;
	dtypes: Record<string, string>;
	stored: Record<string, string[]>;
	masked: number[];
	tables: Record<string, { columns_option: string[]; dims: string[]; rows: number; columns: ExpectedColumn[] }>;
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const query = useDuckDB();
const work = tempDir("dt64-bool-");
let fileCount = 0;
const fresh = (name: string) => path.join(work, `${fileCount++}-${name}`);

/** xarray's values, but a masked `qc` row (xarray: NaN made True) is null here. */
function expectedValues(column: ExpectedColumn, dims: string[]): unknown[] {
	if (column.dtype === "bool") {
		if (column.name !== "qc") return column.values;
		// qc is over y alone: its masked rows are the table's rows at those y.
		const perY = dims.length === 1 ? 1 : EXPECTED.tables["mask-flag16-qc"].rows / EXPECTED.stored.qc.length;
		return column.values.map((value, row) => (EXPECTED.masked.includes(Math.floor(row / perY)) ? null : value));
	}
	return column.values.map((value) => (column.dtype.startsWith("float") ? Number(value) : BigInt(value as string)));
}

function exportCase(options: string[], extension: string, extra: string[] = []): string {
	const file = fresh(`${options.join("-")}.${extension}`);
	const result = runCli([STORE, "--columns", options.join(","), "--index", "-o", file, "-q", ...extra]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return file;
}

describe.each(Object.entries(EXPECTED.tables))("xarray's booleans: %s", (_name, table) => {
	const bools = table.columns.filter((column) => column.dtype === "bool").map((column) => column.name);

	it("IPC: Bool columns, read back by polars as Boolean with xarray's values", () => {
		const file = exportCase(table.columns_option, "arrow");
		const schema = readArrow(file).schema;
		for (const name of bools) {
			const field = schema.fields.find((f) => f.name === name)!;
			expect(String(field.type), name).toBe("Bool");
			// Nullable only where a _FillValue can make a null.
			expect(field.nullable, name).toBe(name === "qc");
			expect(JSON.parse(field.metadata.get("zarr.cf_applied")!), name).toEqual(name === "qc" ? { _FillValue: "-1", dtype: "bool" } : { dtype: "bool" });
		}
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.height).toBe(table.rows);
		for (const column of table.columns) {
			const series = df.getColumn(column.name);
			if (column.dtype === "bool") expect(series.dtype.equals(pl.Bool), column.name).toBe(true);
			const values = series.toArray().map((value) => (typeof value === "number" && !column.dtype.startsWith("float") ? BigInt(value) : value));
			expect(values, column.name).toEqual(expectedValues(column, table.dims));
		}
	});

	it("Parquet: read back by DuckDB as BOOLEAN with xarray's values", async () => {
		const file = exportCase(table.columns_option, "parquet");
		const types = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
		for (const name of bools) expect(types.find((row) => row[0] === name)?.[1], name).toBe("BOOLEAN");
		const rows = await query(`SELECT ${table.columns.map((column) => `"${column.name}"`).join(", ")} FROM read_parquet('${file}')`);
		expect(rows.length).toBe(table.rows);
		table.columns.forEach((column, k) => {
			const values = rows.map((row) => (typeof row[k] === "number" && !column.dtype.startsWith("float") ? BigInt(row[k] as number) : row[k]));
			expect(values, column.name).toEqual(expectedValues(column, table.dims));
		});
	});
});

describe("xarray's booleans: --no-cf and inspect", () => {
	it("--no-cf exports the stored integers", () => {
		const file = exportCase(["land", "flag16", "qc"], "arrow", ["--no-cf"]);
		const table = readArrow(file);
		expect(String(table.getChild("land")!.type)).toBe("Int8");
		expect(String(table.getChild("flag16")!.type)).toBe("Int16");
		for (const name of ["land", "flag16", "qc"]) expect(Array.from(table.getChild(name)!.toArray() as Int8Array, String), name).toEqual(EXPECTED.stored[name]);
	});

	it("inspect: a companion column as bool, after masking", async () => {
		const report = await inspectStore(STORE);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("land")).toMatchObject({ companion: true, arrowType: "bool", cfDecoding: 'non-zero as true, xarray\'s dtype "bool"; int8 as stored without CF decoding' });
		expect(node("flag16")).toMatchObject({ companion: true, arrowType: "bool" });
		expect(node("qc")).toMatchObject({ companion: true, arrowType: "bool", cfDecoding: 'null where _FillValue, then non-zero as true, xarray\'s dtype "bool"; int8 as stored without CF decoding' });
		const text = String(runCli(["inspect", STORE]).stdout);
		expect(text).toContain('  companion   yes, as bool (non-zero as true, xarray\'s dtype "bool"; int8 as stored without CF decoding): a table column, broadcast by dimension names\n');
	});
});
