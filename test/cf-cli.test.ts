/**
 * CF time through the CLI: detection (alone, by discovery, in --columns), --no-cf, --convert-calendar, the
 * datetime64-with-CF-attributes warning, refusals (one line, exit 1 or 2, nothing at -o), Zarr v3 CF arrays
 * written by hand (_FillValue as the marker, not fill_value), inspect, and exact read-back by polars (IPC) and
 * DuckDB (Parquet) of the xarray-written golden stores (test/fixtures/cf).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import pl from "nodejs-polars";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/export.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const CF = path.join(REPO, "test/fixtures/cf");
const EXPECTED = JSON.parse(fs.readFileSync(path.join(CF, "expected.json"), "utf8")) as Record<string, { instants?: (string | null)[] }>;
const work = tempDir("dt64-cf-");
const query = useDuckDB();
let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);
const store = (name: string) => path.join(CF, `${name}.zarr`);

function exportOk(args: string[]) {
	const result = runCli(args);
	expect(result.stderr.replace(/^wrote .*\n/m, "")).toBe("");
	expect(result.status).toBe(0);
	return result;
}

/** A refusal: one line on stderr matching `message`, the exit code, and nothing at the output path. */
function refused(args: string[], message: RegExp, status = 1) {
	const output = fresh("refused.arrow");
	const result = runCli([...args, "-o", output]);
	expect(result.status).toBe(status);
	expect(result.stderr).toMatch(/^dt64-export: [^\n]*\n$/);
	expect(result.stderr).toMatch(message);
	expect(fs.existsSync(output)).toBe(false);
	expect(fs.readdirSync(path.dirname(output)).filter((name) => name.includes("refused"))).toEqual([]);
}

const nsOf = (name: string) => EXPECTED[name].instants!;
/** The instants of a golden store in the unit polars gives a column (it has no seconds: it reads them as ms). */
const inUnit = (name: string, perValue: bigint) => nsOf(name).map((ns) => (ns === null ? null : String(BigInt(ns) / perValue)));

