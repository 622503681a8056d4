/**
 * Hourly times before 1678 written by xarray as float64 `days since` (test/fixtures/auto-unit-unheld, made by
 * test/golden/make_auto_unit_unheld_fixtures.py; trial 30, finding F4). No unit holds such a count exactly, so
 * `--unit auto` falls back to ns, where the first hour (a whole number of seconds) overflows: the refusal names the
 * count no unit holds and `--round` (TRUNCATION), where it was an OVERFLOW advising a coarser unit, which only met
 * that count next. With `--round` the times are xarray's, read back by polars (IPC) and DuckDB (Parquet). With
 * `--allow-truncate` (trial 30) auto takes the finest unit that holds every date, us, and floors in it (the exact
 * instants floored, as the script computes them with Python's fractions), saying so; `subns-1600` holds fractions
 * finer than a ns, for which `--round` too needs us rather than ns.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { tableFromIPC } from "apache-arrow";
import { exportToFile, inspectStore } from "../src/index.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/auto-unit-unheld");

interface UnheldCase {
	units: string;
	calendar: string;
	counts: string[];
	instants: string[];
	floored_us: string[];
}

/** Nanoseconds per unit of the Datetime polars reads (it reads Arrow seconds as milliseconds). */
const POLARS_NANOSECONDS: Readonly<Record<string, bigint>> = { ms: 1_000_000n, us: 1_000n, ns: 1n };

/** The values of the time column of an IPC file, as integer nanoseconds (strings), by polars. */
function polarsInstants(file: string): string[] {
	const series = pl.readIPC(fs.readFileSync(file)).getColumn("time");
	const unit = (JSON.parse(JSON.stringify(series.dtype)) as { DataType: { Datetime: string } }).DataType.Datetime;
	return series
		.cast(pl.Int64)
		.cast(pl.Utf8)
		.toArray()
		.map((value) => String(BigInt(value as string) * POLARS_NANOSECONDS[unit]));
}

/** ISO 8601 of whole microseconds given in ns (`1500-03-08T04:59:59.999999`, `1600-01-01T00:00:00`). */
function isoOfMicroseconds(nanoseconds: string): string {
	const microseconds = BigInt(nanoseconds) / 1_000n;
	const seconds = microseconds / 1_000_000n - (microseconds % 1_000_000n < 0n ? 1n : 0n);
	const fraction = microseconds - seconds * 1_000_000n;
	const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
	return fraction === 0n ? whole : `${whole}.${String(fraction).padStart(6, "0")}`;
}

