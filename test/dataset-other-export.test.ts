/**
 * A part run into a folder that holds the parts of another export (other options: the next day's --start/--end,
 * another store, other columns) refuses, naming what differs and what it would replace, unless asked to overwrite;
 * a retry (the same options) replaces its own files as before (trial 19: 05). And the README's recipe for a dataset
 * that grows by a day at a time, run end to end and read by DuckDB.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { commitDataset, exportDataset } from "../src/index.js";
import { listDataset } from "../src/output/dataset-files.js";
import { runCli, tempDir } from "./support/cli.js";
import { hourlyStore } from "./support/hourly-store.js";
import { useDuckDB } from "./support/duckdb.js";

const query = useDuckDB();

const day = (d: number) => `2021-01-${String(d).padStart(2, "0")}`;

describe("a part run with other options than the parts in the folder (library)", () => {
	it("another range into the folder of part 0/1 refuses, naming the options and the file; the earlier rows stay", async () => {
		const store = await hourlyStore({ name: "t.zarr", hours: 3 * 24, from: "2021-01-01" });
		const folder = path.join(tempDir(), "inc.parquet");
		await exportDataset(store, folder, { partitionBy: "day", start: day(1), end: day(2), part: "0/1" });
		await expect(exportDataset(store, folder, { partitionBy: "day", start: day(2), end: day(3), part: "0/1" })).rejects.toMatchObject({
			code: "OUTPUT_EXISTS",
			path: folder,
			option: "overwrite",
			message: `${folder} holds part 0/1 of another export than this run of part 0/1, with other options: \`start\` 2021-01-01T00:00:00 (this run: 2021-01-02T00:00:00), \`end\` 2021-01-02T00:00:00 (this run: 2021-01-03T00:00:00); this run would replace or remove its 1 file (year=2021/month=1/day=1/part-00000-of-00001.parquet), the rows of that export: write this export to another folder, or run it with \`overwrite\` to replace them`,
		});
		expect(listDataset(folder).dataFiles).toEqual(["year=2021/month=1/day=1/part-00000-of-00001.parquet"]);
		expect(await commitDataset(folder)).toMatchObject({ rows: 24 });
	});

	it("a retry (the same options) replaces its own files; overwrite replaces another export's", async () => {
		const store = await hourlyStore({ name: "t.zarr", hours: 3 * 24, from: "2021-01-01" });
		const folder = path.join(tempDir(), "retry.parquet");
		await exportDataset(store, folder, { partitionBy: "day", start: day(1), end: day(2), part: "0/1" });
		await exportDataset(store, folder, { partitionBy: "day", start: day(1), end: day(2), part: "0/1" });
		expect(await commitDataset(folder)).toMatchObject({ rows: 24 });
		await exportDataset(store, folder, { partitionBy: "day", start: day(2), end: day(3), part: "0/1", overwrite: true });
		expect(listDataset(folder).dataFiles).toEqual(["year=2021/month=1/day=2/part-00000-of-00001.parquet"]);
		expect(await commitDataset(folder)).toMatchObject({ rows: 24, minTime: { iso: "2021-01-02T00:00:00" } });
	});

	it("another store, or another part's other options: refused too", async () => {
		const store = await hourlyStore({ name: "a.zarr", hours: 2 * 24, from: "2021-01-01" });
		const other = await hourlyStore({ name: "b.zarr", hours: 2 * 24, from: "2021-01-01" });
		const folder = path.join(tempDir(), "stores.parquet");
		await exportDataset(store, folder, { partitionBy: "day", part: "0/2" });
		await expect(exportDataset(other, folder, { partitionBy: "day", part: "0/2" })).rejects.toMatchObject({
			code: "OUTPUT_EXISTS",
			message: expect.stringContaining('with other options: store "a.zarr" (this run: "b.zarr"); this run would replace or remove its 1 file'),
		});
		// Part 1/2 has no earlier run, but part 0/2 ran another export: the two could never be committed together.
		await expect(exportDataset(store, folder, { partitionBy: "day", part: "1/2", start: day(2) })).rejects.toMatchObject({
			code: "OUTPUT_EXISTS",
			message: expect.stringContaining("holds part 0/2 of another export than this run of part 1/2, with other options: `start` none (this run: 2021-01-02T00:00:00); this part could not be committed with it"),
		});
		await exportDataset(store, folder, { partitionBy: "day", part: "1/2" });
		expect(await commitDataset(folder)).toMatchObject({ rows: 48 });
	});
	it("a part run with the other parts' options replaces its own earlier run of other options (a repair)", async () => {
		const store = await hourlyStore({ name: "t.zarr", hours: 2 * 24, from: "2021-01-01" });
		const folder = path.join(tempDir(), "repair.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/2` });
		await exportDataset(store, folder, { partitionBy: "day", part: "1/2", end: day(2), overwrite: true });
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringContaining("parts ran different exports") });
		// Part 0/2 agrees with none but its own run: refused, naming part 1/2's options.
		await expect(exportDataset(store, folder, { partitionBy: "day", part: "0/2" })).rejects.toMatchObject({
			code: "OUTPUT_EXISTS",
			message: expect.stringContaining("holds part 1/2 of another export than this run of part 0/2, with other options: `end` 2021-01-02T00:00:00 (this run: none)"),
		});
		await exportDataset(store, folder, { partitionBy: "day", part: "1/2" });
		expect(await commitDataset(folder)).toMatchObject({ rows: 48 });
	});
});

describe("a part run with other options (CLI)", () => {
	it("refuses with exit 1, the options as flags, and --force as the way to replace; --force replaces", async () => {
		const store = await hourlyStore({ name: "t.zarr", hours: 3 * 24, from: "2021-01-01" });
		const folder = path.join(tempDir(), "cli.parquet");
		const run = (d: number, ...more: string[]) => runCli([store, "--partition-by", "day", "--start", day(d), "--end", day(d + 1), "--part", "0/1", "-o", folder, "-q", ...more]);
		expect(run(1).status).toBe(0);
		expect(run(1).status).toBe(0);
		const refused = run(2);
		expect(refused.stderr).toBe(
			`dt64-export: ${folder} holds part 0/1 of another export than this run of part 0/1, with other options: --start 2021-01-01T00:00:00 (this run: 2021-01-02T00:00:00), --end 2021-01-02T00:00:00 (this run: 2021-01-03T00:00:00); this run would replace or remove its 1 file (year=2021/month=1/day=1/part-00000-of-00001.parquet), the rows of that export: write this export to another folder, or run it with --force to replace them [OUTPUT_EXISTS]\n`,
		);
		expect(refused.status).toBe(1);
		expect(listDataset(folder).dataFiles).toEqual(["year=2021/month=1/day=1/part-00000-of-00001.parquet"]);
		expect(run(2, "--force").status).toBe(0);
		expect(listDataset(folder).dataFiles).toEqual(["year=2021/month=1/day=2/part-00000-of-00001.parquet"]);
	});
});

describe("README recipe: a dataset that grows by a day at a time", () => {
	it("one folder per day, date=YYYY-MM-DD, each a one-part dataset committed; retries replace the day; DuckDB reads every day with its date", async () => {
		const store = await hourlyStore({ name: "era5.zarr", hours: 3 * 24, from: "2021-01-01" });
		const dataset = path.join(tempDir(), "t2m-daily");
		// The daily job, as the README gives it: the day's rows, then commit (a retry of either is safe).
		const daily = (d: number) => {
			const folder = path.join(dataset, `date=${day(d)}`);
			const exported = runCli([store, "--start", day(d), "--end", day(d + 1), "--part", "0/1", "-o", folder, "-q"]);
			expect(exported.stderr).toBe("");
			expect(exported.status).toBe(0);
			expect(runCli(["commit", folder, "-q"]).status).toBe(0);
		};
		daily(1);
		daily(2);
		daily(2);
		daily(3);
		const rows = await query(
			`SELECT date::VARCHAR AS date, count(*)::INTEGER AS rows, min("era5")::VARCHAR AS first FROM read_parquet('${dataset}/*/*.parquet', hive_partitioning = true) GROUP BY date ORDER BY date`,
		);
		expect(rows).toEqual([
			["2021-01-01", 24, "2021-01-01 00:00:00"],
			["2021-01-02", 24, "2021-01-02 00:00:00"],
			["2021-01-03", 24, "2021-01-03 00:00:00"],
		]);
		for (const d of [1, 2, 3]) expect(fs.existsSync(path.join(dataset, `date=${day(d)}`, "_SUCCESS"))).toBe(true);
	});
});
