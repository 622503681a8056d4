/**
 * CF-encoded time written by xarray itself (test/fixtures/cf, made by test/golden/make_cf_fixtures.py): every
 * store exported through the library with `--unit auto`, each value compared exactly with the instant xarray and
 * cftime decode it to (expected.json), and every refusal checked.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC, type Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { exportTable } from "../src/export.js";
import { REPO } from "./support/cli.js";

const FIXTURES = path.join(REPO, "test/fixtures/cf");

interface GoldenCase {
	array: string;
	dtype: string;
	attributes: Record<string, unknown>;
	instants?: (string | null)[];
	durations?: (string | null)[];
	missing_label?: { index: number; label: string };
	refused?: string;
	decoder?: string;
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, GoldenCase>;
/** Nanoseconds per value of each Arrow TimeUnit (SECOND = 0 ... NANOSECOND = 3). */
const NS_PER_UNIT: readonly bigint[] = [1_000_000_000n, 1_000_000n, 1_000n, 1n];
const MODEL_CALENDARS = new Set(["noleap", "365_day", "all_leap", "366_day", "360_day"]);

/** Exports a store's CF time array through the library into memory, and reads it back. */
async function exportToTable(name: string, options: { format?: "arrow" | "parquet"; convertCalendar?: boolean; unit?: "auto" | "s" | "ms" | "us" | "ns" } = {}): Promise<Table> {
	const parts: Buffer[] = [];
	const sink = new Writable({
		write(chunk: Buffer, _encoding, callback) {
			parts.push(chunk);
			callback();
		},
	});
	await exportTable(path.join(FIXTURES, `${name}.zarr`), sink, { array: CASES[name].array, format: options.format ?? "arrow", convertCalendar: options.convertCalendar, unit: options.unit });
	return tableFromIPC(Buffer.concat(parts));
}

/** Each row as exact nanoseconds (null for null), from whatever unit the column has. */
function asNanoseconds(table: Table): (string | null)[] {
	const perUnit = NS_PER_UNIT[(table.schema.fields[0].type as { unit: number }).unit];
	const out: (string | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? String((data.values as BigInt64Array)[i] * perUnit) : null);
	}
	return out;
}

const needsConversion = (c: GoldenCase) => MODEL_CALENDARS.has(String(c.attributes.calendar ?? "").toLowerCase());

describe("CF time golden stores written by xarray", () => {
	const decoded = Object.entries(CASES).filter(([, c]) => c.instants !== undefined || c.durations !== undefined);
	it.each(decoded)("%s: every value is the instant xarray/cftime decode", async (name, c) => {
		const table = await exportToTable(name, { convertCalendar: needsConversion(c) });
		expect(asNanoseconds(table)).toEqual(c.instants ?? c.durations);
		const field = table.schema.fields[0];
		expect(String(field.type)).toMatch(c.durations ? /^Duration/ : /^Timestamp/);
		expect(field.metadata.get("zarr.cf_decoded")).toBe("true");
		expect(field.metadata.get("units")).toBe(c.attributes.units);
		expect(field.metadata.get("calendar")).toBe(c.attributes.calendar);
		expect(JSON.parse(field.metadata.get("zarr.data_type")!)).toBe(c.dtype);
	});

	it("chooses the coarsest exact unit with --unit auto", async () => {
		const unitOf = async (name: string) => String((await exportToTable(name, { convertCalendar: needsConversion(CASES[name]) })).schema.fields[0].type);
		expect(await unitOf("hourly")).toBe("Timestamp<SECOND>");
		expect(await unitOf("irregular-us")).toBe("Timestamp<MICROSECOND>");
		expect(await unitOf("irregular-ns")).toBe("Timestamp<NANOSECOND>");
		expect(await unitOf("unit-msec")).toBe("Timestamp<MILLISECOND>");
		expect(await unitOf("ref-fraction")).toBe("Timestamp<MILLISECOND>");
		expect(await unitOf("float-hours")).toBe("Timestamp<SECOND>");
		expect(await unitOf("timedelta")).toBe("Duration<SECOND>");
		expect(await unitOf("timedelta-hours-nat")).toBe("Duration<SECOND>");
		expect(await unitOf("timedelta-milliseconds")).toBe("Duration<MILLISECOND>");
		expect(await unitOf("timedelta-nanoseconds")).toBe("Duration<NANOSECOND>");
		// ns cannot hold the years 1582 or 12000: --unit ns is refused as an overflow, auto (s) is exact.
		await expect(exportToTable("ref-long-year", { unit: "ns" })).rejects.toThrow(/outside the int64 range in unit ns/);
	});

	const missing = Object.entries(CASES).filter(([, c]) => c.missing_label !== undefined);
	it.each(missing)("%s: a date label the proleptic Gregorian calendar lacks is refused, naming value and index", async (name, c) => {
		const { index, label } = c.missing_label!;
		await expect(exportToTable(name, { convertCalendar: true })).rejects.toThrow(new RegExp(`at index ${index} is the date ${label} of the ${c.attributes.calendar} calendar, which does not exist`));
		await expect(exportToTable(name, { convertCalendar: true })).rejects.toMatchObject({ code: "VALUE_INVALID", index });
	});

	it("model calendars are refused without --convert-calendar", async () => {
		for (const [name] of Object.entries(CASES).filter(([, c]) => needsConversion(c))) {
			await expect(exportToTable(name)).rejects.toMatchObject({ code: "CALENDAR_UNSUPPORTED", option: "convertCalendar", message: expect.stringMatching(/is a model calendar/) });
		}
	});

	const REFUSALS: Record<string, RegExp> = {
		"standard-gap-reference": /units "days since 1582-10-10": reference: date 1582-10-10 does not exist in the standard calendar \(the ten days/,
		"months-since": /units "months since 2000-01-01": months are not a fixed duration/,
		"years-since": /units "years since 2000-01-01": years are not a fixed duration/,
	};
	const CODES: Record<string, string> = { "standard-gap-reference": "VALUE_INVALID", "months-since": "UNSUPPORTED", "years-since": "UNSUPPORTED" };
	it.each(Object.entries(CASES).filter(([, c]) => c.refused !== undefined))("%s is refused", async (name) => {
		await expect(exportToTable(name)).rejects.toThrow(REFUSALS[name]);
		await expect(exportToTable(name)).rejects.toMatchObject({ code: CODES[name] });
	});
});
