/**
 * Time ranges, partitions and parts on CF-encoded time, as xarray writes it: a CF time array alone, and the time
 * coordinate of an N-d variable (`--index`). Bounds are exact against the instants xarray/cftime decode
 * (test/fixtures/cf/expected.json); the rows of a range are those xarray selects (test/fixtures/scale/expected.json,
 * test/golden/make_scale_fixtures.py); pruning is proven by counting HTTP reads, as for datetime64
 * (time-range.test.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { formatIsoTimestamp } from "../src/convert/iso8601.js";
import type { ExportOptions } from "../src/export-plan.js";
import { exportSelection } from "../src/export-selection.js";
import { parsePart, partFromEnvironment } from "../src/select/part.js";
import { parseTimeBound, parseTimeBounds } from "../src/select/time-bounds.js";
import { boundsInUnit } from "../src/select/time-filter.js";
import { runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { startServer, type TestServer } from "./support/http-server.js";
import { runCliAsync } from "./support/run-cli-async.js";

const query = useDuckDB();
const CF = "test/fixtures/cf";
const SCALE = "test/fixtures/scale";
const cfExpected = JSON.parse(fs.readFileSync(path.join(CF, "expected.json"), "utf8")) as Record<string, { instants?: (string | null)[] }>;

interface RangeExpectation {
	readonly start: string | null;
	readonly end: string | null;
	readonly rows: number;
	readonly time_min: string | null;
	readonly time_max: string | null;
	readonly values: number;
	readonly sum: number;
	readonly days: Record<string, number>;
}
const scaleExpected = JSON.parse(fs.readFileSync(path.join(SCALE, "expected.json"), "utf8")) as Record<string, { var: string; ranges: RangeExpectation[] }>;

/** The rows of the first column of an in-process export of the store's time range to Arrow IPC, as raw int64. */
async function exportedTimes(store: string, options: ExportOptions): Promise<(bigint | null)[]> {
	const sink = new PassThrough();
	const chunks: Buffer[] = [];
	sink.on("data", (chunk: Buffer) => chunks.push(chunk));
	await exportSelection(store, sink, { format: "arrow", ...options });
	const out: (bigint | null)[] = [];
	for (const batch of tableFromIPC(Buffer.concat(chunks)).batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}

const NS_PER: Record<"s" | "ns", bigint> = { s: 1_000_000_000n, ns: 1n };
const iso = (ns: bigint) => formatIsoTimestamp(ns, "ns");

describe("bounds are exact on CF time: the value equal to start is in, the one equal to end is out", () => {
	// Each case: a store of xarray's, the unit its instants fit (years before 1678 do not fit nanoseconds), and the
	// index pairs whose instants are the bounds.
	const CASES: { name: string; what: string; unit: "s" | "ns"; pairs: [number, number][]; convertCalendar?: boolean }[] = [
		{ name: "hourly", what: "int64 hours, one chunk", unit: "ns", pairs: [[3, 5], [0, 47], [46, 47]] },
		{ name: "chunked", what: "int64 hours in chunks of 7 (searched across chunks)", unit: "ns", pairs: [[6, 7], [7, 21], [13, 99], [50, 51]] },
		{ name: "nat-float", what: "float64 days with NaN", unit: "ns", pairs: [[0, 2], [2, 2]] },
		{ name: "float-hours", what: "float64 fractional hours, unsorted, with NaN", unit: "ns", pairs: [[2, 1], [4, 3], [1, 5]] },
		{ name: "julian-modern", what: "julian calendar", unit: "ns", pairs: [[1, 3], [0, 4]] },
		{ name: "standard-crossing", what: "standard calendar across 1582-10-15", unit: "s", pairs: [[2, 10], [9, 22]] },
		{ name: "noleap", what: "noleap, converted", unit: "ns", pairs: [[1, 2], [2, 4]], convertCalendar: true },
	];
	for (const { name, what, unit, pairs, convertCalendar } of CASES) {
		it(`${name} (${what})`, async () => {
			const instants = cfExpected[name].instants!.map((value) => (value === null ? null : BigInt(value)));
			const store = path.join(CF, `${name}.zarr`);
			for (const [a, b] of pairs) {
				const start = instants[a]!;
				const end = b === a ? start + 1n : instants[b]!;
				const expected = instants.filter((t): t is bigint => t !== null && t >= start && t < end).map((t) => t / NS_PER[unit]);
				expect(expected.length, `${name} [${a}, ${b})`).toBeGreaterThan(0);
				const rows = await exportedTimes(store, { start: iso(start), end: iso(end), unit, convertCalendar });
				expect(rows, `${name} [${iso(start)}, ${iso(end)})`).toEqual(expected);
				// One nanosecond later at both ends: the value at start is out, the value at end is in.
				const shifted = instants.filter((t): t is bigint => t !== null && t > start && t <= end).map((t) => t / NS_PER[unit]);
				expect(await exportedTimes(store, { start: iso(start + 1n), end: iso(end + 1n), unit, convertCalendar })).toEqual(shifted);
			}
		});
	}

	it("a model calendar is refused without conversion, naming the calendar; the CLI names --convert-calendar", async () => {
		await expect(exportedTimes(path.join(CF, "noleap.zarr"), { start: "2001-03-01" })).rejects.toMatchObject({ code: "CALENDAR_UNSUPPORTED" });
		const run = runCli([path.join(CF, "noleap.zarr"), "--start", "2001-03-01", "-o", path.join(tempDir(), "x.arrow")]);
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/^dt64-export: .*"noleap" is a model calendar.*--convert-calendar/);
	});

	it("CF durations are no time column; --no-cf leaves none", async () => {
		await expect(exportedTimes(path.join(CF, "timedelta.zarr"), { start: "2001" })).rejects.toMatchObject({ code: "USAGE", option: "timeColumn" });
		await expect(exportedTimes(path.join(CF, "hourly.zarr"), { columns: ["t2m"], index: true, cf: false, start: "2020" })).rejects.toMatchObject({ code: "USAGE", option: "timeColumn" });
	});
});

