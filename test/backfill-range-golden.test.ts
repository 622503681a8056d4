/**
 * A time range over a daily archive appended by xarray a day per chunk and backfilled last (test/fixtures/trial18,
 * made by test/golden/make_trial18_fixtures.py), finding 06 of the eighteenth trial: the time coordinate's 200
 * chunks were more than the search read whole, and a range after the last chunk's day (the backfill's) was answered
 * empty from two probes, exit 0, a dataset committed empty; a range inside the days appended before the backfill lost
 * half its rows. Read whole (200 values, whatever the chunks), the time is found out of order and every row is
 * filtered: xarray's rows by mask, for every range, in a file and in a dataset.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { listDataset } from "../src/output/dataset-files.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/trial18");
const STORE = path.join(FIXTURES, "backfill.zarr");
const { ranges } = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as { ranges: Record<string, { time: string[]; lat: number[]; t2m: number[] }> };
const query = useDuckDB();

/** Rows as `time lat t2m` text, sorted: xarray's mask keeps the store's order, the export too, but compared as sets. */
const rowsText = (time: string[], lat: number[], t2m: number[]) => time.map((t, i) => `${t} ${lat[i]} ${t2m[i]}`).sort();

describe("a time range over xarray's append-by-day archive with a backfill (finding 06)", () => {
	it.each(Object.entries(ranges))("[%s): xarray's rows, the time said unsorted", (key, expected) => {
		const [start, end] = key.split("/");
		const out = path.join(tempDir(), "range.arrow");
		const run = runCli([STORE, "--columns", "t2m", "--index", "--start", start, ...(end === "" ? [] : ["--end", end]), "--unit", "ns", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/the time column is not sorted \(block 149 and block 150 of the time array are out of order\): every row was read and filtered/);
		expect(expected.time.length).toBeGreaterThan(0);
		const table = readArrow(out);
		const time = Array.from(table.getChild("time")!.toArray() as BigInt64Array, String);
		const lat = Array.from(table.getChild("lat")!.toArray() as Float64Array);
		const t2m = Array.from(table.getChild("t2m")!.toArray() as Float32Array);
		expect(rowsText(time, lat, t2m)).toEqual(rowsText(expected.time, expected.lat, expected.t2m));
	});

	it("a dataset by month from 2022-06-01 commits xarray's 98 rows, not an empty dataset", async () => {
		const folder = path.join(tempDir(), "ds");
		const run = runCli([STORE, "--columns", "t2m", "--index", "--start", "2022-06-01", "--partition-by", "month", "--to", "parquet", "-o", folder]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/committed/);
		expect(listDataset(folder).dataFiles).toHaveLength(2);
		const [row] = await query(`SELECT count(*), min(time)::VARCHAR, max(time)::VARCHAR FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`);
		expect(row.map(String)).toEqual([String(ranges["2022-06-01/"].time.length), "2022-06-01 00:00:00", "2022-07-19 00:00:00"]);
	});
});
