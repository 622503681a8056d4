/**
 * Model-calendar CF time (noleap, all_leap, 360_day) with `convertCalendar`, decoded in doubles through a table of
 * each model year's proleptic Gregorian days (decode-cf-times.ts, modelCalendarInstants) instead of a label and BigInts
 * per value: every day of ten years, hourly counts from a reference at 06:00, int32 days and float64 quarter days,
 * against cftime (test/fixtures/model-calendars, test/golden/make_model_calendar_fixtures.py), and random counts
 * against the exact general path (cfInstantOf: the same labels, in BigInts), out to where doubles stop and the general
 * path takes over.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../scripts/lib/mulberry32.mjs";
import { cfInstantOf, decodeCfCounts, decodeCfTimes } from "../src/cf/decode-cf-times.js";
import { parseCfTimeCoding } from "../src/cf/cf-time-coding.js";
import { cfMissingValueMarkers } from "../src/cf/missing-value.js";
import { exportToFile } from "../src/index.js";
import { REPO, tempDir } from "./support/cli.js";

const FIXTURES = path.join(REPO, "test/fixtures/model-calendars");

interface GoldenCase {
	array: string;
	dtype: string;
	units: string;
	calendar: string;
	/** Each value's instant in seconds; null for a label the proleptic Gregorian calendar lacks. */
	seconds: (number | null)[];
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, GoldenCase>;

async function exportedSeconds(name: string, options: Record<string, unknown>): Promise<(bigint | null)[]> {
	const file = path.join(tempDir(), "out.arrow");
	await exportToFile(path.join(FIXTURES, `${name}.zarr`), file, { array: CASES[name].array, convertCalendar: true, unit: "s", ...options });
	// The stored int64 seconds (a Timestamp's `get` gives milliseconds as a double).
	const out: (bigint | null)[] = [];
	for (const batch of tableFromIPC(fs.readFileSync(file)).batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}

describe("model calendars against cftime", () => {
	it.each(Object.keys(CASES))("%s: every value is cftime's label as a proleptic Gregorian instant", async (name) => {
		const expected = CASES[name].seconds;
		const kept = expected.flatMap((seconds) => (seconds === null ? [] : [BigInt(seconds)]));
		// The labels the proleptic Gregorian calendar lacks are left out, as xarray's convert_calendar leaves them out.
		expect(await exportedSeconds(name, { dropInvalidDates: true })).toEqual(kept);
		const first = expected.indexOf(null);
		if (first < 0) {
			expect(await exportedSeconds(name, {})).toEqual(kept);
			return;
		}
		// Without dropping them: the first one is refused, named by its position, as before.
		await expect(exportedSeconds(name, {})).rejects.toMatchObject({ code: "VALUE_INVALID", index: first, message: expect.stringContaining(`at index ${first} is the date `) });
	});
});

/** The same counts on every run. */
const random = mulberry32(20261205);

/** A random integer in [-bound, bound], as a number. */
function randomCount(bound: number): number {
	return Math.round((random() * 2 - 1) * bound);
}

describe("model calendars in doubles against the exact general path", () => {
	const cases = [
		["noleap", "days since 2000-01-01"],
		["all_leap", "hours since 1850-01-01 06:00:00"],
		["360_day", "days since 0001-01-01"],
		["365_day", "minutes since 1970-01-01"],
		["366_day", "seconds since 2000-02-29"],
	] as const;
	it.each(cases)("%s, %s: int64 and float64 counts, small and huge, the same instants (or refusals)", (calendar, units) => {
		const coding = parseCfTimeCoding({ units, calendar }, { convertCalendar: true });
		for (const [dataType, unit] of [
			["int64", "s"],
			["float64", "s"],
			["int64", "ms"],
			["int64", "ns"],
		] as const) {
			const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType, attributes: {}, fillValue: null });
			const reference = cfInstantOf(coding, markers, dataType);
			// Counts of a few days to past 2^53 target units, where doubles stop.
			const bounds = [10, 1e4, 1e6, 1e9, 1e12, 1e15, 2 ** 53];
			const counts = bounds.flatMap((bound) => Array.from({ length: 200 }, () => randomCount(bound)));
			counts.push(0, -1, 1, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER);
			const values = dataType === "int64" ? BigInt64Array.from(counts, (count) => BigInt(count)) : Float64Array.from(counts, (count) => count / 4);
			const perUnit = { s: 10n ** 18n, ms: 10n ** 15n, us: 10n ** 12n, ns: 10n ** 9n }[unit];
			counts.forEach((_, i) => {
				const value = values[i];
				let expected: bigint | "refused" | null;
				try {
					const attoseconds = reference(value);
					expected = attoseconds === null ? null : attoseconds;
				} catch {
					expected = "refused";
				}
				let actual: bigint | "refused" | null;
				try {
					const decoded = decodeCfTimes(dataType === "int64" ? BigInt64Array.of(value as bigint) : Float64Array.of(value as number), coding, markers, { unit, onOverflow: "null", allowTruncate: true, dataType });
					actual = decoded.nullCount === 1 ? null : decoded.values[0] * perUnit;
				} catch {
					actual = "refused";
				}
				// The floored instant (allowTruncate), or null past the unit's range, or a label the Gregorian calendar lacks.
				const floored = typeof expected === "bigint" ? expected - (((expected % perUnit) + perUnit) % perUnit) : expected;
				const inRange = typeof floored !== "bigint" || (floored / perUnit >= -(2n ** 63n) + 1n && floored / perUnit < 2n ** 63n);
				expect(actual, `${dataType} ${value} ${calendar} ${units} in ${unit}`).toEqual(inRange ? floored : null);
			});
		}
	});

	it("a whole array decoded at once (in place, missing values, dropped dates) is each value decoded alone", () => {
		const coding = parseCfTimeCoding({ units: "hours since 1999-12-30 06:00:00", calendar: "360_day", _FillValue: -1 }, { convertCalendar: true });
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: { _FillValue: -1 }, fillValue: null });
		const counts = BigInt64Array.from({ length: 24 * 360 * 3 }, (_, i) => (i % 997 === 5 ? -1n : BigInt(i * 3 - 24 * 360)));
		const alone = [...counts].map((count) => {
			const one = decodeCfCounts(BigInt64Array.of(count), coding, markers, { unit: "s", onOverflow: "error", dataType: "int64", invalidDates: "drop" });
			return one.nullCount === 1 ? null : one.values[0];
		});
		const whole = decodeCfCounts(counts.slice(), coding, markers, { unit: "s", onOverflow: "error", dataType: "int64", invalidDates: "drop", inPlace: true });
		expect(Array.from({ length: counts.length }, (_, i) => (whole.validity !== null && ((whole.validity[i >> 3] >> (i & 7)) & 1) === 0 ? null : whole.values[i]))).toEqual(alone);
		expect(whole.invalidDates?.length).toBe(alone.filter((value, i) => value === null && counts[i] !== -1n).length);
	});
});
