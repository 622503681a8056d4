/**
 * A coordinate's cell bounds never compete with it for the time column (test/fixtures/bounds-selection, made by
 * test/golden/make_bounds_selection_fixtures.py with xarray 2023.01): `time_bnds(time, nv)` without units decodes
 * with time's (CF bounds), yet `--columns all --start/--end` and `--partition-by day` select by `time`, the rows
 * `ds.sel(time=...)` gives; time_bnds is the time column only when named. A second genuine time variable still makes
 * the choice the user's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportDataset, exportTable, exportToFile } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/bounds-selection");

interface Expected {
	store: string;
	two_times_store: string;
	own_units_stores: string[];
	range: { start: string; last: string; columns: XarrayColumn[] };
	days: Record<string, XarrayColumn[]>;
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const TWO_TIMES = path.join(FIXTURES, EXPECTED.two_times_store);
const { start } = EXPECTED.range;
// xarray's slice ends include the last instant (06:00); the export's end is excluded: the next hour.
const END = "2000-01-02T07";

/** The table's columns as xarray's frame spells them, by name. */
function frameOf(table: Table, columns: readonly XarrayColumn[]): Record<string, (number | string | null)[]> {
	expect(table.schema.fields.map((field) => field.name)).toEqual(columns.map((column) => column.name));
	return Object.fromEntries(columns.map((column, k) => [column.name, exportedValues(table, k, column)]));
}

const expectedFrame = (columns: readonly XarrayColumn[]) => Object.fromEntries(columns.map((column) => [column.name, xarrayValues(column)]));

/** Each day's partition file of a dataset folder (format arrow), by the day's ISO date. */
function dayFiles(folder: string): Record<string, string> {
	const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".arrow"));
	return Object.fromEntries(
		files.map((file) => {
			const [, year, month, day] = /year=(\d+)\/month=(\d+)\/day=(\d+)\//.exec(file)!;
			return [`${year}-${month.padStart(2, "0")}-${day.padStart(2, "0")}`, path.join(folder, file)];
		}),
	);
}

