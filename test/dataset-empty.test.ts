/**
 * A range with no rows (trial 19: 06): a part that selects nothing writes one file of no rows with the columns, so
 * that a dataset of no rows is a table of 0 rows to DuckDB and polars rather than a folder they refuse ("No files
 * found", "expanded paths were empty"); partitioned, that file is at the depth of the others, so DuckDB's
 * hive_partitioning reads a dataset whose other parts have rows too, and in the partition of the range's start
 * (trial 29: 01), so that DuckDB and polars type the partition keys as integers, as for a dataset with rows: from
 * the null partition's folder alone they read strings, and `WHERE year >= 2021` fails. The CLI says so in a warning.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { commitDataset, exportDataset } from "../src/index.js";
import { listDataset } from "../src/output/dataset-files.js";
import { runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const query = useDuckDB();

const T0 = BigInt(Date.UTC(2021, 0, 30) / 1000);
const NULL_DAY = "year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__";
/** The partition of `--start 2025-01-01` by day. */
const START_DAY = "year=2025/month=1/day=1";

/** 96 hourly times from 2021-01-30 with a value column, in chunks of 12 rows. */
async function hourlyStore(): Promise<string> {
	const store = path.join(tempDir(), "obs.zarr");
	const times = BigInt64Array.from({ length: 96 }, (_, i) => T0 + BigInt(i) * 3600n);
	await writeArray(store, "time", { shape: [96], chunks: [12], values: times, dimensionNames: ["time"] });
	await writeArray(store, "t2m", { shape: [96], chunks: [12], values: Float64Array.from({ length: 96 }, (_, i) => i / 2), dataType: "float64", fillValue: "NaN", dimensionNames: ["time"] });
	return store;
}

const PARTITION_KEYS = ["year", "month", "day"];

/** DuckDB's rows and columns of a dataset, read as the README says. */
async function duckdb(folder: string): Promise<{ rows: unknown; columns: unknown[] }> {
	const source = `read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`;
	const [[rows]] = await query(`SELECT count(*)::INTEGER FROM ${source}`);
	// The partition columns in name order: DuckDB orders them as it finds them.
	const columns = (await query(`DESCRIBE SELECT * FROM ${source}`)).map((row) => row[0] as string);
	return { rows, columns: [...columns.filter((name) => !PARTITION_KEYS.includes(name)), ...columns.filter((name) => PARTITION_KEYS.includes(name)).sort()] };
}

function polars(folder: string): { rows: number; columns: string[] } {
	const frame = pl.scanParquet(`${folder}/**/*.parquet`, { hivePartitioning: true } as never).collectSync();
	return { rows: frame.height, columns: frame.columns };
}

