/**
 * The differential corpus (test/fixtures/differential, made by test/golden/make_differential_corpus.py): small random
 * stores of five families as xarray and zarr-python write them, each with what xarray 2023.01 decodes, or the exact
 * value where xarray is known to be off (README, Differences from xarray). Every time array alone and the table of
 * `--columns all --index` are exported through the library to Arrow IPC (read back by apache-arrow), and those of the
 * Parquet subset to Parquet (read back by DuckDB), and compared with the oracle: column names and order, row count,
 * kinds and every value and null in row order. An expected refusal is checked by its code; a time array refused for
 * TRUNCATION is exported again with `rounding` "floor" and "nearest" (--allow-truncate, --round; `--unit auto`) and
 * compared with its exact values floored / rounded half to even in the unit written (leftovers 11), to Arrow IPC and to
 * Parquet, and so is the `--columns all --index` table of such a store with the same flags (leftovers 12). The maintainers' campaign
 * over any number of seeds is scripts/differential (README, Development).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { arrowColumns, oracleDifferences, parquetColumns, roundedDifferences, roundedTableDifferences } from "../scripts/differential/oracle-columns.mjs";
import { exportTable, exportToFile } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

/** `DT64_DIFFERENTIAL_CORPUS` runs the same checks over another folder the generator wrote (`--out`). */
const CORPUS = path.resolve(REPO, process.env.DT64_DIFFERENTIAL_CORPUS || "test/fixtures/differential");

interface OracleColumn {
	kind: string;
	source: string;
	values: (string | boolean | null)[];
}

interface Refusal {
	refusal: string | string[];
	why: string;
	/** A TRUNCATION's exact values floored / rounded half to even, per unit that holds them (integer ns). */
	kind?: string;
	rounded?: Record<"floor" | "nearest", Record<string, (string | null)[]>>;
}

interface OracleTable {
	columns: string[];
	rows: number;
	data: Record<string, OracleColumn>;
}

/** A table refused for TRUNCATION: what `rounding` "floor" and "nearest" export (a TRUNCATION column per unit). */
type RoundedTables = Record<"floor" | "nearest", { columns: string[]; rows: number; data: Record<string, OracleColumn | { kind: string; source: string; rounded: Record<string, (string | null)[]> }> }>;

interface Oracle {
	family: string;
	seed: number;
	options: Record<string, unknown>;
	arrays: Record<string, (OracleColumn & { refusal?: undefined }) | Refusal>;
	table: OracleTable | (Refusal & { rounded?: RoundedTables });
	parquet: boolean;
}

const STORES = fs
	.readdirSync(CORPUS)
	.filter((name) => fs.existsSync(path.join(CORPUS, name, "oracle.json")))
	.sort();
const oracleOf = (name: string) => JSON.parse(fs.readFileSync(path.join(CORPUS, name, "oracle.json"), "utf8")) as Oracle;
const query = useDuckDB();
const work = tempDir("dt64-differential-");
let files = 0;

/** The store's exports to compare: each time array alone, then the table. */
function exportsOf(oracle: Oracle): { what: string; options: Record<string, unknown>; expected: OracleTable | Refusal }[] {
	const out: { what: string; options: Record<string, unknown>; expected: OracleTable | Refusal }[] = [];
	for (const [name, array] of Object.entries(oracle.arrays)) {
		const expected = array.refusal === undefined ? { columns: [name], rows: array.values.length, data: { [name]: array } } : array;
		out.push({ what: `array ${name}`, options: { array: name }, expected });
	}
	out.push({ what: "table", options: { columns: "all", index: true }, expected: oracle.table });
	return out;
}

/**
 * A Parquet file's columns read back by DuckDB, with the units of the same export to Arrow (`arrow`): Parquet keeps no
 * duration type, and writes seconds as milliseconds; a rounded column's oracle values are those of its Arrow unit.
 */
async function parquetColumnsAs(file: string, arrow: { name: string; kind: string; unit?: string }[]) {
	const durations = Object.fromEntries(arrow.filter((column) => column.kind === "delta").map((column) => [column.name, column.unit]));
	const units = new Map(arrow.map((column) => [column.name, column.unit]));
	return (await parquetColumns(query, file, durations)).map((column: { name: string }) => ({ ...column, unit: units.get(column.name) }));
}

/** The export rejects with one of the codes of the refusal. */
async function expectRefusal(run: Promise<unknown>, refusal: Refusal, what: string): Promise<void> {
	const codes = Array.isArray(refusal.refusal) ? refusal.refusal : [refusal.refusal];
	const error = await run.then(
		() => undefined,
		(thrown: { code?: string; message?: string }) => thrown,
	);
	expect(error, `${what} should be refused (${codes}): ${refusal.why}`).toBeDefined();
	expect(codes, `${what}: ${error?.message}`).toContain(error?.code);
	expect(error?.message, "one line").not.toContain("\n");
}

