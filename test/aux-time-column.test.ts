/**
 * An auxiliary time coordinate and its cell bounds (test/fixtures/aux-time, made by test/golden/make_aux_time_fixtures.py
 * with xarray 2023.01): a forecast's `valid_time(time, step)` with `bounds: "valid_bnds"`, and `valid_bnds(time, step,
 * nv)` with units of its own, in a store with consolidated metadata and one without. Rows are selected by the time an
 * xarray user selects by, `ds.sel(time=...)` (valid_time has no index: `ds.sel(valid_time=...)` raises); the bounds
 * and the auxiliary coordinate are the time column only when named, with or without consolidated metadata.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { exportDataset, exportTable, inspectStore, openTimeArray } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";
import { serveFolder } from "./support/served-folder.js";
import { writeStoredZip } from "./support/zip.js";

const FIXTURES = path.join(REPO, "test/fixtures/aux-time");
const http = serveFolder(FIXTURES);

interface Expected {
	stores: string[];
	range: { start: string; last: string; columns: XarrayColumn[] };
	days: Record<string, XarrayColumn[]>;
	valid_time_sel: string;
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const [CONSOLIDATED, PLAIN] = EXPECTED.stores.map((name) => path.join(FIXTURES, name));
const { start } = EXPECTED.range;
// xarray's slice ends include the last instant (2000-01-02T00:00); the export's end is excluded: the next hour.
const END = "2000-01-02T01";
const iso = (table: Table, k: number) => [...table.getChildAt(k)!].map((value) => new Date(Number(value)).toISOString());

describe("an auxiliary coordinate's cell bounds (valid_bnds of a 2-D valid_time) are never the time column unless named", () => {
	it("without consolidated metadata as with it: --columns valid_bnds with --start or --partition-by is refused, naming --time-column", () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			const ranged = runCli([store, "--columns", "valid_bnds", "--start", start, "-o", path.join(tempDir(), "bnds.arrow")]);
			expect(ranged.status, store).toBe(2);
			expect(ranged.stderr.split("\n")).toHaveLength(2);
			// What discovery knows on both stores (valid_time's bounds), said the same (leftovers15: 3): without consolidated
			// metadata the refusal said only that valid_bnds "may hold a coordinate's cell bounds".
			expect(ranged.stderr, store).toBe(
				"dt64-export: no time column (datetime64 or CF time) to select or partition rows by among valid_bnds (a dimension's time coordinate is one with index columns: --index) (valid_bnds holds valid_time's cell bounds, a time column only when --time-column names it) [USAGE]\n",
			);
			const days = runCli([store, "--columns", "valid_bnds", "--partition-by", "day", "-o", path.join(tempDir(), "days")]);
			expect(days.status, store).toBe(2);
			expect(days.stderr).toContain("a time column only when --time-column names it) [USAGE]");
		}
	});

	it("the refusal names the coordinate whose bounds they are wherever the group is read whole cheaply (a folder, a zip); over HTTP what they may be", async () => {
		const refusal = "(valid_bnds holds valid_time's cell bounds, a time column only when `timeColumn` names it)";
		const zipped = path.join(tempDir(), "forecast-plain.zip");
		writeStoredZip(PLAIN, zipped);
		for (const store of [CONSOLIDATED, PLAIN, zipped]) {
			await expect(exportedArrow((sink) => exportTable(store, sink, { columns: ["valid_bnds"], start, format: "arrow" })), store).rejects.toThrow(refusal);
			const days = runCli([store, "--columns", "valid_bnds", "--partition-by", "day", "-o", path.join(tempDir(), "days")]);
			expect(days.stderr, store).toContain("(valid_bnds holds valid_time's cell bounds, a time column only when --time-column names it) [USAGE]\n");
		}
		// Over HTTP, reading the group whole would be a request per array: what it may be is said, and why.
		await expect(exportedArrow((sink) => exportTable(`${http.server.url}/forecast-plain.zarr`, sink, { columns: ["valid_bnds"], start, format: "arrow" }))).rejects.toThrow(
			"(valid_bnds may hold a coordinate's cell bounds: two values along the last dimension, which has no coordinate array, and no consolidated metadata to say whose; a time column only when `timeColumn` names it)",
		);
	});

	it("library: the same refusal (option timeColumn); named, the bounds' own times select their rows, the same in both stores", async () => {
		const kept: string[][] = [];
		for (const store of [CONSOLIDATED, PLAIN]) {
			await expect(exportedArrow((sink) => exportTable(store, sink, { columns: ["valid_bnds"], start, format: "arrow" }))).rejects.toMatchObject({ code: "USAGE", option: "timeColumn" });
			const named = await exportedArrow((sink) => exportTable(store, sink, { columns: ["valid_bnds"], start, end: END, timeColumn: "valid_bnds", format: "arrow", unit: "ms" }));
			kept.push(iso(named, 0));
		}
		expect(kept[1]).toEqual(kept[0]);
		expect(kept[0].every((instant) => instant >= "2000-01-01T06" && instant < "2000-01-02T01")).toBe(true);
		// valid_time 00, 06, ... 42 (+-3 h): the ends 09, 09, 15, 15, 21, 21 are in [06:00, 01:00 the next day).
		expect(kept[0]).toEqual(["09", "09", "15", "15", "21", "21"].map((hour) => `2000-01-01T${hour}:00:00.000Z`));
	});

	it("discovery (no --array) and inspect take them as valid_time's bounds without consolidated metadata as with it", async () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			const found = runCli([store, "-o", path.join(tempDir(), "found.arrow")]);
			expect(found.stderr, store).toBe(
				`dt64-export: ${store}: the group holds several time arrays (datetime64 or CF time): time, valid_time (their boundary variable valid_bnds left aside); choose one with --array [ARRAY_AMBIGUOUS]\n`,
			);
			await expect(openTimeArray(store)).rejects.toMatchObject({ code: "ARRAY_AMBIGUOUS", candidates: ["time", "valid_time"] });
			const report = await inspectStore(store);
			const bounds = report.nodes.find((node) => node.path === "valid_bnds");
			expect(bounds, store).toMatchObject({ boundsOf: "valid_time", boundsOwnUnits: true, cfTime: "hours since 1999-12-31 21:00:00, proleptic_gregorian" });
			expect(report.nodes.filter((node) => node.boundsOf !== undefined).map((node) => node.path)).toEqual(["valid_bnds"]);
			const text = String(runCli(["inspect", store]).stdout);
			expect(text).toContain("\n  bounds of   valid_time (CF cell boundaries with times of their own: the time array or time column only when named)\n");
		}
	});

	it("exported alone (--array valid_bnds), its own times select its rows, as any time array's", () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			const out = path.join(tempDir(), "alone.arrow");
			const run = runCli([store, "--array", "valid_bnds", "--start", start, "--end", END, "--unit", "ms", "-o", out]);
			expect(run.status, run.stderr).toBe(0);
			expect(readArrow(out).numRows).toBe(6);
		}
	});
});

/** The table's columns as xarray's frame spells them, by name. */
function frameOf(table: Table, columns: readonly XarrayColumn[]): Record<string, (number | string | null)[]> {
	expect(table.schema.fields.map((field) => field.name)).toEqual(columns.map((column) => column.name));
	return Object.fromEntries(columns.map((column, k) => [column.name, exportedValues(table, k, column)]));
}

