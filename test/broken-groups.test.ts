/**
 * Groups xarray refuses to open once something else touched them (trial 18: 09, 10), written by xarray and zarr 2.13
 * (test/golden/make_broken_group_fixtures.py): a dimension coordinate cut short by an interrupted append is refused
 * as xarray refuses it, never replaced by positions in a column of its name; arrays without dimension names added
 * beside named variables are matched to the named variables' dimensions by shape, never the other way round.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportTable } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { runCli, tempDir } from "./support/cli.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "broken-groups");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8"));
const interrupted = path.join(FIXTURES, "interrupted.zarr");
const unnamed = path.join(FIXTURES, "unnamed.zarr");

describe("a dimension coordinate of another length than the data (an interrupted append)", () => {
	it("is refused, as xarray refuses the dataset, with --index and with --columns all (it was int64 positions named time)", async () => {
		expect(expected.interrupted.xarray).toContain("conflicting sizes for dimension 'time': length 6 on 'time' and length 8");
		const refusal = {
			code: "COLUMNS_INCOMPATIBLE",
			message: expect.stringContaining('dimension "time" has length 8 in t2m and 6 in its coordinate array time, so they cannot share a table (xarray refuses the dataset: conflicting sizes'),
		};
		for (const columns of [["t2m"], "all"] as const) {
			await expect(exportedArrow((sink) => exportTable(interrupted, sink, { columns: columns as string[] | "all", index: true }))).rejects.toMatchObject(refusal);
		}
		const cli = runCli([interrupted, "--columns", "t2m", "--index", "-o", path.join(tempDir(), "t.parquet")]);
		expect([cli.status, cli.stderr.trim()]).toEqual([2, expect.stringMatching(/^dt64-export: dimension "time" has length 8 .*: write the coordinate again, or take positions for the index \(--index positions\) \[COLUMNS_INCOMPATIBLE\]$/)]);
	});

	it("positions asked for still export (they name no coordinate), and a range then says why there is no time", async () => {
		const table = await exportedArrow((sink) => exportTable(interrupted, sink, { columns: ["t2m"], index: "positions" }));
		expect([...table.getChild("time")!].map(Number)).toEqual([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]);
		await expect(exportedArrow((sink) => exportTable(interrupted, sink, { columns: ["t2m"], index: "positions", start: "2024-01-02" }))).rejects.toThrow(
			/\(time, lat are position indexes, which hold no time: a dimension.s time coordinate is one with coordinate index columns/,
		);
	});

	it("a dimension with no coordinate array at all: the range's refusal says so, not that positions were asked for", async () => {
		await expect(exportedArrow((sink) => exportTable(unnamed, sink, { columns: ["mask"], index: true, start: "2024-01-02" }))).rejects.toThrow(
			/no time column .* \(dim_0, dim_1 have no coordinate array in the group: their indexes are positions, which hold no time\)/,
		);
	});
});

describe("arrays without dimension names beside named variables, under columns all", () => {
	it("take the named variables' dimensions when their shape is the table's; others are left out saying what the table is", async () => {
		expect(expected.unnamed.xarray).toContain("missing the attribute `_ARRAY_DIMENSIONS`");
		let leftOut: readonly string[] = [];
		const table = await exportedArrow(async (sink) => {
			leftOut = (await exportTable(unnamed, sink, { columns: "all", index: true, unit: "ms" })).leftOut;
		});
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", "lat", "extra", "mask", "t2m"]);
		expect(leftOut).toEqual(["w [2] (no dimension names): without dimension names, its shape is not the table's shape [8,2] (time, lat, from t2m)"]);
		const columns = expected.unnamed.columns as Record<string, string[]>;
		expect([...table.getChild("time")!].map((value) => new Date(Number(value)).toISOString())).toEqual(columns.time.map((value) => `${value.slice(0, 23)}Z`));
		for (const name of ["lat", "extra", "t2m"]) expect([...table.getChild(name)!].map(Number)).toEqual(columns[name].map(Number));
		expect([...table.getChild("mask")!].map(Number)).toEqual(expected.unnamed.mask.map(Number));
	});
});