/** The notice of auto's unit taken for the dates, not the fractions. */
const usNotice = (how: string) =>
	`dt64-export: time: --unit auto takes us, the finest unit that holds every value's date (ns, which its values' fractions ask for, does not: ns spans 1677-09-21 to 2262-04-11); values that are not a whole number of us are ${how}\n`;

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
	const reason = `is outside the int64 range in unit ns, the unit that --unit auto fell back to because the count ${unheld} is not a whole number of any unit, not even ns; use --round to round to the nearest (as xarray decodes floats), or --allow-truncate to floor (--unit auto then takes the finest unit that holds every date) [TRUNCATION]\n`;

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

	it("an overflow with a unit asked for is still an overflow", () => {
		const result = runCli([store, "--array", "time", "--unit", "ns", "-o", fresh("never.arrow")]);
		expect(result.stderr).toMatch(/at index 0 is outside the int64 range in unit ns \(a coarser --unit, us, ms or s, holds a wider range.*\[OVERFLOW\]\n$/);
	});

	it("--allow-truncate: auto takes us, which holds every date, and floors in it, saying so; read back by polars and DuckDB", async () => {
		const arrow = fresh("time.arrow");
		const parquet = fresh("time.parquet");
		const result = runCli([store, "--array", "time", "--allow-truncate", "-o", arrow]);
		expect(result.stderr).toBe(`${usNotice("floored (--allow-truncate)")}wrote ${c.counts.length} rows to ${arrow}\n`);
		expect(result.status).toBe(0);
		expect(polarsInstants(arrow)).toEqual(c.floored_us);
		expect(runCli([store, "--columns", "all", "--index", "--allow-truncate", "-o", parquet]).status).toBe(0);
		const rows = await query(`SELECT epoch_us(time)::VARCHAR FROM read_parquet('${parquet}')`);
		expect(rows.map(([value]) => String(BigInt(value as string) * 1_000n))).toEqual(c.floored_us);
		// The library, as the CLI: the same unit.
		const library = fresh("library.arrow");
		await exportToFile(store, library, { array: "time", allowTruncate: true });
		expect(polarsInstants(library)).toEqual(c.floored_us);
		// --quiet says nothing.
		expect(runCli([store, "--array", "time", "--allow-truncate", "--quiet", "-o", fresh("quiet.arrow")]).stderr).toBe("");
	});

	it("--round: xarray's times, read back by polars and DuckDB", async () => {
		const arrow = fresh("time.arrow");
		const parquet = fresh("time.parquet");
		const result = runCli([store, "--array", "time", "--round", "-o", arrow]);
		expect(result.status).toBe(0);
		// Hourly counts are whole seconds within their ulp; only subns-1600's fractions ask for ns, which cannot hold 1600.
		expect(result.stderr).toBe(`${name === "subns-1600" ? usNotice("rounded to the nearest (--round)") : ""}wrote ${c.counts.length} rows to ${arrow}\n`);
		expect(runCli([store, "--array", "time", "--round", "-o", parquet]).status).toBe(0);
		expect(polarsInstants(arrow)).toEqual(c.instants);
		const rows = await query(`SELECT epoch_us(time)::VARCHAR FROM read_parquet('${parquet}')`);
		expect(rows.map(([value]) => String(BigInt(value as string) * 1_000n))).toEqual(c.instants);
	});

	it("inspect shows the types --round and --allow-truncate write (the finest unit holding every date), text and JSON", async () => {
		// The unit of the column each flag writes (Arrow's TimeUnit: 0 s, 1 ms, 2 us, 3 ns).
		const written: Record<string, string> = {};
		for (const flag of ["--round", "--allow-truncate"]) {
			const arrow = fresh("typed.arrow");
			expect(runCli([store, "--array", "time", flag, "-o", arrow]).status).toBe(0);
			written[flag] = `timestamp[${["s", "ms", "us", "ns"][(tableFromIPC(fs.readFileSync(arrow)).schema.fields[0].type as { unit: number }).unit]}]`;
		}
		const report = await inspectStore(store);
		const time = report.nodes.find((node) => node.path === "time")!;
		expect(time.arrowTypeRounded).toBe(written["--round"]);
		expect(time.arrowTypeFloored).toBe(written["--allow-truncate"]);
		expect(time.arrowTypeFloored).toBe("timestamp[us]");
		const text = runCli(["inspect", store]).stdout.toString();
		const rounded = name === "subns-1600" ? "timestamp[us] rounded to the nearest unit or floored" : "timestamp[s] rounded to the nearest unit, timestamp[us] floored";
		expect(text).toContain(`which an exact export refuses; ${rounded}; use --round`);
		// First and last (leftovers 11): in the unit --allow-truncate (flooring) writes, which holds them, as it writes them (the
		// exact export's refusal is the exportable line), where they were "outside the int64 range in ns".
		const exports = name === "subns-1600" ? "floors or rounds" : "floors";
		for (const [end, nanoseconds] of [[time.first!, c.floored_us[0]], [time.last!, c.floored_us[c.floored_us.length - 1]]] as const) {
			expect(end).toMatchObject({ status: "found", iso: isoOfMicroseconds(nanoseconds) });
			expect((end as { note: string }).note).toMatch(new RegExp(`^(in us, as an export that ${exports}|floored to us, as an export that floors) writes it; ns, the exact unit, cannot hold it$`));
		}
		expect(text).not.toContain("outside the int64 range in ns");
	});
});