describe("a dataset of no rows", () => {
	it("partitioned: one empty file in the partition of the range's start; DuckDB and polars read 0 rows with the columns", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "empty.parquet");
		const summary = await exportDataset(store, folder, { columns: ["time", "t2m"], partitionBy: "day", start: "2025-01-01" });
		expect(summary).toMatchObject({ rows: 0, files: [{ path: `${START_DAY}/part-00000-of-00001.parquet`, rows: 0 }], committed: { rows: 0, files: 1 } });
		expect(await duckdb(folder)).toEqual({ rows: 0, columns: ["time", "t2m", "day", "month", "year"] });
		expect(polars(folder)).toMatchObject({ rows: 0, columns: expect.arrayContaining(["time", "t2m"]) });
	});

	it("partitioned: the partition keys are integers to DuckDB and polars, as with rows, so a filter on them runs", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "typed.parquet");
		await exportDataset(store, folder, { columns: ["time", "t2m"], partitionBy: "day", start: "2025-01-01" });
		const source = `read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`;
		const types = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${source}) WHERE column_name IN ('year', 'month', 'day') ORDER BY 1`);
		expect(types).toEqual([["day", "BIGINT"], ["month", "BIGINT"], ["year", "BIGINT"]]);
		const [[count]] = await query(`SELECT count(*)::INTEGER FROM ${source} WHERE year >= 2021 AND month > 2`);
		expect(count).toBe(0);
		const frame = pl.scanParquet(`${folder}/**/*.parquet`, { hivePartitioning: true } as never).filter(pl.col("year").gtEq(2021)).collectSync();
		expect(frame.height).toBe(0);
		expect(["year", "month", "day"].map((key) => String(frame.getColumn(key).dtype))).toEqual(["DataType(Int64)", "DataType(Int64)", "DataType(Int64)"]);
	});

	it("partitioned with an end alone: the file is in the partition of the range's last instant", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "before.parquet");
		const summary = await exportDataset(store, folder, { columns: ["time", "t2m"], partitionBy: "month", end: "2020-03-01" });
		expect(summary.files).toEqual([expect.objectContaining({ path: "year=2020/month=2/part-00000-of-00001.parquet", rows: 0 })]);
	});

	it("partitioned without a time range: a part of no rows writes its file in the null partition", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "unranged.parquet");
		// 8 chunks of 12 rows in 16 slices balanced on chunks: every other slice holds none, the first among them.
		const summary = await exportDataset(store, folder, { columns: ["time", "t2m"], partitionBy: "day", part: "0/16" });
		expect(summary).toMatchObject({ rows: 0, files: [{ path: `${NULL_DAY}/part-00000-of-00016.parquet`, rows: 0 }] });
	});

	it("not partitioned: the empty file at the top", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "flat.parquet");
		await exportDataset(store, folder, { columns: ["time", "t2m"], start: "2025-01-01", part: "0/1" });
		expect(listDataset(folder).dataFiles).toEqual(["part-00000-of-00001.parquet"]);
		expect(await commitDataset(folder)).toMatchObject({ rows: 0, files: 1 });
		expect(await duckdb(folder)).toEqual({ rows: 0, columns: ["time", "t2m"] });
		expect(polars(folder)).toEqual({ rows: 0, columns: ["time", "t2m"] });
	});

	it("one part of two empty: its file is at the depth of the others, and readers read the other part's rows", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "half.parquet");
		// Five hours of one chunk: part 1/2 reads the chunk, part 0/2 nothing.
		const options = { columns: ["time", "t2m"], partitionBy: "day", start: "2021-01-31T02:00", end: "2021-01-31T07:00" } as const;
		for (const k of [0, 1]) await exportDataset(store, folder, { ...options, part: `${k}/2` });
		expect(listDataset(folder).dataFiles).toEqual(["year=2021/month=1/day=31/part-00000-of-00002.parquet", "year=2021/month=1/day=31/part-00001-of-00002.parquet"]);
		expect(await commitDataset(folder)).toMatchObject({ rows: 5, files: 2 });
		expect(await duckdb(folder)).toEqual({ rows: 5, columns: ["time", "t2m", "day", "month", "year"] });
		const [[nullDays]] = await query(`SELECT count(*)::INTEGER FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true) WHERE day IS NULL`);
		expect(nullDays).toBe(0);
		expect(polars(folder).rows).toBe(5);
	});

	it("CLI: a warning line for the part, and for commit, even with -q", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "cli.parquet");
		const run = runCli([store, "--columns", "time,t2m", "--partition-by", "day", "--start", "2025-01-01", "--part", "0/1", "-o", folder, "-q"]);
		expect(run.stderr).toBe(`dt64-export: warning: part 0/1 of ${folder} selected no rows: it wrote one file of no rows with the columns (${START_DAY}/part-00000-of-00001.parquet), which readers read as 0 rows\n`);
		expect(run.status).toBe(0);
		const commit = runCli(["commit", folder, "-q"]);
		expect(commit.stderr).toBe(`dt64-export: warning: ${folder} holds no rows: every part selected none (readers read it as a table of 0 rows)\n`);
		expect(commit.status).toBe(0);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(true);
	});
});
