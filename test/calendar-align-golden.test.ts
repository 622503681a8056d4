/**
 * 360_day CF time written by xarray (test/fixtures/calendar-align, made by
 * test/golden/make_calendar_align_fixtures.py), exported with `alignOn: "year"` (`--convert-calendar --align-on
 * year`): every value compared exactly with xarray's `convert_calendar("proleptic_gregorian", align_on="year")`,
 * as a single array, as a table's index coordinate (every row kept, in order), by time ranges (searched and
 * filtered), in partitions and parts of a dataset; read back by polars (IPC) and DuckDB (Parquet).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import type { ExportOptions } from "../src/export-plan.js";
import { exportSelection } from "../src/export-selection.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { exactNanoseconds } from "./support/exact-nanoseconds.js";

const FIXTURES = path.join(REPO, "test/fixtures/calendar-align");

interface AlignCase {
	units: string;
	dtype: string;
	rows: number;
	instants: (string | null)[];
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, AlignCase>;
const STATIONS = 2;
const query = useDuckDB();
const work = tempDir("dt64-calendar-align-");
let fileCount = 0;
const fresh = (name: string) => path.join(work, `${fileCount++}-${name}`);

const exported = (store: string, options: ExportOptions): Promise<Table> => exportedArrow((sink) => exportSelection(store, sink, { format: "arrow", ...options }));


/** An ISO bound's instant in ns since 1970 (UTC, a whole day). */
const dayNs = (iso: string) => String(BigInt(Date.parse(`${iso}T00:00:00Z`)) * 1_000_000n);
const inRange = (instants: (string | null)[], start: string, end: string) =>
	instants.flatMap((value, row) => (value !== null && BigInt(value) >= BigInt(dayNs(start)) && BigInt(value) < BigInt(dayNs(end)) ? [row] : []));

describe.each(Object.entries(CASES))("360_day CF time written by xarray, aligned on the year: %s", (name, c) => {
	const store = path.join(FIXTURES, `${name}.zarr`);

	it("the time array: every value is xarray's convert_calendar(align_on='year'), exactly; the field says how it was aligned", async () => {
		const table = await exported(store, { array: "time", convertCalendar: true, alignOn: "year" });
		expect(exactNanoseconds(table, "time")).toEqual(c.instants);
		expect(table.schema.fields[0].metadata.get("zarr.cf_align_on")).toBe("year");
		expect(table.schema.fields[0].metadata.get("calendar")).toBe("360_day");
	});

	it("the table's index coordinate: every row kept, in order, with its values (xarray's np.unique drops none)", async () => {
		const table = await exported(store, { columns: ["tas"], index: true, convertCalendar: true, alignOn: "year" });
		expect(table.numRows).toBe(c.rows * STATIONS);
		expect(exactNanoseconds(table, "time")).toEqual(c.instants.flatMap((value) => [value, value]));
		expect(Array.from(table.getChild("tas")!.toArray() as Float32Array)).toEqual(Array.from({ length: c.rows * STATIONS }, (_, k) => k));
	});
});

