/**
 * `onOverflow: "null"` (`--on-overflow null`) says how many values it wrote as null: per column, exactly (NaT and
 * missing values are not counted, nor rows a time range leaves out), in the CLI's summary, the library's summaries,
 * a part's manifest and the `_SUCCESS` of a commit (trial 15, 04: 9,655 of 25,029 times nulled without a word).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { NAT, writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { commitDataset, exportDataset, exportSelection } from "../src/index.js";
import { runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const query = useDuckDB();

const ROWS = 1000;
const T0 = BigInt(Date.UTC(2021, 0, 1) / 1000);
/** Days past any int64 in any unit of time (8.6e19 s). */
const HUGE_DAYS = 10n ** 15n;
const DAY0 = T0 / 86_400n;

/** Row i of `a` (datetime64[D]): NaT when i % 11 == 0, else out of int64 when i % 7 == 0. */
const aOverflows = (i: number) => i % 11 !== 0 && i % 7 === 0;
/** Row i of `b` (CF int64 days, _FillValue -1): missing when i % 13 == 0, else out of int64 when i % 5 == 0. */
const bOverflows = (i: number) => i % 13 !== 0 && i % 5 === 0;
const countRows = (from: number, to: number, overflows: (i: number) => boolean) => Array.from({ length: to - from }, (_, k) => from + k).filter(overflows).length;

/** Hourly `time` (sorted, datetime64[s]), and two time columns with values out of int64, NaT and missing values. */
async function overflowingStore(): Promise<string> {
	const store = path.join(tempDir(), "overflow.zarr");
	await writeGroup(store, "");
	const dimensionNames = ["time"];
	await writeArray(store, "time", { shape: [ROWS], chunks: [100], values: BigInt64Array.from({ length: ROWS }, (_, i) => T0 + BigInt(i) * 3600n), dimensionNames });
	await writeArray(store, "a", {
		shape: [ROWS],
		chunks: [100],
		dataType: { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } },
		values: BigInt64Array.from({ length: ROWS }, (_, i) => (i % 11 === 0 ? NAT : aOverflows(i) ? HUGE_DAYS : DAY0 + BigInt(i))),
		dimensionNames,
	});
	await writeArray(store, "b", {
		shape: [ROWS],
		chunks: [100],
		dataType: "int64",
		fillValue: 0,
		attributes: { units: "days since 1970-01-01", calendar: "proleptic_gregorian", _FillValue: -1 },
		values: BigInt64Array.from({ length: ROWS }, (_, i) => (i % 13 === 0 ? -1n : bOverflows(i) ? -HUGE_DAYS : DAY0 + BigInt(i))),
		dimensionNames,
	});
	return store;
}

function collector(): Writable & { bytes(): Buffer } {
	const chunks: Buffer[] = [];
	return Object.assign(new Writable({ write: (chunk, _encoding, done) => (chunks.push(chunk), done()) }), { bytes: () => Buffer.concat(chunks) });
}

const A_ALL = countRows(0, ROWS, aOverflows);
const B_ALL = countRows(0, ROWS, bOverflows);

