/**
 * The auxiliary coordinates xarray attaches to a selection of variables (test/fixtures/coordinates, written by
 * xarray 2023.01 with test/golden/make_coordinates_fixtures.py): `--columns <names>` exports the table of
 * `ds[names].to_dataframe()`, its coordinates named by CF `coordinates` attributes (the variables' and the group's)
 * after the variables, with and without the index, in one call, through the stages and from the CLI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { createTableExportStages, exportTable, openTable, type ExportOptions } from "../src/index.js";
import { declaredCoordinates } from "../src/table/attached-coordinates.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";
import { pipeline } from "node:stream/promises";

const FIXTURES = path.join(REPO, "test/fixtures/coordinates");

interface Selection {
	names: string[];
	columns: XarrayColumn[];
	without_index: string[];
}

interface Expected {
	store: string;
	interrupted_store: string;
	refused: string;
	range: { start: string; end: string; rows: number; time: string[] };
	selections: Selection[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);

const exported = (names: string[], options: ExportOptions = {}, store = STORE): Promise<Table> =>
	exportedArrow((sink) => exportTable(store, sink, { columns: names, index: true, format: "arrow", unit: "ms", nanAsNull: true, ...options }));

const namesOf = (table: Table) => table.schema.fields.map((field) => field.name);

/** xarray's values, strings as they are (station names). */
const expectedValues = (column: XarrayColumn) => (column.dtype === "object" ? column.values : xarrayValues(column));
const valuesOf = (table: Table, k: number, column: XarrayColumn) => (column.dtype === "object" ? [...table.getChildAt(k)!] : exportedValues(table, k, column));

describe("the coordinates of the columns asked for, as ds[names].to_dataframe() has them", () => {
	for (const selection of EXPECTED.selections) {
		it(`${selection.names.join(", ")}: xarray's columns, in its order, with its values`, async () => {
			const table = await exported(selection.names);
			expect(namesOf(table)).toEqual(selection.columns.map((column) => column.name));
			for (const [k, column] of selection.columns.entries()) expect(valuesOf(table, k, column), column.name).toEqual(expectedValues(column));
		});

		it(`${selection.names.join(", ")}: without the index, xarray's frame's columns`, async () => {
			expect(namesOf(await exported(selection.names, { index: false }))).toEqual(selection.without_index);
		});
	}

	it("the stages of a table opened already write the same columns", async () => {
		const [selection] = EXPECTED.selections;
		const table = await openTable(STORE, { columns: selection.names });
		expect(table.columns.map((column) => [column.name, column.coordinate === true])).toEqual([
			["tas", false],
			["height", true],
			["lat", true],
			["lon", true],
			["valid_time", true],
		]);
		for (const index of [true, false]) {
			const written = await exportedArrow(async (sink) => {
				const stages = createTableExportStages(table, { format: "arrow", unit: "ms", index });
				await pipeline(stages.reader, stages.batcher, stages.writer, sink);
			});
			expect(namesOf(written)).toEqual(index ? selection.columns.map((column) => column.name) : selection.without_index);
		}
	});

	it("a time coordinate beside the time index is the time column only when named", async () => {
		const { range } = EXPECTED;
		const byIndex = await exported(["tas"], { start: range.start, end: range.end });
		expect(byIndex.numRows).toBe(range.rows);
		expect([...byIndex.getChild("time")!].map((value) => new Date(Number(value)).toISOString())).toEqual(range.time.map((value) => `${value.slice(0, 23)}Z`));
		// valid_time is six hours after time: [06:00, 06:00 the next day) of valid_time is that day of time.
		const byCoordinate = await exported(["tas"], { start: "2024-01-02T06:00", end: "2024-01-03T06:00", timeColumn: "valid_time" });
		expect([...byCoordinate.getChild("time")!].map((value) => new Date(Number(value)).toISOString())).toEqual(range.time.map((value) => `${value.slice(0, 23)}Z`));
	});

	it("the CLI: --columns tas --index writes them, named after tas; --rename renames a coordinate", () => {
		const dir = tempDir();
		const result = runCli([STORE, "--columns", "tas", "--index", "--rename", "lat=latitude"], { cwd: dir });
		expect(result.stderr).toBe("wrote 18 rows to tas.arrow\n");
		expect(result.status).toBe(0);
		expect(namesOf(readArrow(path.join(dir, "tas.arrow")))).toEqual(["time", "y", "x", "tas", "height", "latitude", "lon", "valid_time"]);
	});
});

describe("a dimension's coordinate of another length than its dimension (an interrupted append)", () => {
	const store = path.join(FIXTURES, EXPECTED.interrupted_store);

	it("xarray refuses to open it", () => {
		expect(EXPECTED.refused).toMatch(/conflicting sizes for dimension 'time'/);
	});

	it("the index is refused as the same arrays named together are, not replaced by positions", async () => {
		for (const columns of [["t2m"], ["t2m", "time"]]) {
			await expect(exported(columns, {}, store), columns.join()).rejects.toMatchObject({ code: "COLUMNS_INCOMPATIBLE", message: expect.stringMatching(/dimension "time" has length 8 in t2m and 6 in (its coordinate array )?time/) });
		}
		// Positions asked for look no coordinate up.
		expect((await exported(["t2m"], { index: "positions" }, store)).numRows).toBe(16);
	});
});

describe("which arrays are coordinates (xarray's decode_coords)", () => {
	const holds = (name: string) => ["lat", "lon", "height", "site"].includes(name);

	it("a variable's attribute counts only when the group holds every array it names", () => {
		expect([...declaredCoordinates([{ attributes: { coordinates: "lat  lon\theight" } }], {}, holds)]).toEqual(["lat", "lon", "height"]);
		expect([...declaredCoordinates([{ attributes: { coordinates: "lat gone" } }], {}, holds)]).toEqual([]);
		expect([...declaredCoordinates([{ attributes: { coordinates: 3 } }], {}, holds)]).toEqual([]);
	});

	it("the group's attribute counts name by name", () => {
		expect([...declaredCoordinates([{ attributes: {} }], { coordinates: "site gone" }, holds)]).toEqual(["site"]);
	});
});