describe("the CF time coordinate of an xarray dataset selects the rows xarray selects", () => {
	for (const [store, { var: variable, ranges }] of Object.entries(scaleExpected)) {
		for (const range of ranges) {
			it(`${store} [${range.start ?? "…"}, ${range.end ?? "…"})`, async () => {
				const out = path.join(tempDir(), "range.parquet");
				const bounds = [...(range.start === null ? [] : ["--start", range.start]), ...(range.end === null ? [] : ["--end", range.end])];
				const run = await runCliAsync([path.join(SCALE, store), "--columns", variable, "--index", ...bounds, "-o", out, "-q"]);
				expect(run.status, run.stderr).toBe(0);
				// NaN stays NaN (xarray's masked value): xarray's count and sum leave it out, so the query does.
				const real = `NOT isnan(${variable})`;
				const [row] = await query(`SELECT count(*), min(epoch_ns(time))::VARCHAR, max(epoch_ns(time))::VARCHAR, count(*) FILTER (WHERE ${real}), coalesce(sum(${variable}) FILTER (WHERE ${real}), 0) FROM read_parquet('${out}')`);
				expect(row.map((value) => (value === null ? null : typeof value === "number" ? value : String(value)))).toEqual([String(range.rows), range.time_min, range.time_max, String(range.values), range.sum]);
			});
		}
	}

	it("timeColumn names the CF time coordinate: the same rows, in order", async () => {
		const range = scaleExpected["hourly-grid.zarr"].ranges[0];
		const rows = await exportedTimes(path.join(SCALE, "hourly-grid.zarr"), { columns: ["t2m"], index: true, timeColumn: "time", start: range.start!, end: range.end!, unit: "ns" });
		expect(rows).toHaveLength(range.rows);
		expect([rows[0], rows.at(-1)]).toEqual([BigInt(range.time_min!), BigInt(range.time_max!)]);
		expect(rows.every((value, i) => i === 0 || value! >= rows[i - 1]!)).toBe(true);
	});

	it("--partition-by day: every row in the folder of its day, as many per day as xarray has", async () => {
		const range = scaleExpected["hourly-grid.zarr"].ranges[0];
		const folder = path.join(tempDir(), "days");
		const run = await runCliAsync([path.join(SCALE, "hourly-grid.zarr"), "--columns", "t2m", "--index", "--start", range.start!, "--end", range.end!, "--partition-by", "day", "-o", folder, "-q"]);
		expect(run.status, run.stderr).toBe(0);
		const source = `read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`;
		const days = await query(`SELECT strftime(time, '%Y-%m-%d') AS d, count(*) FROM ${source} WHERE year(time) = year AND month(time) = month AND day(time) = day GROUP BY d ORDER BY d`);
		expect(Object.fromEntries(days.map(([day, count]) => [day, Number(count)]))).toEqual(range.days);
		expect(Number((await query(`SELECT count(*) FROM ${source}`))[0][0])).toBe(range.rows);
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts/part-0-of-1.json"), "utf8"));
		// Parquet has no seconds unit: the hours are written in milliseconds.
		const ms = (ns: string) => String(BigInt(ns) / 1_000_000n);
		expect(manifest).toMatchObject({ rows: range.rows, timeUnit: "ms", minTime: { value: ms(range.time_min!) }, maxTime: { value: ms(range.time_max!) } });
	});

	it("fan-out: 3 processes with --part K/3 write what one process writes", async () => {
		const store = path.join(SCALE, "hourly-grid.zarr");
		const range = scaleExpected["hourly-grid.zarr"].ranges[1];
		const common = [store, "--columns", "t2m", "--index", "--start", range.start!, "--to", "parquet", "-q"];
		const single = path.join(tempDir(), "single.parquet");
		const folder = path.join(tempDir(), "parts");
		const runs = await Promise.all([runCliAsync([...common, "-o", single]), ...[0, 1, 2].map((k) => runCliAsync([...common, "--partition-by", "day", "--part", `${k}/3`, "-o", folder]))]);
		for (const run of runs) expect(run.status, run.stderr).toBe(0);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
		const aggregate = async (source: string) => (await query(`SELECT count(*), min(time)::VARCHAR, max(time)::VARCHAR, count(t2m), sum(t2m), sum(lat * lon) FROM ${source}`))[0].map(String);
		const expected = await aggregate(`read_parquet('${single}')`);
		expect(expected.slice(0, 1)).toEqual([String(range.rows)]);
		expect(await aggregate(`read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`)).toEqual(expected);
	});
});

