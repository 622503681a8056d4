/**
 * 360_day and all_leap CF time written by xarray (test/fixtures/calendar-align, made by
 * test/golden/make_calendar_align_fixtures.py), exported with `dropInvalidDates` (`--convert-calendar
 * --drop-invalid-dates`, aligned on the date): every row compared with xarray's
 * `convert_calendar("proleptic_gregorian", align_on="date").to_dataframe()` (the rows of 29 and 30 February left out,
 * a time coordinate's row filter over the other dimension), as a table and as a single array, through the CLI and the
 * library's calls and stages, by time ranges, in partitions and parts of a dataset (manifests and commit count what
 * was left out); read back by polars (IPC) and DuckDB (Parquet). Missing times stay null rows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { tableFromIPC, type Table } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import type { ExportOptions } from "../src/export-plan.js";
import { exportDataset, exportSelection } from "../src/export-selection.js";
import { createTableExportStages, exportToFile } from "../src/export.js";
import { openTable } from "../src/open-table.js";
import { commitDataset } from "../src/output/commit.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { exactNanoseconds } from "./support/exact-nanoseconds.js";

const FIXTURES = path.join(REPO, "test/fixtures/calendar-align");

interface DateCase {
	units: string;
	calendar: string;
	rows: number;
	/** The rows (times) convert_calendar(align_on="date") left out. */
	dropped: number[];
	/** to_dataframe().reset_index(), every row: time as ns text (null: a missing time, kept). */
	frame: { time: (string | null)[]; station: number[]; tas: number[] };
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected-date.json"), "utf8")) as Record<string, DateCase>;
const STATIONS = 2;
const query = useDuckDB();
const work = tempDir("dt64-calendar-drop-");
let fileCount = 0;
const fresh = (name: string) => path.join(work, `${fileCount++}-${name}`);

const exported = (store: string, options: ExportOptions) => {
	let summary: Awaited<ReturnType<typeof exportSelection>> | undefined;
	return exportedArrow(async (sink) => {
		summary = await exportSelection(store, sink, { format: "arrow", ...options });
	}).then((table) => ({ table, summary: summary! }));
};

const TABLE: ExportOptions = { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true };

/** The frame as rows [time, station, tas]. */
const frameRows = (c: DateCase) => c.frame.time.map((time, k) => [time, c.frame.station[k], c.frame.tas[k]]);
const tableRows = (table: Table) => {
	const times = exactNanoseconds(table, "time");
	const stations = Array.from(table.getChild("station")!.toArray() as BigInt64Array, Number);
	const tas = Array.from(table.getChild("tas")!.toArray() as Float32Array);
	return times.map((time, k) => [time, stations[k], tas[k]]);
};

describe.each(Object.entries(CASES))("CF time written by xarray, its dates that do not exist left out: %s", (name, c) => {
	const store = path.join(FIXTURES, `${name}.zarr`);

	it("the table: every row is xarray's convert_calendar(align_on='date').to_dataframe() row; the rows left out counted; missing times kept", async () => {
		const { table, summary } = await exported(store, TABLE);
		expect(tableRows(table)).toEqual(frameRows(c));
		expect(summary.droppedInvalidDates).toBe(c.dropped.length * STATIONS);
		expect(summary.rows).toBe(c.frame.time.length);
		expect(c.dropped.length).toBeGreaterThan(0);
		expect(table.schema.fields[0].metadata.get("zarr.cf_invalid_dates")).toBe("dropped");
		expect(table.schema.fields[0].metadata.get("zarr.cf_align_on")).toBe("date");
	});

	it("the time array alone: its values that are dates left out, the others in order", async () => {
		const { table, summary } = await exported(store, { array: "time", convertCalendar: true, dropInvalidDates: true });
		expect(exactNanoseconds(table, "time")).toEqual(c.frame.time.filter((_, k) => k % STATIONS === 0));
		expect(summary.droppedInvalidDates).toBe(c.dropped.length);
	});
});