describe("CF time arrays through the CLI", () => {
	it("finds the CF time array of an xarray group alone, and polars reads the exact instants", () => {
		const file = fresh("hourly.arrow");
		exportOk([store("hourly"), "-o", file]);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.columns).toEqual(["time"]);
		expect(String(df.getColumn("time").dtype)).toMatch(/Datetime.*s/i);
		expect(df.getColumn("time").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(inUnit("hourly", 1_000_000n));
	});

	it("polars reads nulls for NaN, the fill value, and exact us and ns instants", () => {
		for (const [name, unit, perValue] of [
			["nat-float", "ms", 1_000_000n],
			["fill-value", "ms", 1_000_000n],
			["irregular-us", "us", 1_000n],
			["irregular-ns", "ns", 1n],
		] as const) {
			const file = fresh(`${name}.arrow`);
			exportOk([store(name), "--array", "time", "-o", file]);
			const column = pl.readIPC(fs.readFileSync(file)).getColumn("time");
			expect(String(column.dtype)).toMatch(new RegExp(`Datetime.*${unit}`, "i"));
			expect(column.cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(inUnit(name, perValue));
		}
	});

	it("DuckDB reads the Parquet instants exactly (seconds as milliseconds, ns as TIMESTAMP_NS)", async () => {
		for (const [name, epoch, perValue] of [
			["hourly", "epoch_ms", 1_000_000n],
			["julian-crossing", "epoch_ms", 1_000_000n],
			["irregular-us", "epoch_us", 1_000n],
			["irregular-ns", "epoch_ns", 1n],
			["nat-float", "epoch_ms", 1_000_000n],
		] as const) {
			const file = fresh(`${name}.parquet`);
			exportOk([store(name), "--array", "time", "--to", "parquet", "-o", file]);
			const rows = await query(`SELECT ${epoch}(time)::VARCHAR FROM read_parquet('${file}')`);
			expect(rows.map(([v]) => v)).toEqual(nsOf(name).map((ns) => (ns === null ? null : String(BigInt(ns) / perValue))));
		}
	});

	it("keeps the CF attributes in the Parquet file's ARROW:schema", async () => {
		const file = fresh("meta.parquet");
		exportOk([store("julian-crossing"), "--to", "parquet", "-o", file]);
		const rows = await query(`SELECT value FROM parquet_kv_metadata('${file}') WHERE key = 'ARROW:schema'`);
		// The blob is the base64 text of the Arrow IPC schema message, whose field metadata strings are plain bytes.
		const decoded = Buffer.from(Buffer.from((rows[0][0] as { bytes: Uint8Array }).bytes).toString("latin1"), "base64").toString("latin1");
		for (const text of ["zarr.cf_decoded", "days since 1582-10-01", "julian", "units", "calendar"]) expect(decoded).toContain(text);
	});

	it("decodes a CF time column among --columns; --no-cf leaves its numbers as they are", () => {
		const decoded = fresh("cols.arrow");
		exportOk([store("hourly"), "--columns", "time,t2m", "-o", decoded]);
		const table = readArrow(decoded);
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<SECOND>");
		expect(table.schema.fields[0].metadata.get("zarr.cf_decoded")).toBe("true");
		expect(table.getChild("time")!.get(1)).toBe(1_577_840_400_000);
		const raw = fresh("raw.arrow");
		exportOk([store("hourly"), "--columns", "time,t2m", "--no-cf", "-o", raw]);
		const rawTable = readArrow(raw);
		expect(String(rawTable.schema.fields[0].type)).toBe("Int64");
		expect(Array.from(rawTable.getChild("time")!.toArray() as BigInt64Array).slice(0, 3)).toEqual([0n, 1n, 2n]);
	});

	it("xarray 2023.01's timedeltas (a bare unit, NaN for NaT) are Durations with nulls; --no-cf keeps the numbers", () => {
		const file = fresh("lead.arrow");
		exportOk([store("timedelta-hours-nat"), "--array", "lead", "-o", file]);
		const lead = pl.readIPC(fs.readFileSync(file)).getColumn("lead");
		expect(String(lead.dtype)).toMatch(/Duration.*s/i);
		const durations = (EXPECTED["timedelta-hours-nat"] as { durations: (string | null)[] }).durations;
		expect(lead.cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(durations.map((ns) => (ns === null ? null : String(BigInt(ns) / 1_000_000n))));
		const raw = fresh("lead-raw.arrow");
		exportOk([store("timedelta-hours-nat"), "--columns", "lead", "--no-cf", "-o", raw]);
		const rawTable = readArrow(raw);
		expect(String(rawTable.schema.fields[0].type)).toBe("Float64");
		expect(Array.from(rawTable.getChild("lead")!.toArray() as Float64Array)).toEqual([0, 1, 2, Number.NaN, 48]);
	});

	it("with --no-cf, a group of only CF time arrays names them in its refusal", () => {
		refused([store("hourly"), "--no-cf"], /the group holds no numpy\.datetime64 array \(CF time arrays, with CF decoding off: time\)/);
	});

	it("--convert-calendar exports model calendar labels; without it, and for labels Gregorian lacks, refusals", () => {
		refused([store("360-day")], /array time: calendar "360_day" is a model calendar.*--convert-calendar/);
		// Daily 360_day data holds 29 and 30 February, which converting labels refuses: the refusals say what is left.
		refused([store("360-day")], /its 29 and 30 February have no proleptic Gregorian date.*--no-cf the stored counts \[CALENDAR_UNSUPPORTED\]\n$/);
		refused([store("360-day-missing"), "--convert-calendar"], /is the date 2001-02-29 of the 360_day calendar.*align_on="date".*align_on="year".*stored counts are exported \(--no-cf\) \[VALUE_INVALID\]\n$/);
		refused([store("all-leap-missing"), "--convert-calendar"], /value 59 of int64 CF time \(days since 2001-01-01, all_leap\) at index 2 is the date 2001-02-29/);
		const file = fresh("noleap.arrow");
		exportOk([store("noleap"), "--convert-calendar", "-o", file]);
		expect(pl.readIPC(fs.readFileSync(file)).getColumn("time").cast(pl.Int64).cast(pl.Utf8).toArray()).toEqual(inUnit("noleap", 1_000_000n));
	});

	it("refuses months since, a reference date that does not exist, and overflow, one line each", () => {
		refused([store("months-since")], /units "months since 2000-01-01": months are not a fixed duration/);
		refused([store("standard-gap-reference")], /1582-10-10 does not exist in the standard calendar/);
		refused([store("ref-long-year"), "--unit", "ns"], /value 0 of int64 CF time \(days since 12000-01-01, proleptic_gregorian\) at index 0 is outside the int64 range in unit ns/);
	});

	it("a group with a datetime64 and a CF time array asks which one (exit 2)", async () => {
		const root = fresh("both.zarr");
		await writeArray(root, "a", { shape: [2], chunks: [2], values: BigInt64Array.of(1n, 2n) });
		await writeArray(root, "b", { shape: [2], chunks: [2], dataType: "int64", fillValue: 0n, values: BigInt64Array.of(1n, 2n), attributes: { units: "days since 2000-01-01" } });
		refused([root], /several time arrays \(datetime64 or CF time\): a, b; choose one with --array/, 2);
	});
});

describe("Zarr v3 CF time arrays written by hand", () => {
	let root: string;
	beforeAll(async () => {
		root = fresh("v3.zarr");
		await writeGroup(root, "");
		// fill_value 7 is not a missing value in v3 (xarray reads only the _FillValue attribute): a missing chunk holds
		// 7 minutes; -1 and the missing_value list mark nulls.
		await writeArray(root, "minutes", {
			shape: [6],
			chunks: [2],
			dataType: "int32",
			fillValue: 7,
			values: Int32Array.of(0, -1, 7, 7, 90, -2),
			omitChunks: ([c]: number[]) => c === 1,
			attributes: { units: "minutes since 2000-01-01T00:00:00Z", calendar: "standard", _FillValue: -1, missing_value: [-2, -3] },
		});
		await writeArray(root, "hours", {
			shape: [4],
			chunks: [4],
			dataType: "float64",
			fillValue: "NaN",
			values: Float64Array.of(0.5, Number.NaN, 0.1, 1e300),
			attributes: { units: "hours since 2000-01-01 00:00:00 +01:00" },
		});
		await writeArray(root, "lag", {
			shape: [3],
			chunks: [3],
			dataType: "float32",
			fillValue: 0,
			values: Float32Array.of(1.5, -0.25, 0),
			attributes: { units: "seconds", dtype: "timedelta64[ns]" },
		});
		await writeArray(root, "stamp", { shape: [2], chunks: [2], values: BigInt64Array.of(0n, 60n), attributes: { units: "seconds since 1970-01-01", calendar: "proleptic_gregorian" } });
	});

	it("_FillValue and missing_value are null, the v3 fill_value of a missing chunk is a value", () => {
		const file = fresh("minutes.arrow");
		exportOk([root, "--array", "minutes", "-o", file]);
		const values = pl.readIPC(fs.readFileSync(file)).getColumn("minutes").cast(pl.Int64).cast(pl.Utf8).toArray();
		const base = 946_684_800;
		expect(values).toEqual([base, null, base + 420, base + 420, base + 5400, null].map((v) => (v === null ? null : `${v}000`)));
	});

	it("float counts are exact: 0.1 hours is refused at ns unless floored; 1e300 overflows unless null", () => {
		refused([root, "--array", "hours", "--unit", "ns", "--on-overflow", "null"], /value 0\.1 of float64 CF time \(hours since 2000-01-01 00:00:00 \+01:00, standard\) at index 2 is not a whole number of ns/);
		refused([root, "--array", "hours", "--unit", "ns", "--allow-truncate"], /value 1e\+300 .* is outside the int64 range in unit ns/);
		const file = fresh("hours.arrow");
		exportOk([root, "--array", "hours", "--unit", "ns", "--allow-truncate", "--on-overflow", "null", "-o", file]);
		const values = pl.readIPC(fs.readFileSync(file)).getColumn("hours").cast(pl.Int64).cast(pl.Utf8).toArray();
		const base = 946_681_200_000_000_000n;
		expect(values).toEqual([String(base + 1_800_000_000_000n), null, String(base + 360_000_000_000n), null]);
	});

	it("xarray's timedelta form becomes a Duration", () => {
		const file = fresh("lag.arrow");
		exportOk([root, "--array", "lag", "-o", file]);
		const table = readArrow(file);
		expect(String(table.schema.fields[0].type)).toBe("Duration<MILLISECOND>");
		expect(Array.from(table.getChild("lag")!.data[0].values as BigInt64Array)).toEqual([1_500n, -250n, 0n]);
	});

	it("a datetime64 array with CF attributes is exported as datetime64, with one warning line (xarray issue 11350)", () => {
		const file = fresh("stamp.arrow");
		const result = runCli([root, "--array", "stamp", "-o", file]);
		expect(result.status).toBe(0);
		const lines = result.stderr.trim().split("\n");
		expect(lines[0]).toMatch(/^dt64-export: warning: stamp is a numpy\.datetime64 array that also carries CF attributes \(units "seconds since 1970-01-01", calendar "proleptic_gregorian"\), the mark of xarray issue 11350; exported as datetime64/);
		expect(lines).toHaveLength(2);
		expect(Array.from(readArrow(file).getChild("stamp")!.data[0].values as BigInt64Array)).toEqual([0n, 60n]);
		// A dataset export says it too, before its files.
		const dataset = runCli([root, "--array", "stamp", "--partition-by", "year", "-o", fresh("stamp-dataset")]);
		expect(dataset.status).toBe(0);
		expect(dataset.stderr.split("\n")[0]).toBe(lines[0]);
	});

	it("inspect shows the CF attributes, CF time with its Arrow type, and decoded first/last values", () => {
		const text = runCli(["inspect", root]);
		expect(text.status).toBe(0);
		const out = text.stdout.toString();
		expect(out).toContain('int32, CF time (minutes since 2000-01-01T00:00:00Z, standard)');
		expect(out).toContain('attributes  units "minutes since 2000-01-01T00:00:00Z", calendar "standard", _FillValue -1, missing_value [-2,-3]');
		expect(out).toMatch(/minutes[\s\S]*exportable {2}yes, as timestamp\[s\][\s\S]*first {7}2000-01-01T00:00:00, row 0[\s\S]*last {8}2000-01-01T01:30:00, row 4/);
		const json = JSON.parse(runCli(["inspect", root, "--json"]).stdout.toString());
		const hours = json.nodes.find((node: { path: string }) => node.path === "hours");
		// Its 0.1 hours is not a whole number of ns: an exact export refuses it (line 194), and inspect says so (it said yes).
		expect(hours).toMatchObject({ cfTime: "hours since 2000-01-01 00:00:00 +01:00, standard", exportable: false, reasonCode: "TRUNCATION", arrowType: "timestamp[ns]", attributes: { units: "hours since 2000-01-01 00:00:00 +01:00" } });
		expect(hours.first).toMatchObject({ status: "found", row: 0, iso: "1999-12-31T23:30:00" });
		expect(hours.last).toMatchObject({ status: "found", row: 3, iso: null });
		const lag = json.nodes.find((node: { path: string }) => node.path === "lag");
		expect(lag).toMatchObject({ cfTime: "seconds, timedelta", arrowType: "duration[ms]", first: { iso: "PT1.500S" }, last: { iso: "PT0S" } });
	});
});

describe("calendars refused clearly: leap seconds (utc, tai), none, month_lengths, unknown", () => {
	const CALENDARS: Record<string, [attributes: Record<string, unknown>, message: RegExp]> = {
		utc: [{ calendar: "utc" }, /^dt64-export: array utc: calendar "utc" is refused: its counts include leap seconds, and dt64-export has no leap-second table to convert them exactly \[CALENDAR_UNSUPPORTED\]\n$/],
		tai: [{ calendar: "TAI" }, /^dt64-export: array tai: calendar "TAI" is refused: its counts include leap seconds.*\(TAI instants are not UTC ones\) \[CALENDAR_UNSUPPORTED\]\n$/],
		none: [{ calendar: "none" }, /^dt64-export: array none: calendar "none" is refused: it has no dates, only counts \[CALENDAR_UNSUPPORTED\]\n$/],
		lengths: [{ calendar: "mars", month_lengths: [30, 30, 30] }, /^dt64-export: array lengths: calendar "mars" is refused: a calendar defined by month_lengths is not supported \[CALENDAR_UNSUPPORTED\]\n$/],
		martian: [{ calendar: "martian" }, /^dt64-export: array martian: unknown calendar "martian"; known: proleptic_gregorian, standard, gregorian, julian, noleap/],
	};
	let root: string;
	beforeAll(async () => {
		root = fresh("calendars.zarr");
		await writeGroup(root, "");
		for (const [name, [attributes]] of Object.entries(CALENDARS)) {
			await writeArray(root, name, { shape: [2], chunks: [2], dataType: "int64", fillValue: 0n, values: BigInt64Array.of(0n, 1n), attributes: { units: "seconds since 2000-01-01", ...attributes } });
		}
	});

	it.each(Object.keys(CALENDARS))("%s: one line, exit 1, nothing at -o; the library error has code CALENDAR_UNSUPPORTED", async (name) => {
		const [, message] = CALENDARS[name];
		refused([root, "--array", name], message);
		refused([root, "--columns", name], message);
		await expect(exportTable(root, new PassThrough().resume(), { array: name })).rejects.toMatchObject({ code: "CALENDAR_UNSUPPORTED", path: name });
	});

	it("inspect shows each as not exportable, with the reason", () => {
		const json = JSON.parse(runCli(["inspect", root, "--json"]).stdout.toString());
		for (const name of Object.keys(CALENDARS)) {
			const node = json.nodes.find((entry: { path: string }) => entry.path === name);
			expect(node).toMatchObject({ exportable: false, reason: expect.stringMatching(/^CF time refused: (calendar|unknown calendar)/) });
		}
	});
});

describe("a missing chunk of a Zarr v2 CF time array", () => {
	it("is null when the fill value is the missing-value marker (xarray's _FillValue)", () => {
		const root = fresh("v2-missing.zarr");
		fs.mkdirSync(path.join(root, "time"), { recursive: true });
		fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
		fs.writeFileSync(path.join(root, "time/.zarray"), JSON.stringify({ zarr_format: 2, shape: [5], chunks: [2], dtype: "<i8", fill_value: -1, order: "C", compressor: null, filters: null }));
		fs.writeFileSync(path.join(root, "time/.zattrs"), JSON.stringify({ units: "days since 2000-01-01", calendar: "standard", _ARRAY_DIMENSIONS: ["time"] }));
		// Chunk 1 (rows 2 and 3) is not written: it holds the fill value -1, the marker.
		fs.writeFileSync(path.join(root, "time/0"), Buffer.from(BigInt64Array.of(0n, -1n).buffer));
		fs.writeFileSync(path.join(root, "time/2"), Buffer.from(BigInt64Array.of(3n, 0n).buffer));
		const file = fresh("v2-missing.arrow");
		exportOk([root, "-o", file]);
		const values = pl.readIPC(fs.readFileSync(file)).getColumn("time").cast(pl.Int64).cast(pl.Utf8).toArray();
		expect(values).toEqual(["946684800000", null, null, null, "946944000000"]);
	});
});