const expectedFrame = (columns: readonly XarrayColumn[]) => Object.fromEntries(columns.map((column) => [column.name, xarrayValues(column)]));

describe("--columns all selects rows by the dimension coordinate time, as ds.sel(time=...), never by the auxiliary valid_time unless named", () => {
	it("xarray cannot select by valid_time (no index), which the golden script records", () => {
		expect(EXPECTED.valid_time_sel).toBe(`KeyError: "no index found for coordinate 'valid_time'"`);
	});

	it("--columns all --index --start/--end: the rows of ds.sel(time=slice(...)), consolidated or not (library and CLI)", async () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			const table = await exportedArrow((sink) => exportTable(store, sink, { columns: "all", index: true, start, end: END, format: "arrow", unit: "ms" }));
			expect(frameOf(table, EXPECTED.range.columns), store).toEqual(expectedFrame(EXPECTED.range.columns));
			const out = path.join(tempDir(), "range.arrow");
			const result = runCli([store, "--columns", "all", "--index", "--start", start, "--end", END, "--unit", "ms", "-o", out]);
			expect(result.status, result.stderr).toBe(0);
			expect(frameOf(readArrow(out), EXPECTED.range.columns)).toEqual(expectedFrame(EXPECTED.range.columns));
		}
	});

	it("--columns all --index --partition-by day: each day's rows as ds.sel(time=day)", async () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			const folder = path.join(tempDir(), "days");
			await exportDataset(store, folder, { columns: "all", index: true, partitionBy: "day", format: "arrow", unit: "ms" });
			const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".arrow"));
			const byDay = Object.fromEntries(
				files.map((file) => {
					const [, year, month, day] = /year=(\d+)\/month=(\d+)\/day=(\d+)\//.exec(file)!;
					return [`${year}-${month.padStart(2, "0")}-${day.padStart(2, "0")}`, path.join(folder, file)];
				}),
			);
			expect(Object.keys(byDay).sort()).toEqual(Object.keys(EXPECTED.days).sort());
			for (const [day, columns] of Object.entries(EXPECTED.days)) expect(frameOf(readArrow(byDay[day]), columns), day).toEqual(expectedFrame(columns));
		}
	});

	it("--columns all without --index: refused, naming --index and valid_time for --time-column (as --columns t2m is), consolidated or not", async () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			for (const columns of [["--columns", "all"], ["--columns", "t2m"]]) {
				const out = path.join(tempDir(), "no-index.arrow");
				const result = runCli([store, ...columns, "--start", start, "-o", out]);
				expect(result.status, `${store} ${columns}`).toBe(2);
				expect(result.stderr.split("\n")).toHaveLength(2);
				expect(result.stderr).toContain("(a dimension's time coordinate is one with index columns: --index) (valid_time is an auxiliary coordinate, a time column only when --time-column names it: xarray selects by dimension coordinates)");
				expect(fs.existsSync(out)).toBe(false);
			}
			await expect(exportedArrow((sink) => exportTable(store, sink, { columns: "all", start, format: "arrow" }))).rejects.toMatchObject({ code: "USAGE", option: "timeColumn" });
		}
	});

	it("named, valid_time selects: the rows whose valid time is in the range, the same in both stores", async () => {
		const kept: string[][] = [];
		for (const store of [CONSOLIDATED, PLAIN]) {
			const table = await exportedArrow((sink) => exportTable(store, sink, { columns: "all", start, end: END, timeColumn: "valid_time", format: "arrow", unit: "ms" }));
			expect(table.schema.fields.map((field) => field.name)).toEqual(["t2m", "valid_bnds", "valid_time"]);
			kept.push(iso(table, 2));
		}
		expect(kept[1]).toEqual(kept[0]);
		// valid_time 00, 06, ... 42: 06, 12, 18 and 24 (the next day's 00:00) are in [06:00, 01:00 the next day), two rows each (nv).
		expect(kept[0]).toEqual(["06", "06", "12", "12", "18", "18"].map((hour) => `2000-01-01T${hour}:00:00.000Z`).concat(["2000-01-02T00:00:00.000Z", "2000-01-02T00:00:00.000Z"]));
	});
});