const HOUR_S = 3600n;
const T0 = BigInt(Date.UTC(2020, 0, 1) / 1000);
const CHUNKS = 1000;
/** 1.1M values: longer than a time column read whole first (WHOLE_CHECK_VALUES), so searched. */
const CHUNK = 1100;
const work = tempDir("dt64-cf-range-");
let server: TestServer;

beforeAll(async () => {
	// 125 years of hours (1.1M) as CF time in 1,000 chunks: int64 counts, and float64 counts with a NaN every 53 values.
	const hours = BigInt64Array.from({ length: CHUNKS * CHUNK }, (_, i) => BigInt(i));
	const attributes = { units: "hours since 2020-01-01 00:00:00", calendar: "proleptic_gregorian" };
	for (const [name, values, dataType, fillValue] of [
		["int.zarr", hours, "int64", 0],
		["float.zarr", Float64Array.from(hours, (hour, i) => (i % 53 === 0 ? Number.NaN : Number(hour))), "float64", "NaN"],
	] as const) {
		const store = path.join(work, name);
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [hours.length], chunks: [CHUNK], values, dataType, fillValue, attributes, dimensionNames: ["time"] });
	}
	server = await startServer(work);
});
afterAll(() => server?.close());

describe("chunk pruning of CF time over HTTP", () => {
	// Float counts with --unit auto are read whole once, to choose the unit every value needs (cf-time-array.ts): a
	// unit given spares that read.
	for (const [name, unit] of [["int.zarr", []], ["float.zarr", ["--unit", "s"]]] as const) {
		it(`${name}: a one-month range of a time known sorted fetches the overlapping chunks and O(log chunks) probes`, async () => {
			const out = path.join(tempDir(), "march.parquet");
			server.requests.length = 0;
			const run = await runCliAsync([`${server.url}/${name}`, "--array", "time", ...unit, "--start", "2021-03-01", "--end", "2021-04-01", "--time-sorted", "--to", "parquet", "-o", out, "-q"]);
			expect(run.status, run.stderr).toBe(0);
			const first = Number((BigInt(Date.UTC(2021, 2, 1) / 1000) - T0) / HOUR_S);
			const overlapping = Math.ceil((first + 744) / CHUNK) - Math.floor(first / CHUNK);
			const fetched = server.requests.filter((request) => request.path.startsWith(`/${name}/time/c/`)).length;
			expect(fetched).toBeGreaterThanOrEqual(overlapping);
			expect(fetched).toBeLessThanOrEqual(overlapping + 2 * Math.ceil(Math.log2(CHUNKS)) + 2);
			const kept = Array.from({ length: 744 }, (_, k) => first + k).filter((i) => name === "int.zarr" || i % 53 !== 0).length;
			const [row] = await query(`SELECT count(*), min(time)::VARCHAR, max(time)::VARCHAR FROM read_parquet('${out}')`);
			expect(row.map(String)).toEqual([String(kept), "2021-03-01 00:00:00", "2021-03-31 23:00:00"]);
		});
	}
});