describe("a coordinate's bounds are no rival time column", () => {
	it("library: columns all with index, start and end select by time, as ds.sel(time=slice(...))", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: "all", index: true, start, end: END, format: "arrow", unit: "ms" }));
		expect(frameOf(table, EXPECTED.range.columns)).toEqual(expectedFrame(EXPECTED.range.columns));
	});

	it("CLI: --columns all --index --start --end select by time, as ds.sel(time=slice(...))", () => {
		const out = path.join(tempDir(), "range.arrow");
		const result = runCli([STORE, "--columns", "all", "--index", "--start", start, "--end", END, "--unit", "ms", "-o", out]);
		expect(result.status, result.stderr).toBe(0);
		expect(frameOf(readArrow(out), EXPECTED.range.columns)).toEqual(expectedFrame(EXPECTED.range.columns));
	});

	it("library and CLI: --partition-by day partitions by time, each day's rows as ds.sel(time=day)", async () => {
		const library = path.join(tempDir(), "library-days");
		await exportDataset(STORE, library, { columns: "all", index: true, partitionBy: "day", format: "arrow", unit: "ms" });
		const cli = path.join(tempDir(), "cli-days");
		const result = runCli([STORE, "--columns", "all", "--index", "--partition-by", "day", "--to", "arrow", "--unit", "ms", "-o", cli]);
		expect(result.status, result.stderr).toBe(0);
		for (const folder of [library, cli]) {
			const files = dayFiles(folder);
			expect(Object.keys(files).sort()).toEqual(Object.keys(EXPECTED.days).sort());
			for (const [day, columns] of Object.entries(EXPECTED.days)) expect(frameOf(readArrow(files[day]), columns), day).toEqual(expectedFrame(columns));
		}
	});

	it("without index columns, the bounds are not the time column unless named or exported alone", async () => {
		const out = path.join(tempDir(), "no-index.arrow");
		const result = runCli([STORE, "--columns", "all", "--start", start, "-o", out]);
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/no time column .* \(time_bnds holds time's cell bounds, a time column only when --time-column names it\) \[USAGE\]\n$/);
		const named = await exportedArrow((sink) => exportTable(STORE, sink, { columns: ["time_bnds"], start, end: END, timeColumn: "time_bnds", format: "arrow", unit: "ms" }));
		// Every bound in [12:00, 07:00 the next day), each a row of the table (time, nv).
		const kept = [...named.getChildAt(0)!].map((value) => new Date(Number(value)).toISOString());
		expect(kept).toEqual(["2000-01-01T12:00:00.000Z", "2000-01-01T12:00:00.000Z", "2000-01-02T00:00:00.000Z", "2000-01-02T00:00:00.000Z"]);
		// Exported alone, the array's own times select its rows, as any time array's.
		const alone = path.join(tempDir(), "alone.arrow");
		const run = runCli([STORE, "--array", "time_bnds", "--start", start, "--end", END, "--unit", "ms", "-o", alone]);
		expect(run.status, run.stderr).toBe(0);
		expect([...readArrow(alone).getChildAt(0)!].map((value) => new Date(Number(value)).toISOString())).toEqual(kept);
	});

	it("bounds with units of their own (xarray's encoding of instants) are no time column without index columns either", async () => {
		// Without --index the coordinate time is in no column, so only its `bounds` attribute says what time_bnds is
		// (trial 31: the export selected by time_bnds's own times: 7 of its 8 values are at or after the start, where
		// ds.sel(time=slice(start, None)) keeps 3 of the 4 times).
		for (const store of EXPECTED.own_units_stores.map((name) => path.join(FIXTURES, name))) {
			const result = runCli([store, "--columns", "all", "--start", start, "-o", path.join(tempDir(), "no-index.arrow")]);
			expect(result.status, store).toBe(2);
			expect(result.stderr).toMatch(/no time column .* \(time_bnds holds time's cell bounds, a time column only when --time-column names it\) \[USAGE\]\n$/);
			await expect(exportedArrow((sink) => exportTable(store, sink, { columns: ["tas", "time_bnds"], start, format: "arrow" }))).rejects.toThrow(
				"time_bnds holds time's cell bounds, a time column only when `timeColumn` names it",
			);
			// Named, its own times select its rows, as those of the bounds without units do; with --index, time selects.
			const named = await exportedArrow((sink) => exportTable(store, sink, { columns: ["time_bnds"], start, end: END, timeColumn: "time_bnds", format: "arrow", unit: "ms" }));
			expect([...named.getChildAt(0)!].map((value) => new Date(Number(value)).toISOString())).toEqual(["2000-01-01T12:00:00.000Z", "2000-01-01T12:00:00.000Z", "2000-01-02T00:00:00.000Z", "2000-01-02T00:00:00.000Z"]);
			const indexed = await exportedArrow((sink) => exportTable(store, sink, { columns: "all", index: true, start, end: END, format: "arrow", unit: "ms" }));
			expect(frameOf(indexed, EXPECTED.range.columns)).toEqual(expectedFrame(EXPECTED.range.columns));
		}
	});

	it("two genuine time variables are still refused, naming both and not the bounds (library and CLI)", async () => {
		await expect(exportedArrow((sink) => exportTable(TWO_TIMES, sink, { columns: "all", index: true, start, format: "arrow" }))).rejects.toThrow(
			"several time columns (time, valid): name one as `timeColumn`",
		);
		const result = runCli([TWO_TIMES, "--columns", "all", "--index", "--partition-by", "day", "-o", path.join(tempDir(), "days")]);
		expect(result.status).toBe(2);
		expect(result.stderr).toContain("several time columns (time, valid): name one as --time-column [USAGE]");
	});
});

describe("discovery of the one time array beside a boundary variable of units of its own", () => {
	it("finds time, not time_bnds (xarray 2023.01's datetime bounds), consolidated and not: library and CLI", async () => {
		for (const store of EXPECTED.own_units_stores.map((name) => path.join(FIXTURES, name))) {
			const named = path.join(tempDir(), "named.arrow");
			await exportToFile(store, named, { array: "time" });
			const found = path.join(tempDir(), "found.arrow");
			await exportToFile(store, found);
			expect(readArrow(found).numRows, store).toBe(4);
			expect(fs.readFileSync(found)).toEqual(fs.readFileSync(named));
			const out = path.join(tempDir(), "cli.arrow");
			const result = runCli([store, "-o", out]);
			expect(result.status, result.stderr).toBe(0);
			expect(readArrow(out).schema.fields.map((field) => field.name)).toEqual(["time"]);
			expect(fs.readFileSync(out)).toEqual(fs.readFileSync(named));
		}
	});

	it("two time coordinates, one with bounds of their own units: the refusal lists the two, and says the bounds were left aside", async () => {
		const store = path.join(tempDir(), "two-with-bounds.zarr");
		await writeGroup(store, "");
		const hours = (n: number, from: number) => BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i * 3600));
		await writeArray(store, "time", { shape: [4], chunks: [4], values: hours(4, 946684800), dimensionNames: ["time"], attributes: { bounds: "time_bnds" } });
		await writeArray(store, "time_bnds", { shape: [4, 2], chunks: [4, 2], values: new Float64Array(8).map((_, i) => i / 2), dataType: "float64", fillValue: "NaN", dimensionNames: ["time", "nv"], attributes: { units: "hours since 2000-01-01", calendar: "proleptic_gregorian" } });
		await writeArray(store, "valid", { shape: [4], chunks: [4], values: hours(4, 946684800 + 10800), dimensionNames: ["time"] });
		const result = runCli([store, "-o", path.join(tempDir(), "x.arrow")]);
		expect(result.status).toBe(2);
		expect(result.stderr).toBe(`dt64-export: ${store}: the group holds several time arrays (datetime64 or CF time): time, valid (their boundary variable time_bnds left aside); choose one with --array [ARRAY_AMBIGUOUS]\n`);
		await expect(exportToFile(store, path.join(tempDir(), "y.arrow"))).rejects.toMatchObject({ code: "ARRAY_AMBIGUOUS", candidates: ["time", "valid"] });
	});
});
