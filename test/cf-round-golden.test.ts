/**
 * Float CF time written by xarray (test/fixtures/cf-round, made by test/golden/make_rounding_fixtures.py), whose
 * counts are whole seconds only to the double's precision: rounded to the nearest second they are the times xarray
 * decodes (exactly, for the trial's hourly float days), where flooring moved a third of the hours a second back;
 * read back by polars (IPC) and DuckDB (Parquet); and time ranges and partitions over rounded times, searched or
 * filtered, CF and datetime64.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { tableFromIPC, type Table } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import type { ExportOptions } from "../src/export-plan.js";
import { exportSelection } from "../src/export-selection.js";
import { inspectStore } from "../src/inspect.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { exactNanoseconds } from "./support/exact-nanoseconds.js";

const FIXTURES = path.join(REPO, "test/fixtures/cf-round");

interface RoundingCase {
	units: string;
	counts: string[];
	instants: string[];
	xarray_round_s: string[];
	given: string[];
	cftime: string[];
	floored_off: number;
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, RoundingCase>;
const query = useDuckDB();
const work = tempDir("dt64-cf-round-");
let fileCount = 0;
const fresh = (name: string) => path.join(work, `${fileCount++}-${name}`);

async function exported(store: string, options: ExportOptions): Promise<Table> {
	const sink = new PassThrough();
	const parts: Buffer[] = [];
	sink.on("data", (chunk: Buffer) => parts.push(chunk));
	await exportSelection(store, sink, { format: "arrow", ...options });
	return tableFromIPC(Buffer.concat(parts));
}


describe.each(Object.entries(CASES))("float CF time written by xarray: %s", (name, c) => {
	const store = path.join(FIXTURES, `${name}.zarr`);

	it("--unit s with rounding is xarray's values rounded to the second, the times written and cftime's", async () => {
		const table = await exported(store, { array: "time", unit: "s", rounding: "nearest" });
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<SECOND>");
		const rows = exactNanoseconds(table);
		expect(rows).toEqual(c.xarray_round_s);
		expect(rows).toEqual(c.given);
		expect(rows).toEqual(c.cftime);
		// The trial's store: xarray's own values, exactly, every row.
		if (name === "days-float-hourly") expect(rows).toEqual(c.instants);
	});

	it("--unit auto with rounding chooses seconds, the same values", async () => {
		const table = await exported(store, { array: "time", rounding: "nearest" });
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<SECOND>");
		expect(exactNanoseconds(table)).toEqual(c.given);
		// Exact, auto needs nanoseconds, and the doubles are no whole number of them either.
		await expect(exported(store, { array: "time" })).rejects.toMatchObject({ code: "TRUNCATION", unit: "ns" });
	});

	it("flooring (allowTruncate) moves the rows xarray's generator counted one second back", async () => {
		const rows = exactNanoseconds(await exported(store, { array: "time", unit: "s", allowTruncate: true }));
		const off = rows.filter((row, i) => row !== c.given[i]);
		expect(off.length).toBe(c.floored_off);
		expect(off.length).toBeGreaterThan(0);
		rows.forEach((row, i) => {
			if (row !== c.given[i]) expect(BigInt(c.given[i]) - BigInt(row!)).toBe(1_000_000_000n);
		});
	});
});

describe("the trial's store through the CLI", () => {
	const store = path.join(FIXTURES, "days-float-hourly.zarr");
	const c = CASES["days-float-hourly"];

	it("inspect says an exact export refuses its counts (not whole ns), and the unit of auto with rounding", async () => {
		const node = (await inspectStore(store)).nodes.find((n) => n.path === "time")!;
		// It said "exportable yes, as timestamp[ns]", which the export then refused (TRUNCATION).
		expect(node).toMatchObject({
			exportable: false,
			reason: "float64 count 7362.041666666667 is not a whole number of ns, which an exact export refuses",
			reasonCode: "TRUNCATION",
			reasonOption: "rounding",
			arrowType: "timestamp[ns]",
			arrowTypeRounded: "timestamp[s]",
			floatCountsRead: true,
		});
		expect(String(runCli(["inspect", store]).stdout)).toContain(
			"  exportable  no: float64 count 7362.041666666667 is not a whole number of ns, which an exact export refuses; timestamp[s] rounded to the nearest unit; use --round to round to the nearest (as xarray decodes floats), --allow-truncate to floor\n",
		);
		expect(runCli([store, "--array", "time", "-o", fresh("auto.arrow")]).stderr).toMatch(/is not a whole number of ns.*\[TRUNCATION\]\n$/);
	});

	it("is refused without a rounding, the message saying why and naming both ways", () => {
		const result = runCli([store, "--array", "time", "--unit", "s", "-o", fresh("refused.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: value 7362\.041666666667 of float64 CF time \(days since 2000-01-01, proleptic_gregorian\) at index 1 is not a whole number of s: the float64 holds 7362\.0416666666669698\d*…, the binary fraction nearest to the decimal it prints as \(it would be floored to 1582765200 s, or rounded to the nearest, 1582765200 s\); use --round to round to the nearest \(as xarray decodes floats\), --allow-truncate to floor, or a finer --unit \[TRUNCATION\]\n$/);
		expect(runCli([store, "--array", "time", "--round", "--allow-truncate", "-o", fresh("both.arrow")]).stderr).toMatch(/--round rounds to the nearest unit and --allow-truncate floors: give one of them \[USAGE\]/);
	});

	it("--round, IPC read back by polars and Parquet by DuckDB: xarray's values", async () => {
		const ipc = fresh("round.arrow");
		expect(runCli([store, "--array", "time", "--round", "-o", ipc, "-q"]).status).toBe(0);
		expect(String(readArrow(ipc).schema.fields[0].type)).toBe("Timestamp<SECOND>");
		const df = pl.readIPC(fs.readFileSync(ipc));
		expect(df.getColumn("time").cast(pl.Datetime("ns")).cast(pl.Int64).toArray().map(String)).toEqual(c.instants);
		const parquet = fresh("round.parquet");
		expect(runCli([store, "--array", "time", "--round", "--unit", "s", "-o", parquet, "-q"]).status).toBe(0);
		const rows = await query(`SELECT epoch_ns("time") FROM read_parquet('${parquet}')`);
		expect(rows.map((row) => String(row[0]))).toEqual(c.instants);
	});

	it("--start/--end and --partition-by hour take the rounded times: 02:00 is in its hour", async () => {
		const out = fresh("range.arrow");
		expect(runCli([store, "--array", "time", "--round", "--start", "2020-02-27T02:00", "--end", "2020-02-27T05:00", "-o", out, "-q"]).status).toBe(0);
		expect(exactNanoseconds(readArrow(out))).toEqual(c.instants.slice(2, 5));
		const folder = fresh("hours");
		expect(runCli([store, "--columns", "v", "--index", "--round", "--partition-by", "hour", "--end", "2020-02-27T04:00", "-o", folder, "-q"]).status).toBe(0);
		const files = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((entry) => entry.endsWith(".parquet")).sort();
		expect(files.map((file) => file.replace(/\/[^/]*$/, ""))).toEqual(["year=2020/month=2/day=27/hour=0", "year=2020/month=2/day=27/hour=1", "year=2020/month=2/day=27/hour=2", "year=2020/month=2/day=27/hour=3"]);
		for (const [k, file] of files.entries()) {
			const rows = await query(`SELECT epoch_ns("time"), v FROM read_parquet('${path.join(folder, file)}')`);
			expect(rows.map((row) => [String(row[0]), row[1]])).toEqual([[c.instants[k], k]]);
		}
	});
});

describe("a searched time range selects by the rounded times", () => {
	const CHUNK = 20;
	const HOURS = 100 * CHUNK;

	async function storeOf(name: string, values: Float64Array | BigInt64Array, dataType: unknown, attributes: Record<string, unknown>): Promise<string> {
		const store = path.join(work, name);
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [values.length], chunks: [CHUNK], values, dataType, fillValue: dataType === "float64" ? "NaN" : 0, attributes, dimensionNames: ["time"] });
		return store;
	}

	it("float CF days in 100 chunks: a bound on an hour a hair below it in the double", async () => {
		const store = await storeOf("days.zarr", Float64Array.from({ length: HOURS }, (_, k) => 7362 + k / 24), "float64", { units: "days since 2000-01-01", calendar: "proleptic_gregorian" });
		const hour = (k: number) => String((1_582_761_600n + 3600n * BigInt(k)) * 1_000_000_000n);
		// Hours 2, 5 and 1001 (2020-04-08T17:00) are below the whole hour in the double: floored, a second early.
		for (const [start, end, first, last] of [["2020-02-27T02:00", "2020-02-27T05:00", 2, 4], ["2020-02-27T05:00", "2020-04-08T17:00", 5, 1000], ["2020-04-08T17:00", undefined, 1001, HOURS - 1]] as const) {
			for (const rangeSearch of [true, false]) {
				const rows = exactNanoseconds(await exported(store, { array: "time", unit: "s", rounding: "nearest", start, end, rangeSearch }));
				expect(rows, `${start} ${end} ${rangeSearch}`).toEqual(Array.from({ length: last - first + 1 }, (_, k) => hour(first + k)));
			}
		}
	});

	it("datetime64[ms] exported in seconds: 01:59:59.600 is 02:00, 02:00:00.500 (a tie) stays", async () => {
		const MS_HOUR = 3_600_000n;
		// Every hour in ms, each a little off: -400 ms, +500 ms (ties to the even second, the hour), +300 ms.
		const offsets = [-400n, 500n, 300n];
		const counts = BigInt64Array.from({ length: HOURS }, (_, k) => 1_582_761_600_000n + MS_HOUR * BigInt(k) + offsets[k % 3]);
		const store = path.join(work, "ms.zarr");
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [HOURS], chunks: [CHUNK], values: counts, dataType: { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } }, dimensionNames: ["time"] });
		for (const rangeSearch of [true, false]) {
			const rows = exactNanoseconds(await exported(store, { array: "time", unit: "s", rounding: "nearest", start: "2020-03-01T03:00", end: "2020-03-01T06:00", rangeSearch }));
			const first = 3 * 24 + 3; // 2020-02-27 + 3 days (2020 is a leap year): 2020-03-01T03:00
			expect(rows).toEqual([0, 1, 2].map((k) => String((1_582_761_600n + 3600n * BigInt(first + k)) * 1_000_000_000n)));
		}
	});
});