describe("the library's refusals of a selection describe the data, never a CLI flag", () => {
	it("bounds, parts and a bound finer than floored times", () => {
		const refusals: (() => unknown)[] = [
			() => parseTimeBound("yesterday"),
			() => parseTimeBound("2021-02-30", "end"),
			() => parseTimeBounds("2021-01-02", "2021-01-01"),
			() => boundsInUnit({ start: parseTimeBound("2021-01-01T00:00:00.5") }, "s", true),
			() => parsePart("3/3"),
			() => parsePart("x"),
			() => partFromEnvironment({}),
			() => partFromEnvironment({ JOB_COMPLETION_INDEX: "1" }),
			() => partFromEnvironment({ CLOUD_RUN_TASK_INDEX: "1", CLOUD_RUN_TASK_COUNT: "2", SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "2" }),
			() => partFromEnvironment({ SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "2", SLURM_ARRAY_TASK_STEP: "2" }),
			() => partFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "1", AWS_BATCH_JOB_ARRAY_SIZE: "8" }, 4),
		];
		for (const refusal of refusals) {
			let error: { code?: string; message?: string; option?: string } | undefined;
			try {
				refusal();
			} catch (thrown) {
				error = thrown as typeof error;
			}
			expect(error, String(refusal)).toMatchObject({ code: "USAGE", option: expect.any(String) });
			// Slurm's own `sbatch --array` may be named; this tool's flags may not.
			expect(error!.message).not.toMatch(/--(start|end|parts?|time-column|index|unit|allow-truncate|partition-by|max-rows-per-file)\b/);
		}
	});

	it("the CLI adds the flags", () => {
		const out = path.join(tempDir(), "x.arrow");
		const store = path.join(SCALE, "hourly-grid.zarr");
		expect(runCli([store, "--columns", "t2m", "--start", "2021", "-o", out]).stderr).toMatch(/^dt64-export: no time column .*: --index\) \[USAGE\]\n$/);
		expect(runCli([store, "--columns", "t2m", "--index", "--time-column", "t2m", "--start", "2021", "-o", out]).stderr).toMatch(/^dt64-export: --time-column t2m: not a column of times/);
		expect(runCli([store, "--columns", "t2m", "--index", "--start", "2021-01-01T00:00:00.5", "--allow-truncate", "-o", out]).stderr).toMatch(/^dt64-export: --start is finer than the output unit \(s\) and --allow-truncate floors the times: write the bound in whole s, or choose a finer --unit \[USAGE\]\n$/);
	});
});