describe("values written as null because they overflowed", () => {
	it("are counted per column by exportSelection (Arrow, datetime64 and CF), within a time range only those written", async () => {
		const store = await overflowingStore();
		const out = collector();
		const all = await exportSelection(store, out, { columns: ["time", "a", "b"], unit: "ns", onOverflow: "null", format: "arrow" });
		expect(all.overflowNulls).toEqual({ a: A_ALL, b: B_ALL });
		const table = tableFromIPC(out.bytes());
		// The nulls counted are nulls: NaT and missing values besides them.
		expect([table.getChild("a")!.nullCount, table.getChild("b")!.nullCount]).toEqual([A_ALL + countRows(0, ROWS, (i) => i % 11 === 0), B_ALL + countRows(0, ROWS, (i) => i % 13 === 0)]);
		// Rows 200..699 (hours after T0): the chunks read hold more rows, which are not written.
		const iso = (row: number) => new Date(Number(T0 + BigInt(row) * 3600n) * 1000).toISOString();
		const ranged = await exportSelection(store, collector(), { columns: ["time", "a", "b"], unit: "ns", onOverflow: "null", format: "arrow", start: iso(250), end: iso(650), timeColumn: "time" });
		expect(ranged.rows).toBe(400);
		expect(ranged.overflowNulls).toEqual({ a: countRows(250, 650, aOverflows), b: countRows(250, 650, bOverflows) });
		// By default an overflow is refused; a column without any is not named.
		await expect(exportSelection(store, collector(), { columns: ["a"], unit: "ns", format: "arrow" })).rejects.toMatchObject({ code: "OVERFLOW" });
		expect((await exportSelection(store, collector(), { columns: ["time"], unit: "ns", onOverflow: "null", format: "arrow" })).overflowNulls).toEqual({});
	});

	it("the CLI's summary says how many (Parquet and Arrow files, one column or several); none, no words", () => {
		const run = (args: string[]) => runCli(args);
		return overflowingStore().then(async (store) => {
			const dir = tempDir();
			const parquet = path.join(dir, "table.parquet");
			const several = run([store, "--columns", "time,a,b", "--on-overflow", "null", "-o", parquet]);
			expect([several.status, several.stderr]).toEqual([0, `wrote 1,000 rows to ${parquet}; values outside int64 in their unit written as null: ${A_ALL} of a (ms), ${B_ALL} of b (ms)\n`]);
			const [[aNulls, bNulls]] = await query(`SELECT count(*) FILTER (WHERE a IS NULL), count(*) FILTER (WHERE b IS NULL) FROM '${parquet}'`);
			expect([Number(aNulls), Number(bNulls)]).toEqual([A_ALL + countRows(0, ROWS, (i) => i % 11 === 0), B_ALL + countRows(0, ROWS, (i) => i % 13 === 0)]);
			const arrow = path.join(dir, "b.arrow");
			const one = run([store, "--array", "b", "--unit", "ns", "--on-overflow", "null", "-o", arrow]);
			expect([one.status, one.stderr]).toEqual([0, `wrote 1,000 rows to ${arrow}; ${B_ALL} values of b outside int64 in ns written as null\n`]);
			const none = run([store, "--array", "time", "--on-overflow", "null", "-o", path.join(dir, "time.arrow")]);
			expect([none.status, none.stderr]).toEqual([0, `wrote 1,000 rows to ${path.join(dir, "time.arrow")}\n`]);
			const quiet = run([store, "--array", "b", "--unit", "ns", "--on-overflow", "null", "-q", "-o", path.join(dir, "q.arrow")]);
			expect([quiet.status, quiet.stderr]).toEqual([0, ""]);
		});
	});

	it("a dataset's parts record them in their manifests, the commit sums them in _SUCCESS, and both CLI lines say so", async () => {
		const store = await overflowingStore();
		const folder = path.join(tempDir(), "parts.parquet");
		const options = { columns: ["time", "a", "b"], unit: "ns", onOverflow: "null", partitionBy: "day", timeColumn: "time" } as const;
		const first = await exportDataset(store, folder, { ...options, part: "0/2" });
		const second = await exportDataset(store, folder, { ...options, part: "1/2" });
		// Parts are aligned on chunks: 500 rows each.
		expect(first.overflowNulls).toEqual({ a: countRows(0, 500, aOverflows), b: countRows(0, 500, bOverflows) });
		expect(second.overflowNulls).toEqual({ a: countRows(500, ROWS, aOverflows), b: countRows(500, ROWS, bOverflows) });
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts", "part-1-of-2.json"), "utf8"));
		expect(manifest.overflowNulls).toEqual(second.overflowNulls);
		const committed = await commitDataset(folder);
		expect(committed.overflowNulls).toEqual({ a: A_ALL, b: B_ALL });
		expect(JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8")).overflowNulls).toEqual({ a: A_ALL, b: B_ALL });

		const cliFolder = path.join(tempDir(), "cli");
		const part = runCli([store, "--columns", "b", "--unit", "ns", "--on-overflow", "null", "--part", "0/1", "-o", cliFolder, "--to", "arrow"]);
		expect([part.status, part.stderr]).toEqual([0, `wrote 1,000 rows to ${cliFolder}: 1 file, part 0/1 (_parts/part-0-of-1.json); ${B_ALL} values of b outside int64 in ns written as null\n`]);
		const commit = runCli(["commit", cliFolder]);
		expect([commit.status, commit.stderr]).toEqual([0, `committed ${cliFolder}: 1 part, 1 file, 1,000 rows; ${B_ALL} values of b outside int64 written as null\n`]);
	});
});