describe("the differential corpus", () => {
	it("holds stores of every family", () => {
		const families = new Set(STORES.map((name) => name.split("-")[0]));
		expect([...families].sort()).toEqual(["dt64", "mix", "model", "raw", "xr"]);
	});

	it.each(STORES)("%s: every time array and the table, to Arrow IPC, equal the oracle", async (name) => {
		const oracle = oracleOf(name);
		const store = path.join(CORPUS, name, "store.zarr");
		for (const { what, options, expected } of exportsOf(oracle)) {
			const run = exportedArrow((sink) => exportTable(store, sink, { format: "arrow", ...oracle.options, ...options }));
			if ("refusal" in expected) {
				await expectRefusal(run, expected, what);
				continue;
			}
			expect(oracleDifferences(expected, arrowColumns(await run)), what).toEqual([]);
		}
	});

	// A float count between two ns: --allow-truncate and --round, with auto's unit, give the exact value floored or
	// rounded half to even in the unit the column is written in (the generator's Fractions).
	const truncating = STORES.flatMap((name) =>
		Object.entries(oracleOf(name).arrays)
			.filter(([, array]) => array.refusal === "TRUNCATION")
			.map(([array]) => [name, array]),
	);
	it("holds time arrays refused for TRUNCATION, with their rounded values", () => {
		expect(truncating.length).toBeGreaterThan(0);
	});
	it.each(truncating)("%s: array %s with --allow-truncate and --round equals its exact values floored / rounded in the unit written, to Arrow IPC and to Parquet", async (name, array) => {
		const oracle = oracleOf(name);
		const store = path.join(CORPUS, name, "store.zarr");
		const expected = oracle.arrays[array] as Refusal;
		expect(expected.rounded, "the generator's rounded values").toBeDefined();
		for (const rounding of ["floor", "nearest"] as const) {
			const columns = arrowColumns(await exportedArrow((sink) => exportTable(store, sink, { format: "arrow", ...oracle.options, array, rounding })));
			expect(roundedDifferences(array, expected, rounding, columns), rounding).toEqual([]);
			if (!oracle.parquet) continue;
			// Parquet read back by DuckDB, in the unit of the same export to Arrow (Parquet writes s as ms).
			const file = path.join(work, `${files++}.parquet`);
			await exportToFile(store, file, { ...oracle.options, array, rounding });
			expect(roundedDifferences(array, expected, rounding, await parquetColumnsAs(file, columns)), `${rounding}, Parquet`).toEqual([]);
		}
	});

	// The table of such a store, refused for TRUNCATION, exported with the same flags: its other columns as the oracle
	// has them, each TRUNCATION column floored / rounded in the unit written.
	const roundedTables = STORES.filter((name) => {
		const table = oracleOf(name).table;
		return "refusal" in table && table.rounded !== undefined;
	});
	it("holds tables refused for TRUNCATION alone, with their rounded tables", () => {
		expect(roundedTables.length).toBeGreaterThan(0);
	});
	it.each(roundedTables)("%s: the table (columns all, index) with --allow-truncate and --round, to Arrow IPC and to Parquet, equals its rounded table", async (name) => {
		const oracle = oracleOf(name);
		const store = path.join(CORPUS, name, "store.zarr");
		for (const rounding of ["floor", "nearest"] as const) {
			const options = { ...oracle.options, columns: "all", index: true, rounding } as const;
			const columns = arrowColumns(await exportedArrow((sink) => exportTable(store, sink, { format: "arrow", ...options })));
			expect(roundedTableDifferences(oracle.table, rounding, columns), rounding).toEqual([]);
			if (!oracle.parquet) continue;
			const file = path.join(work, `${files++}.parquet`);
			await exportToFile(store, file, options);
			expect(roundedTableDifferences(oracle.table, rounding, await parquetColumnsAs(file, columns)), `${rounding}, Parquet`).toEqual([]);
		}
	});

	// Parquet for every other store DuckDB can read (times within its years), through exportToFile.
	const parquetStores = STORES.filter((name, i) => i % 2 === 0 && oracleOf(name).parquet);
	it.each(parquetStores)("%s: the same exports to Parquet, read back by DuckDB, equal the oracle", async (name) => {
		const oracle = oracleOf(name);
		const store = path.join(CORPUS, name, "store.zarr");
		for (const { what, options, expected } of exportsOf(oracle)) {
			if ("refusal" in expected) continue;
			// Parquet keeps no duration type: the units of the durations are those of the same export to Arrow.
			const arrow = arrowColumns(await exportedArrow((sink) => exportTable(store, sink, { format: "arrow", ...oracle.options, ...options })));
			const units = Object.fromEntries(arrow.filter((column) => column.kind === "delta").map((column) => [column.name, column.unit]));
			const file = path.join(work, `${files++}.parquet`);
			await exportToFile(store, file, { ...oracle.options, ...options });
			expect(oracleDifferences(expected, await parquetColumns(query, file, units)), what).toEqual([]);
		}
	});
});