describe("dates left out through every path", () => {
	const daily = CASES["daily-leap-common"];
	const dailyStore = path.join(FIXTURES, "daily-leap-common.zarr");

	it("without dropInvalidDates the first 30 February is refused, naming the option; the option needs convertCalendar aligned on the date, and a time coordinate", async () => {
		await expect(exported(dailyStore, { columns: ["tas"], index: true, convertCalendar: true })).rejects.toMatchObject({ code: "VALUE_INVALID", message: expect.stringContaining("`dropInvalidDates` drops the rows") });
		const cli = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "-o", fresh("refused.arrow")]);
		expect(cli.status).toBe(1);
		expect(cli.stderr).toMatch(/--drop-invalid-dates drops the rows.*\[VALUE_INVALID\]\n$/);
		await expect(exported(dailyStore, { columns: ["tas"], index: true, dropInvalidDates: true })).rejects.toMatchObject({ code: "USAGE", option: "dropInvalidDates" });
		await expect(exported(dailyStore, { ...TABLE, alignOn: "year" })).rejects.toMatchObject({ code: "USAGE", option: "dropInvalidDates" });
		// Without the index the time coordinate is not exported: its rows could not be told, so nothing is left out silently.
		await expect(exported(dailyStore, { ...TABLE, index: false })).rejects.toMatchObject({ code: "USAGE", option: "dropInvalidDates", message: expect.stringContaining("`index`") });
		await expect(exported(dailyStore, { ...TABLE, dropInvalidDates: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "USAGE", option: "dropInvalidDates" });
	});

	it("--start/--end select on the converted dates, searched and filtered alike; a date left out counts in the range of its month", async () => {
		// Dropped: 2000-02-30 (row 59), 2001-02-29 and 2001-02-30 (rows 418, 419); each lies at the end of its February.
		for (const [start, end, dropped] of [["2001-02-01", "2001-03-01", 2], ["2001-03-01", "2001-04-01", 0], ["2000-02-15", "2001-02-15", 1], ["2001-02-28", "2001-03-02", 2], ["2000-03-01", "2001-02-01", 0]] as const) {
			const low = BigInt(Date.parse(`${start}T00:00:00Z`)) * 1_000_000n;
			const high = BigInt(Date.parse(`${end}T00:00:00Z`)) * 1_000_000n;
			const expected = frameRows(daily).filter(([time]) => time !== null && BigInt(time as string) >= low && BigInt(time as string) < high);
			for (const rangeSearch of [true, false]) {
				const { table, summary } = await exported(dailyStore, { ...TABLE, start, end, rangeSearch });
				expect(tableRows(table), `${start} ${end} ${rangeSearch}`).toEqual(expected);
				expect(summary.droppedInvalidDates, `${start} ${end} ${rangeSearch}`).toBe(dropped * STATIONS);
			}
		}
	});

	it("the CLI: the summary line, --json and a warning even with -q count the rows left out; IPC read back by polars, Parquet by DuckDB", async () => {
		const ipc = fresh("daily.arrow");
		const result = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--drop-invalid-dates", "-o", ipc]);
		expect(result.status, result.stderr).toBe(0);
		expect(result.stderr).toMatch(/^dt64-export: warning: 6 rows left out \(--drop-invalid-dates\): their time is a date the proleptic Gregorian calendar lacks/);
		expect(result.stderr).toMatch(/wrote 1,434 rows to .*; 6 rows of dates the proleptic Gregorian calendar lacks left out\n$/);
		const df = pl.readIPC(fs.readFileSync(ipc));
		expect(df.getColumn("time").cast(pl.Datetime("ns")).cast(pl.Int64).toArray().map(String)).toEqual(daily.frame.time);
		expect(df.getColumn("tas").toArray()).toEqual(daily.frame.tas);
		const parquet = fresh("daily.parquet");
		const quiet = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--drop-invalid-dates", "-o", parquet, "-q", "--json"]);
		expect(quiet.status, quiet.stderr).toBe(0);
		expect(quiet.stderr).toMatch(/^dt64-export: warning: 6 rows left out/);
		expect(JSON.parse(quiet.stdout.toString())).toMatchObject({ rows: 1434, droppedInvalidDates: 6 });
		const rows = await query(`SELECT epoch_ns("time"), station, tas FROM read_parquet('${parquet}')`);
		expect(rows.map((row) => [String(row[0]), Number(row[1]), Number(row[2])])).toEqual(frameRows(daily));
	});

	it("exportToFile and the stages of an opened table leave the same rows out, and count them", async () => {
		const file = fresh("lib.arrow");
		const written = await exportToFile(dailyStore, file, TABLE);
		expect(written.droppedInvalidDates).toBe(6);
		expect(tableRows(tableFromIPC(fs.readFileSync(file)))).toEqual(frameRows(daily));
		const table = await openTable(dailyStore, { columns: ["tas"], convertCalendar: true });
		const stages = createTableExportStages(table, { index: true, dropInvalidDates: true });
		const sink = new PassThrough();
		const parts: Buffer[] = [];
		sink.on("data", (chunk: Buffer) => parts.push(chunk));
		await pipeline(stages.reader, stages.batcher, stages.writer, sink);
		expect(tableRows(tableFromIPC(Buffer.concat(parts)))).toEqual(frameRows(daily));
		expect(stages.batcher.droppedInvalidDates).toBe(6);
		expect(stages.batcher.rowsOut).toBe(1434);
		// A table opened without converting its calendar has no date to leave out: the stages refuse the option.
		const plain = await openTable(dailyStore, { columns: ["tas"], cf: false });
		expect(() => createTableExportStages(plain, { index: true, dropInvalidDates: true })).toThrow(expect.objectContaining({ code: "USAGE", option: "dropInvalidDates" }));
	});

	it("--partition-by month and parts: each part leaves out its own rows, the manifests count them, commit sums them; DuckDB reads xarray's rows", async () => {
		const folder = fresh("months");
		const result = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--drop-invalid-dates", "--partition-by", "month", "-o", folder, "--json", "-q"]);
		expect(result.status, result.stderr).toBe(0);
		expect(JSON.parse(result.stdout.toString())).toMatchObject({ rows: 1434, droppedInvalidDates: 6, partitions: 24, committed: true });
		const success = JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8"));
		expect(success).toMatchObject({ rows: 1434, droppedInvalidDates: 6 });
		const read = await query(`SELECT epoch_ns("time"), station, tas FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true) ORDER BY tas`);
		expect(read.map((row) => [String(row[0]), Number(row[1]), Number(row[2])])).toEqual(frameRows(daily));

		const parted = fresh("parts");
		const summaries = [];
		for (const index of [0, 1]) summaries.push(await exportDataset(dailyStore, parted, { ...TABLE, part: `${index}/2` }));
		// Part 0 reads rows 0..288 (2000-02-30 among them), part 1 the rest (2001-02-29 and 30).
		expect(summaries.map((summary) => [summary.rows, summary.droppedInvalidDates])).toEqual([
			[574, 2],
			[860, 4],
		]);
		const manifests = ["part-0-of-2.json", "part-1-of-2.json"].map((file) => JSON.parse(fs.readFileSync(path.join(parted, "_parts", file), "utf8")));
		expect(manifests.map((manifest) => [manifest.options.dropInvalidDates, manifest.rowRange, manifest.rows, manifest.droppedInvalidDates])).toEqual([
			[true, { start: 0, end: 288 }, 574, 2],
			[true, { start: 288, end: 720 }, 860, 4],
		]);
		const committed = await commitDataset(parted);
		expect(committed).toMatchObject({ rows: 1434, droppedInvalidDates: 6 });
		const commitLine = runCli(["commit", parted]);
		expect(commitLine.status, commitLine.stderr).toBe(0);
		expect(commitLine.stderr).toMatch(/1,434 rows; 6 rows of dates the proleptic Gregorian calendar lacks left out\n/);
		const rows = await query(`SELECT epoch_ns("time"), station, tas FROM read_parquet('${parted}/*.parquet') ORDER BY tas`);
		expect(rows.map((row) => [String(row[0]), Number(row[1]), Number(row[2])])).toEqual(frameRows(daily));
		// A part that refuses those dates is another export.
		const other = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--part", "0/2", "-o", parted]);
		expect(other.status).toBe(1);
		expect(other.stderr).toMatch(/\[OUTPUT_EXISTS\]/);
	});
});
