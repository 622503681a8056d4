/**
 * xarray datasets as tidy tables, against xarray itself: the stores of test/fixtures/tables were written by
 * `Dataset.to_zarr` and the expected tables computed by `ds[vars].to_dataframe(dim_order=...).reset_index()`
 * (test/golden/make_table_fixtures.py). Each case is exported with `--columns <vars> --index` and read back by
 * polars (IPC) and DuckDB (Parquet), column by column, value by value: index columns from the coordinates
 * (decoded) or positions, broadcast variables, CF masking (null) and unpacking, NaN kept as NaN.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { Timestamp } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { openTable } from "../src/open-table.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/tables");

interface ExpectedColumn {
	name: string;
	dtype: string;
	values: (string | boolean | null)[];
}

interface ExpectedTable {
	store: string;
	columns_option: string[];
	dims: string[];
	rows: number;
	columns: ExpectedColumn[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, ExpectedTable>;
const query = useDuckDB();
const dir = tempDir("dt64-tables-");
let fileCount = 0;
const fresh = (name: string) => path.join(dir, `${fileCount++}-${name}`);

function exportCase(table: ExpectedTable, extension: string, extra: string[] = []): string {
	const file = fresh(`${table.columns_option.join("-")}.${extension}`);
	const format = extension === "parquet" ? "parquet" : "arrow";
	const result = runCli([path.join(FIXTURES, table.store), "--columns", table.columns_option.join(","), "--index", "--to", format, "-o", file, "-q", ...extra]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return file;
}

/** A value read back, in the golden's spelling: ints and times (nanoseconds) as decimal strings, floats as numbers, null as null. */
function normalize(expected: ExpectedColumn, value: unknown): unknown {
	if (value === null || value === undefined) return null;
	if (expected.dtype.startsWith("datetime64")) return BigInt(value as bigint | number).toString();
	if (expected.dtype.startsWith("float")) return value as number;
	if (expected.dtype.startsWith("int") || expected.dtype.startsWith("uint")) return BigInt(value as bigint | number).toString();
	return value;
}

function expectedValues(expected: ExpectedColumn): unknown[] {
	if (expected.dtype.startsWith("float")) return expected.values.map((v) => (v === null ? null : Number(v === "nan" ? NaN : v)));
	return expected.values;
}

/** The Arrow types dt64-export gives (pandas' differ where it widens: float32 index levels, masked integers). */
const ARROW_TYPES: Record<string, Record<string, string>> = {
	"grid.zarr": { time: "Timestamp", lat: "Float32", lon: "Float64", t2m: "Float32", tp: "Float32", sp: "Float64", elev: "Float64", rh: "Int8", land: "Float32", u10: "Float64" },
	"stations.zarr": { time: "Timestamp", station: "Utf8", sample: "Int64", obs: "Float64", qc: "Uint8" },
	"curvilinear.zarr": { time: "Timestamp", y: "Int64", x: "Int64", temp: "Float32", lat: "Float64", lon: "Float64" },
	"gridmap.zarr": { time: "Timestamp", lat: "Float64", lon: "Float64", t2m: "Float32", crs: "Int32" },
	"mixed-names.zarr": {
		time: "Timestamp",
		x: "Int64",
		...Object.fromEntries(["Tmax", "U10", "Zulu", "_flag", "a10", "a9", "precip", "snow_Depth", "zeta", "Äquivalent"].map((name) => [name, "Float64"])),
	},
};

describe.each(Object.entries(EXPECTED))("xarray's to_dataframe: %s", (_name, table) => {
	const order = [...table.dims, ...table.columns_option.filter((column) => !table.dims.includes(column))];

	it("IPC, read back by polars", () => {
		const file = exportCase(table, "arrow");
		const schema = readArrow(file).schema;
		expect(schema.fields.map((field) => field.name)).toEqual(order);
		for (const field of schema.fields) expect(String(field.type), field.name).toMatch(new RegExp(`^${ARROW_TYPES[table.store][field.name]}\\b`));
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.height).toBe(table.rows);
		for (const expected of table.columns) {
			const field = schema.fields.find((f) => f.name === expected.name)!;
			const series = df.getColumn(expected.name);
			// polars keeps its own time unit (no seconds): read every timestamp as nanoseconds.
			const raw = field.type instanceof Timestamp ? series.cast(pl.Datetime("ns")).cast(pl.Int64).toArray() : series.toArray();
			expect(raw.map((value) => normalize(expected, value)), expected.name).toEqual(expectedValues(expected));
		}
	});

	it("Parquet, read back by DuckDB", async () => {
		const file = exportCase(table, "parquet");
		const select = table.columns.map((column) => (column.dtype.startsWith("datetime64") ? `epoch_ns("${column.name}")` : `"${column.name}"`)).join(", ");
		const rows = await query(`SELECT ${select} FROM read_parquet('${file}')`);
		expect(rows.length).toBe(table.rows);
		table.columns.forEach((expected, k) => {
			expect(rows.map((row) => normalize(expected, row[k])), expected.name).toEqual(expectedValues(expected));
		});
	});
});