describe("align on the year through every path", () => {
	const daily = CASES["daily-leap-common"];
	const dailyStore = path.join(FIXTURES, "daily-leap-common.zarr");

	it("without alignOn (date), daily 360_day data is refused at its first 30 February, naming alignOn", async () => {
		await expect(exported(dailyStore, { array: "time", convertCalendar: true })).rejects.toMatchObject({ code: "VALUE_INVALID", index: 59, message: expect.stringMatching(/is the date 2000-02-30 of the 360_day calendar.*`alignOn` year moves every date by its day of the year/) });
		await expect(exported(dailyStore, { array: "time", convertCalendar: true, alignOn: "date" })).rejects.toMatchObject({ code: "VALUE_INVALID", index: 59 });
		const result = runCli([dailyStore, "--array", "time", "--convert-calendar", "-o", fresh("date.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/--align-on year moves every date by its day of the year, as xarray's align_on="year" does; .*\(--no-cf\) \[VALUE_INVALID\]\n$/);
	});

	it("--start/--end select by the aligned dates, searched and filtered alike; the ties of round(N × doy / 360) included", async () => {
		// 2000 (366 days): 360_day day 30 is Jan 30 (30.5 → 30), day 31 Feb 1 (31.5... → 32): Jan 31 has no row.
		// 2001 (365 days): day 36 is Feb 5 (36.5 → 36), day 37 Feb 7 (37.51 → 38): Feb 6 has no row.
		for (const [start, end] of [["2000-01-30", "2000-02-02"], ["2001-02-05", "2001-02-08"], ["2000-02-28", "2000-03-02"], ["2000-12-30", "2001-01-02"]] as const) {
			const rows = inRange(daily.instants, start, end);
			for (const rangeSearch of [true, false]) {
				const table = await exported(dailyStore, { columns: ["tas"], index: true, convertCalendar: true, alignOn: "year", start, end, rangeSearch });
				expect(exactNanoseconds(table, "time"), `${start} ${end} ${rangeSearch}`).toEqual(rows.flatMap((row) => [daily.instants[row], daily.instants[row]]));
			}
		}
		expect(inRange(daily.instants, "2000-01-31", "2000-02-01")).toEqual([]);
		expect(inRange(daily.instants, "2001-02-06", "2001-02-07")).toEqual([]);
	});

	it("a long sorted 360_day time (more than 2^20 values, searched by probes): the rows of a range are xarray's", async () => {
		// Six-hourly counts of `hours since 1850-02-30` from 1900 on, among them every count of the golden store's.
		const golden = CASES["six-hourly-odd-reference"];
		const goldenStore = path.join(FIXTURES, "six-hourly-odd-reference.zarr");
		const first = (1900 - 1850) * 360 * 24;
		const length = (1 << 20) + 50_000;
		const store = path.join(work, "long.zarr");
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [length], chunks: [20_000], values: Int32Array.from({ length }, (_, k) => first + 6 * k), dataType: "int32", fillValue: 0, attributes: { units: "hours since 1850-02-30", calendar: "360_day" }, dimensionNames: ["time"] });
		const goldenCounts = Array.from((await exported(goldenStore, { columns: ["time"], cf: false })).getChild("time")!.toArray() as Float64Array);
		expect(goldenCounts.every((count, row) => count === goldenCounts[0] + 6 * row && (count - first) % 6 === 0)).toBe(true);
		for (const [start, end] of [["2000-02-28", "2000-03-02"], ["2000-12-31", "2001-01-02"], ["2000-01-31", "2000-02-01"]] as const) {
			const rows = inRange(golden.instants, start, end);
			const table = await exported(store, { array: "time", convertCalendar: true, alignOn: "year", start, end });
			expect(exactNanoseconds(table, "time"), `${start} ${end}`).toEqual(rows.map((row) => golden.instants[row]));
		}
	});

	it("--partition-by month: IPC read back by polars, the Parquet dataset by DuckDB, each month's rows where xarray puts them", async () => {
		const ipc = fresh("daily.arrow");
		expect(runCli([dailyStore, "--array", "time", "--convert-calendar", "--align-on", "year", "-o", ipc, "-q"]).status).toBe(0);
		const df = pl.readIPC(fs.readFileSync(ipc));
		expect(df.getColumn("time").cast(pl.Datetime("ns")).cast(pl.Int64).toArray().map(String)).toEqual(daily.instants);
		const folder = fresh("months");
		const result = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--align-on", "year", "--partition-by", "month", "-o", folder, "--json"]);
		expect(result.status, result.stderr).toBe(0);
		expect(JSON.parse(result.stdout.toString())).toMatchObject({ rows: daily.rows * STATIONS, partitions: 24, committed: true });
		const rows = await query(`SELECT year, month, count(*), min(epoch_ns("time")), max(epoch_ns("time")), count(DISTINCT "time") FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true) GROUP BY year, month ORDER BY year, month`);
		const months = new Map<string, bigint[]>();
		for (const value of daily.instants) {
			const date = new Date(Number(BigInt(value!) / 1_000_000n));
			const key = `${date.getUTCFullYear()}-${date.getUTCMonth() + 1}`;
			months.set(key, [...(months.get(key) ?? []), BigInt(value!)]);
		}
		expect(rows.map((row) => [`${row[0]}-${row[1]}`, Number(row[2]), String(row[3]), String(row[4]), Number(row[5])])).toEqual(
			[...months].map(([key, values]) => [key, values.length * STATIONS, String(values[0]), String(values[values.length - 1]), values.length]),
		);
		// January 2000 has 30 rows: Jan 31 is no aligned date.
		expect(months.get("2000-1")).toHaveLength(30);
	});

	it("--part 0/2 and 1/2, then commit: every row once; the manifests record the alignment and row ranges, a part aligned on the date is another export", async () => {
		const folder = fresh("parts");
		for (const part of ["0/2", "1/2"]) {
			const result = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--align-on", "year", "--part", part, "-o", folder, "-q"]);
			expect(result.status, result.stderr).toBe(0);
		}
		expect(runCli(["commit", folder, "-q"]).status).toBe(0);
		const rows = await query(`SELECT epoch_ns("time"), tas FROM read_parquet('${folder}/*.parquet') ORDER BY tas`);
		expect(rows.map((row) => String(row[0]))).toEqual(daily.instants.flatMap((value) => [value, value]));
		const manifests = ["part-0-of-2.json", "part-1-of-2.json"].map((file) => JSON.parse(fs.readFileSync(path.join(folder, "_parts", file), "utf8")));
		expect(manifests.map((manifest) => [manifest.options.alignOn, manifest.rowRange, manifest.rows])).toEqual([
			["year", { start: 0, end: 288 }, 576],
			["year", { start: 288, end: 720 }, 864],
		]);
		// A part aligned on the date is another export: refused before anything is read, naming the option.
		const other = runCli([dailyStore, "--columns", "tas", "--index", "--convert-calendar", "--part", "0/2", "-o", folder]);
		expect(other.status).toBe(1);
		expect(other.stderr).toMatch(/--align-on.*\[OUTPUT_EXISTS\]/);
	});
});
