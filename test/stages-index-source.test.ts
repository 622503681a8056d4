/**
 * The staged form (openTable + createTableExportStages) writes the columns the one call (exportTable) writes with
 * the same options: a dimension coordinate named in `columns` is a value column without the index, positions
 * replace the coordinates with `index: "positions"`, and the coordinates are the index with `index: true`. The
 * store is xarray's (test/fixtures/tables/grid.zarr, test/golden/make_table_fixtures.py).
 */
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { createTableExportStages, exportTable, openTable, type ExportOptions, type ZarrTable } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";

const GRID = path.join(REPO, "test/fixtures/tables/grid.zarr");

const viaExportTable = (columns: string[], options: ExportOptions): Promise<Table> => exportedArrow((sink) => exportTable(GRID, sink, { columns, format: "arrow", ...options }));

async function viaStages(columns: string[], options: ExportOptions): Promise<Table> {
	const table = await openTable(GRID, { columns });
	const stages = createTableExportStages(table, { format: "arrow", ...options });
	return exportedArrow((sink) => pipeline(stages.reader, stages.batcher, stages.writer, sink));
}

const contents = (table: Table) => Object.fromEntries(table.schema.fields.map((field, k) => [field.name, [...table.getChildAt(k)!].map(String)]));

describe("the stages of an opened table write the one call's columns", () => {
	it.each([
		[["time", "t2m"], {}, ["time", "t2m"]],
		[["t2m", "lat"], {}, ["t2m", "lat"]],
		[["lon", "t2m", "time"], { unit: "s" }, ["lon", "t2m", "time"]],
		[["t2m"], { index: "positions" }, ["time", "lat", "lon", "t2m"]],
		[["time", "t2m"], { index: true }, ["time", "lat", "lon", "t2m"]],
	] as [string[], ExportOptions, string[]][])("columns %j with %j", async (columns, options, names) => {
		const [one, staged] = await Promise.all([viaExportTable(columns, options), viaStages(columns, options)]);
		expect(one.schema.fields.map((field) => field.name)).toEqual(names);
		expect(staged.schema.fields.map((field) => String(field.type))).toEqual(one.schema.fields.map((field) => String(field.type)));
		expect(contents(staged)).toEqual(contents(one));
	});

	it.each([
		[{}, ["time", "lat", "lon"]],
		[{ index: "positions" }, ["time", "lat", "lon"]],
		[{ index: true }, undefined],
	] as [ExportOptions, string[] | undefined][])("columns all with %j: the staged table names the coordinates it leaves out, as exportTable's does", async (options, leftOut) => {
		let one: ZarrTable | undefined;
		const written = await exportedArrow(async (sink) => {
			one = await exportTable(GRID, sink, { columns: "all", format: "arrow", ...options });
		});
		const opened = await openTable(GRID, { columns: "all" });
		// Opened with the coordinates as its index: none is left out yet.
		expect(opened.coordinatesLeftOut).toBeUndefined();
		const stages = createTableExportStages(opened, { format: "arrow", ...options });
		const staged = await exportedArrow((sink) => pipeline(stages.reader, stages.batcher, stages.writer, sink));
		expect(one!.coordinatesLeftOut).toEqual(leftOut);
		expect(stages.table.coordinatesLeftOut).toEqual(leftOut);
		expect(contents(staged)).toEqual(contents(written));
	});

	it("positions for the index and a coordinate named as a column: both refuse the one name given twice", async () => {
		const refusal = { code: "COLUMNS_INCOMPATIBLE", message: 'the column name "time" is given to both the index of dimension "time" and array time, which a rename by name cannot tell apart (it renames both): leave the array out of `columns`, or export without `index`' };
		await expect(viaExportTable(["time", "t2m"], { index: "positions" })).rejects.toMatchObject(refusal);
		await expect(viaStages(["time", "t2m"], { index: "positions" })).rejects.toMatchObject(refusal);
	});
});