describe("tables: field metadata, options and refusals", () => {
	const grid = path.join(FIXTURES, "grid.zarr");

	it("keeps the CF attributes and says what was applied", () => {
		const file = fresh("packed.arrow");
		expect(runCli([grid, "--columns", "tp,sp,rh", "--index", "-o", file, "-q"]).status).toBe(0);
		const { fields } = readArrow(file).schema;
		const metadataOf = (name: string) => Object.fromEntries(fields.find((field) => field.name === name)!.metadata);
		expect(metadataOf("tp")).toMatchObject({ units: "mm", long_name: "total precipitation" });
		expect(JSON.parse(metadataOf("tp")["zarr.cf_applied"])).toEqual({ _FillValue: "-32767", scale_factor: 0.0010000000474974513 });
		expect(JSON.parse(metadataOf("sp")["zarr.cf_applied"])).toEqual({ _FillValue: "-32767", missing_value: [-32766, -32765], scale_factor: 0.5, add_offset: 1000 });
		expect(JSON.parse(metadataOf("rh")["zarr.cf_applied"])).toEqual({ _FillValue: "-128", valid_range: [0, 100] });
	});

	it("--no-cf exports the stored values; --nan-as-null makes NaN null", () => {
		const raw = fresh("raw.arrow");
		expect(runCli([grid, "--columns", "tp", "--no-cf", "-o", raw, "-q"]).status).toBe(0);
		const tp = readArrow(raw).getChild("tp")!;
		expect(String(tp.type)).toBe("Int16");
		expect(tp.nullCount).toBe(0);
		expect(Array.from(tp.toArray() as Int16Array)).toContain(-32767);
		const nulls = fresh("nan-null.arrow");
		expect(runCli([grid, "--columns", "t2m", "--nan-as-null", "-o", nulls, "-q"]).status).toBe(0);
		const t2m = readArrow(nulls).getChild("t2m")!;
		const expectedNaN = EXPECTED.t2m.columns.find((column) => column.name === "t2m")!.values.filter((value) => value === "nan").length;
		expect(expectedNaN).toBeGreaterThan(0);
		expect(t2m.nullCount).toBe(expectedNaN);
	});

	it("--index positions keeps positions; a coordinate named in --columns is the index column; --rename", () => {
		const file = fresh("positions.arrow");
		expect(runCli([grid, "--columns", "elev", "--index", "positions", "--rename", "lat=y,elev=height", "-o", file, "-q"]).status).toBe(0);
		const table = readArrow(file);
		expect(table.schema.fields.map((field) => field.name)).toEqual(["y", "lon", "height"]);
		expect(Array.from(table.getChild("y")!.toArray() as BigInt64Array)).toEqual([0n, 0n, 0n, 0n, 1n, 1n, 1n, 1n, 2n, 2n, 2n, 2n]);
		// `--index` before the store takes no value from it; `--index positions` before it takes that one.
		const first = fresh("index-first.arrow");
		expect(runCli(["--index", grid, "--columns", "elev", "-o", first, "-q"]).status).toBe(0);
		expect(readArrow(first).schema.fields.map((field) => String(field.type))).toEqual(["Float32", "Float64", "Float64"]);
		const positionsFirst = fresh("positions-first.arrow");
		expect(runCli(["--index", "positions", grid, "--columns", "elev", "-o", positionsFirst, "-q"]).status).toBe(0);
		expect(readArrow(positionsFirst).schema.fields.map((field) => String(field.type))).toEqual(["Int64", "Int64", "Float64"]);
		const coordinate = fresh("lat.arrow");
		expect(runCli([grid, "--columns", "lat", "--index", "-o", coordinate, "-q"]).status).toBe(0);
		const lat = readArrow(coordinate);
		expect(lat.schema.fields.map((field) => field.name)).toEqual(["lat"]);
		expect(Array.from(lat.getChild("lat")!.toArray() as Float32Array)).toEqual([10.5, 0.25, Math.fround(-33.3)]);
	});

	it("--columns all is the whole to_dataframe() table", () => {
		const file = fresh("all.arrow");
		expect(runCli([grid, "--columns", "all", "--index", "-o", file, "-q"]).status).toBe(0);
		const names = readArrow(file).schema.fields.map((field) => field.name);
		expect(names.slice(0, 3)).toEqual(["time", "lat", "lon"]);
		expect([...names.slice(3)].sort()).toEqual([...EXPECTED.all.columns_option].sort());
	});

	it("--columns all without --index names the coordinates it leaves out (the time among them); --start then searches the columns only", async () => {
		const file = fresh("all-no-index.arrow");
		const result = runCli([grid, "--columns", "all", "-o", file]);
		expect(result.status).toBe(0);
		expect(result.stderr.split("\n")[0]).toBe("dt64-export: columns all left out the coordinates time, lat, lon: the dimensions' index, exported as columns with --index");
		const names = readArrow(file).schema.fields.map((field) => field.name);
		expect(names).not.toContain("time");
		expect(runCli([grid, "--columns", "all", "-o", fresh("all-quiet.arrow"), "-q"]).stderr).toBe("");
		// Asked for: --index gives them, --index positions gives positions instead; nothing to say either way.
		for (const index of [["--index"], ["--index", "positions"]]) expect(runCli([grid, "--columns", "all", ...index, "-o", fresh(`all-${index.length}.arrow`)]).stderr).not.toMatch(/left out the coordinates/);
		expect((await openTable(grid, { columns: "all", indexSource: "positions" })).coordinatesLeftOut).toEqual(["time", "lat", "lon"]);
		expect((await openTable(grid, { columns: "all" })).coordinatesLeftOut).toBeUndefined();
		// The time is not a column without --index: the columns searched are the exported ones.
		const start = runCli([grid, "--columns", "all", "--start", "2021-01-02", "-o", fresh("all-start.arrow")]);
		expect([start.status, start.stderr]).toEqual([
			2,
			`dt64-export: no time column (datetime64 or CF time) to select or partition rows by among ${names.join(", ")} (a dimension's time coordinate is one with index columns: --index) [USAGE]\n`,
		]);
	});

	it("--columns all takes a 0-d variable as a constant column (ds.to_dataframe()) and names what it leaves out, with the reason", () => {
		const file = fresh("gridmap-all.arrow");
		const result = runCli([path.join(FIXTURES, "gridmap.zarr"), "--columns", "all", "--index", "-o", file]);
		expect(result.status).toBe(0);
		expect(result.stderr).toMatch(/^dt64-export: columns all left out time_bnds\(time=4, bnds=2\): dimension bnds is not among the table's \(time, lat, lon, from t2m\), and would multiply its rows\n/);
		const expected = EXPECTED["zero-d-all"];
		const table = readArrow(file);
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", "lat", "lon", ...expected.columns_option]);
		for (const column of expected.columns.filter((c) => !expected.dims.includes(c.name))) {
			expect(Array.from(table.getChild(column.name)!.toArray() as ArrayLike<number>).map((value) => normalize(column, value)), column.name).toEqual(expectedValues(column));
		}
	});

	it("--columns all: an array without dimension names (added with zarr) is matched by shape, and never makes a named variable a misfit", async () => {
		const root = fresh("unnamed.zarr");
		await writeGroup(root, "");
		const floats = (n: number) => Float32Array.from({ length: n }, (_, i) => i);
		await writeArray(root, "t2m", { shape: [8, 2], chunks: [8, 2], dataType: "float32", fillValue: 0, values: floats(16), dimensionNames: ["time", "lat"] });
		await writeArray(root, "extra", { shape: [2], chunks: [2], dataType: "float32", fillValue: 0, values: floats(2), dimensionNames: ["lat"] });
		await writeArray(root, "mask", { shape: [8, 2], chunks: [8, 2], dataType: "float32", fillValue: 0, values: floats(16) });
		await writeArray(root, "w", { shape: [2], chunks: [2], dataType: "float32", fillValue: 0, values: floats(2) });
		const file = fresh("unnamed.arrow");
		const result = runCli([root, "--columns", "all", "--index", "-o", file]);
		expect(result.status, result.stderr).toBe(0);
		expect(result.stderr.split("\n")[0]).toBe("dt64-export: columns all left out w [2] (no dimension names): without dimension names, its shape is not the table's shape [8,2] (time, lat, from t2m)");
		expect(readArrow(file).schema.fields.map((field) => field.name)).toEqual(["time", "lat", "extra", "mask", "t2m"]);
	});

	it("--columns all of a group holding datasets in groups (to_zarr(group=...)) names them", async () => {
		const root = fresh("grouped.zarr");
		await writeGroup(root, "");
		for (const group of ["surface", "pressure"]) {
			await writeGroup(root, group);
			await writeArray(root, `${group}/t`, { shape: [2], chunks: [2], dataType: "float32", fillValue: 0, values: Float32Array.of(1, 2), dimensionNames: ["time"] });
		}
		const result = runCli([root, "--columns", "all", "--index", "-o", fresh("grouped.arrow")]);
		expect(result.status).toBe(2);
		expect(result.stderr).toBe("dt64-export: --columns all: the group holds no data variable (only dimension coordinates, or no array); its groups pressure, surface may: name one with --array [COLUMN_NOT_FOUND]\n");
	});

	it("--columns all takes the variables in xarray's order (ds.to_dataframe()'s, code point order), whatever the user's locale", () => {
		const expected = EXPECTED["mixed-names-all"];
		const store = path.join(FIXTURES, "mixed-names.zarr");
		// localeCompare ordered them by the locale: en_US put precip before Tmax and Zulu after zeta, sv_SE also Äquivalent last.
		for (const locale of ["C", "en_US.UTF-8", "sv_SE.UTF-8"]) {
			const file = fresh(`mixed-names-${locale}.arrow`);
			expect(runCli([store, "--columns", "all", "--index", "-o", file, "-q"], { env: { LANG: locale, LC_ALL: locale } }).status).toBe(0);
			const table = readArrow(file);
			expect(table.schema.fields.map((field) => field.name), locale).toEqual(["time", "x", ...expected.columns_option]);
			for (const column of expected.columns.filter((c) => !expected.dims.includes(c.name))) {
				expect(Array.from(table.getChild(column.name)!.toArray() as ArrayLike<number>).map((value) => normalize(column, value)), column.name).toEqual(expectedValues(column));
			}
		}
	});

	it("names that differ only by case (which DuckDB reads as one) are named in a warning, before the export; --rename one and it is gone", async () => {
		const root = fresh("case.zarr");
		await writeGroup(root, "");
		await writeArray(root, "time", { shape: [2], chunks: [2], values: BigInt64Array.of(0n, 60n), dimensionNames: ["time"] });
		for (const name of ["zeta", "Zeta", "ZETA"]) {
			await writeArray(root, name, { shape: [2], chunks: [2], dataType: "float64", fillValue: 0, values: Float64Array.of(1, 2), dimensionNames: ["time"] });
		}
		const file = fresh("case.arrow");
		const run = runCli([root, "--columns", "zeta,Zeta,ZETA", "--index", "-q", "-o", file]);
		expect([run.status, run.stderr]).toEqual([
			0,
			'dt64-export: warning: columns "zeta" and "Zeta" differ only by case: DuckDB, Spark and Trino read them as one name (--rename one of them)\n' +
				'dt64-export: warning: columns "zeta" and "ZETA" differ only by case: DuckDB, Spark and Trino read them as one name (--rename one of them)\n',
		]);
		expect(readArrow(file).schema.fields.map((field) => field.name)).toEqual(["time", "zeta", "Zeta", "ZETA"]);
		const renamed = runCli([root, "--columns", "zeta,Zeta", "--index", "--rename", "Zeta=zeta_upper", "-q", "-f", "-o", file]);
		expect([renamed.status, renamed.stderr]).toEqual([0, ""]);
	});

	it("Zarr v3 (written by hand: xarray here cannot): the _FillValue attribute masks, the v3 fill_value does not; conflicting dimensions are refused, listing each variable's (exit 2)", async () => {
		const root = fresh("v3.zarr");
		await writeGroup(root, "");
		await writeArray(root, "x", { shape: [2], chunks: [2], dataType: "float64", fillValue: 0, values: Float64Array.of(0.5, 1.5), dimensionNames: ["x"] });
		const temp = Int16Array.of(0, -9999, 4, 6, -9999, 0);
		await writeArray(root, "temp", { shape: [3, 2], chunks: [2, 1], dataType: "int16", fillValue: 0, values: temp, dimensionNames: ["time", "x"], attributes: { _FillValue: -9999, scale_factor: 0.5, units: "K" } });
		await writeArray(root, "bad", { shape: [5], chunks: [5], dataType: "float32", fillValue: 0, values: new Float32Array(5), dimensionNames: ["x"] });
		const file = fresh("v3.arrow");
		expect(runCli([root, "--columns", "temp", "--index", "-o", file, "-q"]).status).toBe(0);
		const table = readArrow(file);
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", "x", "temp"]);
		expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array)).toEqual([0n, 0n, 1n, 1n, 2n, 2n]);
		expect(Array.from(table.getChild("x")!.toArray() as Float64Array)).toEqual([0.5, 1.5, 0.5, 1.5, 0.5, 1.5]);
		expect(String(table.getChild("temp")!.type)).toBe("Float32");
		expect(table.getChild("temp")!.toJSON()).toEqual([0, null, 2, 3, null, 0]);
		const conflict = runCli([root, "--columns", "temp,bad", "-o", fresh("never.arrow")]);
		expect(conflict.stderr).toBe('dt64-export: dimension "x" has length 2 in temp and 5 in bad, so they cannot share a table: temp(time=3, x=2), bad(x=5); export them separately, or choose --columns whose dimensions agree [COLUMNS_INCOMPATIBLE]\n');
		expect(conflict.status).toBe(2);
	});

	it("--rename of no column is refused, naming the columns", () => {
		const result = runCli([grid, "--columns", "t2m", "--index", "--rename", "nope=x", "-o", fresh("never.arrow")]);
		expect(result.status).toBe(2);
		expect(result.stderr).toBe("dt64-export: --rename nope: no such column; the columns are time, lat, lon, t2m [USAGE]\n");
	});
});

