/**
 * Hourly times before 1678 written by xarray as float64 `days since` (test/fixtures/auto-unit-unheld, made by
 * test/golden/make_auto_unit_unheld_fixtures.py; trial 30, finding F4). No unit holds such a count exactly, so
 * `--unit auto` falls back to ns, where the first hour (a whole number of seconds) overflows: the refusal names the
 * count no unit holds and `--round` (TRUNCATION), where it was an OVERFLOW advising a coarser unit, which only met
 * that count next. With `--round` the times are xarray's, read back by polars (IPC) and DuckDB (Parquet).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { exportToFile } from "../src/index.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/auto-unit-unheld");

interface UnheldCase {
	units: string;
	calendar: string;
	counts: string[];
	instants: string[];
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, UnheldCase>;
const query = useDuckDB();
const work = tempDir("dt64-auto-unheld-");
let fileCount = 0;
const fresh = (name: string) => path.join(work, `${fileCount++}-${name}`);

describe.each(Object.entries(CASES))("float CF time before 1678 that no unit holds, written by xarray: %s", (name, c) => {
	const store = path.join(FIXTURES, `${name}.zarr`);
	// The counts as JavaScript prints them (Python's repr writes -135080.0).
	const [first, unheld] = c.counts.map((count) => String(Number(count)));
	const coding = `(${c.units.replace(" 12:00", "T12:00")}, ${c.calendar})`;
	const reason = `is outside the int64 range in unit ns, the unit that --unit auto fell back to because the count ${unheld} is not a whole number of any unit, not even ns; use --round to round to the nearest (as xarray decodes floats), or --allow-truncate with a coarser --unit to floor [TRUNCATION]\n`;

	it("alone: refused for the count no unit holds, with --round, not as an overflow", () => {
		const result = runCli([store, "--array", "time", "-o", fresh("never.parquet")]);
		expect(result.stderr).toBe(`dt64-export: value ${first} of float64 CF time ${coding} at index 0 ${reason}`);
		expect(result.status).toBe(1);
	});

	it("as a table's index column: the same refusal, at its row", () => {
		const result = runCli([store, "--columns", "all", "--index", "-o", fresh("never.arrow")]);
		expect(result.stderr).toBe(`dt64-export: value ${first} of float64 CF time ${coding} at row 0 of column "time" ${reason}`);
		expect(result.status).toBe(1);
	});

	it("the library: TRUNCATION naming the count", async () => {
		await expect(exportToFile(store, fresh("never.arrow"), { array: "time" })).rejects.toMatchObject({
			code: "TRUNCATION",
			message: expect.stringContaining(`the unit that \`unit\` auto fell back to because the count ${unheld} is not a whole number of any unit`),
		});
	});

	it("an overflow with a unit asked for, or with flooring, is still an overflow", () => {
		const result = runCli([store, "--array", "time", "--unit", "ns", "-o", fresh("never.arrow")]);
		expect(result.stderr).toMatch(/at index 0 is outside the int64 range in unit ns \(a coarser --unit, us, ms or s, holds a wider range.*\[OVERFLOW\]\n$/);
		const floored = runCli([store, "--array", "time", "--allow-truncate", "-o", fresh("never.arrow")]);
		expect(floored.stderr).toMatch(/\[OVERFLOW\]\n$/);
	});

	it("--round: xarray's times, in seconds, read back by polars and DuckDB", async () => {
		const arrow = fresh("time.arrow");
		const parquet = fresh("time.parquet");
		expect(runCli([store, "--array", "time", "--round", "-o", arrow]).status).toBe(0);
		expect(runCli([store, "--array", "time", "--round", "-o", parquet]).status).toBe(0);
		// polars reads Arrow seconds as milliseconds.
		const series = pl.readIPC(fs.readFileSync(arrow)).getColumn("time");
		expect(String(series.dtype)).toContain("Datetime");
		const ms = series.cast(pl.Int64).cast(pl.Utf8).toArray();
		expect(ms.map((value) => String(BigInt(value as string) * 1_000_000n))).toEqual(c.instants);
		const rows = await query(`SELECT epoch_ms(time)::VARCHAR FROM read_parquet('${parquet}')`);
		expect(rows.map(([value]) => String(BigInt(value as string) * 1_000_000n))).toEqual(c.instants);
		// --allow-truncate with seconds: the same hours here (each count is within a hair above or below).
		expect(runCli([store, "--array", "time", "--allow-truncate", "--unit", "s", "-o", fresh("floored.arrow")]).status).toBe(0);
	});
});