/** The golden range frame's columns of these names, in its order. */
const rangeColumns = (names: readonly string[]) => EXPECTED.range.columns.filter((column) => names.includes(column.name));

describe("bounds with times of their own named in --columns: decoded by their own units, as xarray; never the time column unless --time-column names them (robust36: 4)", () => {
	it("--columns valid_bnds --index and --columns valid_bnds,valid_time --index: xarray's values for those columns, selected by time, consolidated or not (library and CLI)", async () => {
		for (const store of [CONSOLIDATED, PLAIN]) {
			for (const columns of [["valid_bnds"], ["valid_bnds", "valid_time"]]) {
				const expected = rangeColumns(["time", "step", "nv", ...columns]);
				const table = await exportedArrow((sink) => exportTable(store, sink, { columns, index: true, timeColumn: "time", start, end: END, format: "arrow", unit: "ms" }));
				expect(frameOf(table, expected), `${store} ${columns}`).toEqual(expectedFrame(expected));
				const out = path.join(tempDir(), "named.arrow");
				const result = runCli([store, "--columns", columns.join(","), "--index", "--time-column", "time", "--start", start, "--end", END, "--unit", "ms", "-o", out]);
				expect(result.status, result.stderr).toBe(0);
				expect(frameOf(readArrow(out), expected)).toEqual(expectedFrame(expected));
				// Its own units in its field metadata, not its coordinate's.
				expect(readArrow(out).schema.fields.find((field) => field.name === "valid_bnds")?.metadata.get("units")).toBe("hours since 1999-12-31 21:00:00");
			}
		}
	});

	it("beside their coordinate they make no second time column: --columns valid_time,valid_bnds --start selects by valid_time, a cell's two bounds kept together", async () => {
		const kept: string[][] = [];
		for (const store of [CONSOLIDATED, PLAIN]) {
			for (const columns of [["valid_time", "valid_bnds"], ["valid_bnds", "valid_time"]]) {
				const table = await exportedArrow((sink) => exportTable(store, sink, { columns, start, end: END, format: "arrow", unit: "ms" }));
				const time = columns.indexOf("valid_time");
				kept.push(iso(table, time));
				// Each valid time twice (nv 0 and 1), its bounds 3 h either side.
				const bounds = iso(table, 1 - time);
				expect(bounds.filter((_, k) => k % 2 === 0).map((instant) => Date.parse(instant) + 3 * 3_600_000)).toEqual(kept[kept.length - 1].filter((_, k) => k % 2 === 0).map((instant) => Date.parse(instant)));
			}
		}
		for (const rows of kept) expect(rows).toEqual(kept[0]);
		expect(kept[0]).toEqual(["06", "06", "12", "12", "18", "18"].map((hour) => `2000-01-01T${hour}:00:00.000Z`).concat(["2000-01-02T00:00:00.000Z", "2000-01-02T00:00:00.000Z"]));
	});
});