describe("--order chunk with broadcast variables and coordinate indexes: xarray's rows, chunk by chunk", () => {
	/** A row as one string, its values in the golden's spelling (type-tagged: NaN is not null). */
	const rowsOf = (columns: unknown[][]) => columns[0].map((_, row) => columns.map((column) => `${typeof column[row]}:${String(column[row])}`).join("|"));
	// Each case's columns over every dimension share one chunk shape; the others are held and cut to each chunk.
	const CASES = ["t2m", "broadcast", "static-first", "valid-range", "transposed-static", "transposed-widest-first", "stations", "curvilinear"];

	it.each(CASES)("%s", (name) => {
		const table = EXPECTED[name];
		const file = exportCase(table, "arrow", ["--order", "chunk"]);
		const schema = readArrow(file).schema;
		const df = pl.readIPC(fs.readFileSync(file));
		const actual = table.columns.map((expected) => {
			const field = schema.fields.find((f) => f.name === expected.name)!;
			const series = df.getColumn(expected.name);
			const raw = field.type instanceof Timestamp ? series.cast(pl.Datetime("ns")).cast(pl.Int64).toArray() : series.toArray();
			return raw.map((value) => normalize(expected, value));
		});
		const expected = rowsOf(table.columns.map(expectedValues));
		expect([...rowsOf(actual)].sort()).toEqual([...expected].sort());
		// Chunk order indeed, not the table's C order: every case has chunks that split a row.
		expect(rowsOf(actual)).not.toEqual(expected);
	});

	it("refuses columns over every dimension in different chunk shapes, naming them", () => {
		const result = runCli([path.join(FIXTURES, "grid.zarr"), "--columns", "t2m,tp", "--index", "--order", "chunk", "-o", fresh("never.arrow")]);
		expect(result.stderr).toBe("dt64-export: --order chunk needs every column over all of the table's dimensions read in the same chunk shape, got t2m [2,3,2], tp [4,1,4]: use --order c [COLUMNS_INCOMPATIBLE]\n");
		expect(result.status).toBe(2);
	});
});
