import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCfCalendar } from "../src/cf/calendars.js";
import { baseCfTargetUnit, refineTargetUnits } from "../src/cf/cf-target-unit.js";
import { cfTimeKindOf, parseCfTimeCoding } from "../src/cf/cf-time-coding.js";
import { CfDecodeError, decodeCfTimes } from "../src/cf/decode-cf-times.js";
import { exactDyadic } from "../src/cf/exact-double.js";
import { cfMissingValueMarkers, type MissingValueMarkers } from "../src/cf/missing-value.js";
import { parseReferenceDate } from "../src/cf/reference-date.js";
import { parseCfInstantUnits } from "../src/cf/time-units.js";
import { describeForCli } from "../src/cli/error-advice.js";
import type { TargetUnit } from "../src/dtype/units.js";
import type { NumericValues } from "../src/zarr/chunk-values.js";
import { doubleAsFraction, gregorianJdn, julianJdn, REFERENCE_UNITS, referenceDecode, referenceNanoseconds, type ReferenceInstant } from "./support/reference-cf.js";

// No marker at all, not even int64's NaT (which cfMissingValueMarkers adds): the arithmetic alone, every int64 count.
const NO_MARKERS: MissingValueMarkers = { integers: new Set(), smallIntegers: new Set(), floats: new Set(), nanIsMissing: false };
const FLOAT_MARKERS: MissingValueMarkers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
const TARGETS: readonly TargetUnit[] = ["s", "ms", "us", "ns"];
const NS_PER_DAY = 86_400n * 10n ** 9n;

function decodeOne(value: number | bigint, attributes: Record<string, unknown>, unit: TargetUnit, options: { convertCalendar?: boolean; allowTruncate?: boolean } = {}) {
	const coding = parseCfTimeCoding(attributes, options);
	const values: NumericValues = typeof value === "bigint" ? BigInt64Array.of(value) : Float64Array.of(value);
	const markers = typeof value === "bigint" ? NO_MARKERS : FLOAT_MARKERS;
	return decodeCfTimes(values, coding, markers, { unit, allowTruncate: options.allowTruncate ?? false, onOverflow: "error", dataType: "float64" });
}

describe("CF time units", () => {
	it("reads every UDUNITS spelling, in any case", () => {
		const spellings: Record<string, string[]> = {
			days: ["days", "day", "d", "DAYS"],
			hours: ["hours", "hour", "hr", "h", "Hours"],
			minutes: ["minutes", "minute", "min"],
			seconds: ["seconds", "second", "sec", "s"],
			milliseconds: ["milliseconds", "millisec", "millisecs", "msec", "ms"],
			microseconds: ["microseconds", "microsec", "microsecs", "usec", "us"],
			nanoseconds: ["nanoseconds", "nsec", "ns"],
			weeks: ["weeks", "week"],
		};
		for (const [unit, words] of Object.entries(spellings)) {
			for (const word of words) expect(parseCfInstantUnits(`${word} since 2000-01-01`).unit).toBe(unit);
		}
	});

	it("refuses months and years since, and unknown units with the accepted list", () => {
		for (const word of ["months", "month", "mon"]) {
			expect(() => parseCfInstantUnits(`${word} since 2000-01-01`)).toThrow(`: months are not a fixed duration (UDUNITS makes a month 30.436875 days, a twelfth of its year), so the counts are no instants; refused`);
		}
		for (const word of ["years", "year", "yr", "a"]) {
			expect(() => parseCfInstantUnits(`${word} since 2000-01-01`)).toThrow(`: years are not a fixed duration (UDUNITS makes a year 365.242198781 days, a tropical year), so the counts are no instants; refused`);
		}
		// A common year is a fixed 365 days in UDUNITS: what is wrong is that it is no calendar year.
		expect(() => parseCfInstantUnits("common_years since 2000-01-01")).toThrow(/: common_years are 365 days in UDUNITS, not calendar years: .*; refused$/);
		expect(() => parseCfInstantUnits("leap_year since 2000-01-01")).toThrow(/: leap_years are 366 days in UDUNITS, not calendar years: .*; refused$/);
		expect(() => parseCfInstantUnits("fortnights since 2000-01-01")).toThrow(/unknown time unit "fortnights"; accepted: days\/day\/d/);
	});

	it("detects CF time attributes, including refused ones, and xarray's timedelta form", () => {
		expect(cfTimeKindOf({ units: "hours since 2000-01-01" })).toBe("datetime");
		expect(cfTimeKindOf({ units: "months since 2000-01-01" })).toBe("datetime");
		expect(cfTimeKindOf({ units: "seconds", dtype: "timedelta64[ns]" })).toBe("duration");
		// xarray's decode_cf reads its bare time units as timedeltas without the dtype attribute; other spellings not.
		for (const units of ["days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]) expect(cfTimeKindOf({ units })).toBe("duration");
		for (const units of ["h", "Hours", "sec", " seconds", "weeks"]) expect(cfTimeKindOf({ units })).toBeUndefined();
		expect(cfTimeKindOf({ units: "h", dtype: "timedelta64[ns]" })).toBe("duration");
		expect(cfTimeKindOf({ units: "K" })).toBeUndefined();
		expect(cfTimeKindOf({})).toBeUndefined();
	});
});

describe("reference dates", () => {
	const instant = (text: string) => parseCfTimeCoding({ units: `seconds since ${text}`, calendar: "proleptic_gregorian" }).referenceNanoseconds;
	const at = (iso: string) => BigInt(Date.parse(iso)) * 10n ** 6n;

	it("reads every accepted form", () => {
		expect(instant("2000-01-01")).toBe(at("2000-01-01T00:00:00Z"));
		expect(instant("2000-1-1 0:0:0")).toBe(at("2000-01-01T00:00:00Z"));
		expect(instant("2000-01-01T06:30")).toBe(at("2000-01-01T06:30:00Z"));
		// An hour alone, as cftime reads it (trial 15: xarray users' "hours since 2000-01-01T00").
		expect(instant("2000-01-01T00")).toBe(at("2000-01-01T00:00:00Z"));
		expect(instant("2000-01-01 06")).toBe(at("2000-01-01T06:00:00Z"));
		expect(instant("2000-01-01T06Z")).toBe(at("2000-01-01T06:00:00Z"));
		expect(instant("2000-01-01T06 +05")).toBe(at("2000-01-01T01:00:00Z"));
		expect(instant("2000-01-01 06:30:15.5")).toBe(at("2000-01-01T06:30:15.500Z"));
		expect(instant("2000-01-01 00:00:00.123456789")).toBe(at("2000-01-01T00:00:00Z") + 123_456_789n);
		expect(instant("2000-01-01 00:00:00.1234567890000")).toBe(at("2000-01-01T00:00:00Z") + 123_456_789n);
		for (const utc of ["Z", " Z", "UTC", " UTC", " utc", " GMT", "GMT", "+00:00", " -0000"]) expect(instant(`2000-01-01 00:00:00${utc}`)).toBe(at("2000-01-01T00:00:00Z"));
	});

	it("subtracts a time zone offset, as cftime does", () => {
		const expected = at("1999-12-31T19:00:00Z");
		for (const zone of [" +05:00", "+05:00", " +0500", "+05", " +5"]) expect(instant(`2000-01-01 00:00:00${zone}`)).toBe(expected);
		expect(instant("2000-01-01T00:00:00-05:30")).toBe(at("2000-01-01T05:30:00Z"));
	});

	it("reads signed and long years", () => {
		expect(instant("-100-03-01")).toBe((gregorianJdn(-100n, 3n, 1n) - 2_440_588n) * NS_PER_DAY);
		expect(instant("12000-01-01")).toBe((gregorianJdn(12_000n, 1n, 1n) - 2_440_588n) * NS_PER_DAY);
		expect(instant("+2000-01-01")).toBe(at("2000-01-01T00:00:00Z"));
	});

	it("reads a year and month, or a year, alone as the first of the month or year (UDUNITS; pandas reads them so)", () => {
		expect(instant("2000-03")).toBe(at("2000-03-01T00:00:00Z"));
		expect(instant("1999-7")).toBe(at("1999-07-01T00:00:00Z"));
		expect(instant("2001")).toBe(at("2001-01-01T00:00:00Z"));
		expect(instant("2001Z")).toBe(at("2001-01-01T00:00:00Z"));
		expect(instant("-100")).toBe((gregorianJdn(-100n, 1n, 1n) - 2_440_588n) * NS_PER_DAY);
		// A packed date is not read as the year 20,000,101.
		expect(() => instant("20000101")).toThrow(/reference date "20000101" is a number of more than 4 digits: a year alone, or a packed date \(YYYYMMDD\)\? Write it Y-M-D/);
	});

	it("refuses what is not a date, quoting it", () => {
		for (const text of ["2000/01/01", "yesterday", "2000-01 06:00", "2000-13-01", "2000-01-32", "2000-01-01 25:00:00", "2000-01-01 00:00:00.0000000001", "2000-01-01 +24:00"]) {
			expect(() => parseReferenceDate(text, `days since ${text}`)).toThrow(new RegExp(`reference date ${JSON.stringify(text).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
		}
		expect(() => instant("2001-02-29")).toThrow(/2001-02-29 does not exist in the proleptic_gregorian calendar/);
	});
});

describe("calendars", () => {
	const days = (text: string, calendar: string) => parseCfTimeCoding({ units: `days since ${text}`, calendar }).referenceNanoseconds / NS_PER_DAY;

	it("standard is Julian before 1582-10-15 and Gregorian from it; the ten days between do not exist", () => {
		for (const calendar of ["standard", "gregorian", "Standard", undefined]) {
			const attributes = calendar === undefined ? { units: "days since 1582-10-15" } : { units: "days since 1582-10-15", calendar };
			expect(parseCfTimeCoding(attributes).referenceNanoseconds / NS_PER_DAY).toBe(gregorianJdn(1582n, 10n, 15n) - 2_440_588n);
		}
		expect(days("1582-10-04", "standard")).toBe(days("1582-10-15", "standard") - 1n);
		expect(days("1582-10-04", "standard")).toBe(julianJdn(1582n, 10n, 4n) - 2_440_588n);
		expect(days("1500-02-29", "standard")).toBe(julianJdn(1500n, 2n, 29n) - 2_440_588n);
		for (const day of [5, 10, 14]) expect(() => days(`1582-10-${day}`, "standard")).toThrow(/does not exist in the standard calendar \(the ten days/);
		expect(() => days("1700-02-29", "standard")).toThrow(/does not exist/);
	});

	it("julian counts every date as Julian, without a year 0 (as cftime)", () => {
		expect(days("2000-01-01", "julian")).toBe(julianJdn(2000n, 1n, 1n) - 2_440_588n);
		expect(days("1900-02-29", "julian")).toBe(julianJdn(1900n, 2n, 29n) - 2_440_588n);
		// cftime: julian -100-03-01 has the ordinal (JDN) 1684958: 100 BC, astronomical -99.
		expect(days("-100-03-01", "julian")).toBe(1_684_958n - 2_440_588n);
		expect(() => days("0-01-01", "julian")).toThrow(/no year 0/);
	});

	it("refuses model calendars without --convert-calendar, leap-second calendars, none and month_lengths", () => {
		for (const calendar of ["noleap", "365_day", "all_leap", "366_day", "360_day", "NOLEAP"]) {
			expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar })).toThrow(expect.objectContaining({ code: "CALENDAR_UNSUPPORTED", option: "convertCalendar", message: expect.stringMatching(/is a model calendar/) }));
		}
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "utc" })).toThrow(/leap seconds/);
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "tai" })).toThrow(/leap seconds/);
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "none" })).toThrow(/refused: it has no dates/);
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "martian" })).toThrow(/unknown calendar "martian"/);
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", month_lengths: [30, 30] })).toThrow(/month_lengths/);
		expect(parseCfCalendar(undefined).name).toBe("standard");
	});

	it("--convert-calendar maps each model date label to the same proleptic Gregorian label", () => {
		const label = (count: number, calendar: string, units = "days since 2001-01-01") => decodeOne(BigInt(count), { units, calendar }, "s", { convertCalendar: true }).values[0];
		const at = (iso: string) => BigInt(Date.parse(iso) / 1000);
		// noleap: day 59 after 2001-01-01 is 2001-03-01; in 2004 the label 2004-03-01 follows 2004-02-28.
		expect(label(59, "noleap")).toBe(at("2001-03-01T00:00:00Z"));
		expect(label(365 * 3 + 59, "noleap")).toBe(at("2004-03-01T00:00:00Z"));
		expect(label(365 * 3 + 58, "365_day")).toBe(at("2004-02-28T00:00:00Z"));
		// all_leap: 2004-02-29 exists in both; 2001-02-29 only in all_leap.
		expect(label(366 * 3 + 59, "all_leap")).toBe(at("2004-02-29T00:00:00Z"));
		expect(() => label(59, "366_day")).toThrow(/date 2001-02-29 of the 366_day calendar, which does not exist in the proleptic Gregorian calendar/);
		// 360_day: every month has 30 days.
		expect(label(30 * 4 + 29, "360_day")).toBe(at("2001-05-30T00:00:00Z"));
		expect(() => label(30 + 29, "360_day")).toThrow(CfDecodeError);
		expect(() => label(30 + 28, "360_day")).toThrow(/value 58 of float64 CF time \(days since 2001-01-01, 360_day\) at index 0 is the date 2001-02-29/);
		// The time of day and fractions are kept: 1.5 days after 2001-02-28 12:00 in noleap is 2001-03-02 00:00.
		expect(decodeOne(1.5, { units: "days since 2001-02-28 12:00", calendar: "noleap" }, "s", { convertCalendar: true }).values[0]).toBe(at("2001-03-02T00:00:00Z"));
	});
});

describe("decoding", () => {
	it("decodes float counts from their exact binary value", () => {
		const hours = { units: "hours since 2000-01-01", calendar: "proleptic_gregorian" };
		expect(decodeOne(0.5, hours, "s").values[0]).toBe(946_684_800n + 1_800n);
		// 0.1 hours is not 360 s exactly: the double 0.1 is slightly more than a tenth.
		expect(() => decodeOne(0.1, hours, "ns")).toThrow(/value 0.1 of float64 CF time \(hours since 2000-01-01, proleptic_gregorian\) at index 0 is not a whole number of ns/);
		expect(decodeOne(0.1, hours, "ns", { allowTruncate: true }).values[0]).toBe(946_684_800_000_000_000n + 360_000_000_000n);
		for (const value of [0.1, -2.75, 1e300, 5e-324, 3]) {
			const mine = exactDyadic(value);
			const reference = doubleAsFraction(value);
			expect(mine.numerator << reference.shift).toBe(reference.numerator << mine.shift);
		}
	});

	it("makes NaN and the markers null, and refuses infinities as overflow unless asked", () => {
		const coding = parseCfTimeCoding({ units: "days since 2000-01-01" });
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: { _FillValue: -9999, missing_value: [1e20, "NaN"] }, fillValue: null });
		const out = decodeCfTimes(Float64Array.of(0, NaN, -9999, 1e20, 1), coding, markers, { unit: "s", allowTruncate: false, onOverflow: "error", dataType: "float64" });
		expect(out.nullCount).toBe(3);
		expect(Array.from(out.validity!)).toEqual([0b10001]);
		expect(out.values[4]).toBe(946_684_800n + 86_400n);
		expect(() => decodeCfTimes(Float64Array.of(Infinity), coding, markers, { unit: "s", allowTruncate: false, onOverflow: "error", dataType: "float64" })).toThrow(expect.objectContaining({ code: "OVERFLOW", index: 0, unit: "s", message: expect.stringMatching(/outside the int64 range in unit s$/) }));
		const nulls = decodeCfTimes(Float64Array.of(-Infinity, 1e300), coding, markers, { unit: "s", allowTruncate: false, onOverflow: "null", dataType: "float64" });
		expect(nulls.nullCount).toBe(2);
	});

	it("says whether a coarser unit holds a count ns cannot, so that the CLI suggests one only then", () => {
		const refusal = (value: number | bigint, units: string) => {
			try {
				decodeOne(value, { units }, "ns");
			} catch (error) {
				return error as CfDecodeError;
			}
			throw new Error("not refused");
		};
		for (const [value, units] of [[Infinity, "hours since 2000-01-01"], [-Infinity, "seconds"], [1e300, "days since 2000-01-01"], [2n ** 62n, "weeks since 2000-01-01"]] as const) {
			const refused = refusal(value, units);
			expect(refused).toMatchObject({ code: "OVERFLOW", unit: "ns", coarserUnitHolds: false });
			expect(describeForCli(refused)).toBe(`${refused.message} (use --on-overflow null to write null instead)`);
		}
		for (const [value, units] of [[106_752n, "days since 1970-01-01"], [1e6, "days since 2000-01-01"]] as const) {
			const refused = refusal(value, units);
			expect(refused).toMatchObject({ code: "OVERFLOW", unit: "ns", coarserUnitHolds: true });
			expect(describeForCli(refused)).toMatch(/ \(a coarser --unit, us, ms or s, holds a wider range: .*\)$/);
		}
	});

	it("reads markers as xarray does: v2 fill_value, v3 _FillValue, missing_value lists; float32 markers rounded to float32", () => {
		const v2 = cfMissingValueMarkers({ zarrFormat: 2, dataType: "int32", attributes: { _FillValue: 7, missing_value: 3 }, fillValue: { kind: "integer", value: -1n } });
		expect([...v2.integers].sort()).toEqual([-1n, 3n]);
		const v3 = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int32", attributes: { _FillValue: 7 }, fillValue: { kind: "integer", value: -1n } });
		expect([...v3.integers]).toEqual([7n]);
		const outOfRange = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int8", attributes: { _FillValue: 300, missing_value: 1.5 }, fillValue: null });
		expect(outOfRange.integers.size).toBe(0);
		const f32 = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float32", attributes: { _FillValue: 0.1 }, fillValue: null });
		expect(f32.floats.has(Math.fround(0.1))).toBe(true);
		expect(() => cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: { _FillValue: 2 ** 60 }, fillValue: null })).toThrow(/past 2\^53/);
		expect(cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: { _FillValue: 2 ** 60 }, fillValue: null }).floats.has(2 ** 60)).toBe(true);
	});

	it("chooses the coarsest exact unit, never coarser than the units", () => {
		const base = (units: string) => baseCfTargetUnit(parseCfTimeCoding({ units }));
		expect(base("days since 2000-01-01")).toBe("s");
		expect(base("milliseconds since 2000-01-01")).toBe("ms");
		expect(base("microseconds since 2000-01-01")).toBe("us");
		expect(base("nanoseconds since 2000-01-01")).toBe("ns");
		expect(base("hours since 2000-01-01 00:00:00.5")).toBe("ms");
		expect(base("hours since 2000-01-01 00:00:00.000001")).toBe("us");
		const coding = parseCfTimeCoding({ units: "hours since 2000-01-01" });
		const refine = (...values: number[]) => refineTargetUnits(Float64Array.of(...values), coding, FLOAT_MARKERS, { exact: "s", nearest: "s" }).exact;
		expect(refine(0, 1.5, NaN, 0.25)).toBe("s");
		expect(refine(1 / 16)).toBe("s");
		expect(refine(1 / 128)).toBe("ms");
		expect(refine(1 / 1024)).toBe("us");
		expect(refine(0.1)).toBe("ns");
	});

	it("decodes durations (xarray's timedelta form) without a reference", () => {
		const coding = parseCfTimeCoding({ units: "seconds", dtype: "timedelta64[ns]" });
		expect(coding.kind).toBe("duration");
		const out = decodeCfTimes(Float64Array.of(1.5, -2, NaN), coding, FLOAT_MARKERS, { unit: "ms", allowTruncate: false, onOverflow: "error", dataType: "float64" });
		expect(Array.from(out.values.slice(0, 2))).toEqual([1_500n, -2_000n]);
		expect(out.nullCount).toBe(1);
	});
});

const referenceArbitrary = fc.record({
	year: fc.integer({ min: -3000, max: 12_000 }),
	month: fc.integer({ min: 1, max: 12 }),
	day: fc.integer({ min: 1, max: 28 }),
	hour: fc.integer({ min: 0, max: 23 }),
	minute: fc.integer({ min: 0, max: 59 }),
	second: fc.integer({ min: 0, max: 59 }),
	fractionDigits: fc.integer({ min: 0, max: 9 }),
	fraction: fc.integer({ min: 0, max: 999_999_999 }),
	offsetMinutes: fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
});

function referenceText(r: fc.RecordValue<typeof referenceArbitrary>): { text: string; instant: ReferenceInstant } {
	const pad = (n: number) => String(n).padStart(2, "0");
	const fraction = r.fractionDigits === 0 ? "" : `.${String(r.fraction).padStart(9, "0").slice(0, r.fractionDigits)}`;
	const sign = r.offsetMinutes < 0 ? "-" : "+";
	const offset = Math.abs(r.offsetMinutes);
	const text = `${r.year}-${pad(r.month)}-${pad(r.day)} ${pad(r.hour)}:${pad(r.minute)}:${pad(r.second)}${fraction} ${sign}${pad(Math.floor(offset / 60))}:${pad(offset % 60)}`;
	const nanosecond = r.fractionDigits === 0 ? 0n : BigInt(String(r.fraction).padStart(9, "0").slice(0, r.fractionDigits).padEnd(9, "0"));
	return { text, instant: { ...r, nanosecond } };
}

describe("property: decoding equals a BigInt reference", () => {
	const countArbitrary = fc.oneof(
		fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
		fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map(BigInt),
		fc.double({ noNaN: true }),
		fc.double({ min: -1e7, max: 1e7, noNaN: true }),
		fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 64),
	);

	it("int64 and float64 counts x every unit x random references (proleptic_gregorian and julian)", () => {
		fc.assert(
			fc.property(referenceArbitrary, fc.constantFrom(...REFERENCE_UNITS), fc.array(countArbitrary, { minLength: 1, maxLength: 8 }), fc.constantFrom(...TARGETS), fc.constantFrom("proleptic_gregorian", "julian"), (r, unit, counts, target, calendar) => {
				const { text, instant } = referenceText(r);
				if (calendar === "julian" && r.year <= 0) return;
				const coding = parseCfTimeCoding({ units: `${unit} since ${text}`, calendar });
				const reference = referenceNanoseconds(instant, calendar);
				expect(coding.referenceNanoseconds).toBe(reference);
				for (const count of counts) {
					const values: NumericValues = typeof count === "bigint" ? BigInt64Array.of(count) : Float64Array.of(count);
					const markers = typeof count === "bigint" ? NO_MARKERS : FLOAT_MARKERS;
					const expected = referenceDecode(count, unit, reference, target);
					const run = (allowTruncate: boolean, onOverflow: "error" | "null") => decodeCfTimes(values, coding, markers, { unit: target, allowTruncate, onOverflow, dataType: "x" });
					if (expected.kind === "overflow") {
						expect(() => run(true, "error")).toThrow(/outside the int64 range/);
						expect(run(true, "null").nullCount).toBe(1);
						continue;
					}
					expect(run(true, "error").values[0]).toBe(expected.value);
					if (expected.exact) expect(run(false, "error").values[0]).toBe(expected.value);
					else expect(() => run(false, "error")).toThrow(/is not a whole number/);
				}
			}),
			{ numRuns: 3000 },
		);
	});

	it("fractional float counts with a whole-second reference (the double fast path) equal the reference", () => {
		const fraction = fc.tuple(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.integer({ min: 0, max: 60 })).map(([n, k]) => n / 2 ** k);
		fc.assert(
			fc.property(fc.array(fc.oneof(fraction, fc.double({ min: -1e9, max: 1e9, noNaN: true })), { minLength: 1, maxLength: 16 }), fc.constantFrom(...REFERENCE_UNITS), fc.constantFrom(...TARGETS), (counts, unit, target) => {
				const coding = parseCfTimeCoding({ units: `${unit} since 1999-12-31 23:00`, calendar: "proleptic_gregorian" });
				const reference = coding.referenceNanoseconds;
				const out = decodeCfTimes(Float64Array.from(counts), coding, FLOAT_MARKERS, { unit: target, allowTruncate: true, onOverflow: "null", dataType: "x" });
				counts.forEach((count, i) => {
					const expected = referenceDecode(count, unit, reference, target);
					if (expected.kind === "overflow") expect((out.validity![i >> 3] >> (i & 7)) & 1).toBe(0);
					else expect(out.values[i]).toBe(expected.value);
				});
			}),
			{ numRuns: 1000 },
		);
	});

	it("every data type (int8…uint64, float32) × every unit × random references, standard calendar included", () => {
		const TYPES = {
			int8: [(n: number) => Int8Array.of(n), fc.integer({ min: -128, max: 127 })],
			uint8: [(n: number) => Uint8Array.of(n), fc.integer({ min: 0, max: 255 })],
			int16: [(n: number) => Int16Array.of(n), fc.integer({ min: -(2 ** 15), max: 2 ** 15 - 1 })],
			uint16: [(n: number) => Uint16Array.of(n), fc.integer({ min: 0, max: 2 ** 16 - 1 })],
			int32: [(n: number) => Int32Array.of(n), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })],
			uint32: [(n: number) => Uint32Array.of(n), fc.integer({ min: 0, max: 2 ** 32 - 1 })],
			uint64: [(n: bigint) => BigUint64Array.of(n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })],
			float32: [(n: number) => Float32Array.of(n), fc.float({ noNaN: true, noDefaultInfinity: true })],
		} as const;
		const typed = fc.constantFrom(...(Object.keys(TYPES) as (keyof typeof TYPES)[])).chain((type) => fc.tuple(fc.constant(type), TYPES[type][1] as fc.Arbitrary<number | bigint>));
		fc.assert(
			fc.property(referenceArbitrary, fc.constantFrom(...REFERENCE_UNITS), typed, fc.constantFrom(...TARGETS), fc.constantFrom("standard", "proleptic_gregorian", "julian"), (r, unit, [type, count], target, calendar) => {
				if (calendar !== "proleptic_gregorian" && r.year <= 0) return;
				const { text, instant } = referenceText(r);
				const attributes = { units: `${unit} since ${text}`, calendar };
				// The standard calendar: Julian dates before the reform, Gregorian from 1582-10-15, the ten days between none.
				const beforeReform = r.year * 10_000 + r.month * 100 + r.day < 1582_10_15;
				if (calendar === "standard" && r.year * 10_000 + r.month * 100 + r.day >= 1582_10_05 && beforeReform) {
					expect(() => parseCfTimeCoding(attributes)).toThrow(/does not exist in the standard calendar/);
					return;
				}
				const coding = parseCfTimeCoding(attributes);
				const reference = referenceNanoseconds(instant, calendar === "julian" || (calendar === "standard" && beforeReform) ? "julian" : "proleptic_gregorian");
				expect(coding.referenceNanoseconds).toBe(reference);
				const values = (TYPES[type][0] as (n: number | bigint) => NumericValues)(count);
				const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: type, attributes: {}, fillValue: null });
				const expected = referenceDecode(typeof count === "bigint" ? count : type === "float32" ? values[0] as number : BigInt(count), unit, reference, target);
				const out = decodeCfTimes(values, coding, markers, { unit: target, allowTruncate: true, onOverflow: "null", dataType: type });
				if (expected.kind === "overflow") expect(out.nullCount).toBe(1);
				else expect(out.values[0]).toBe(expected.value);
			}),
			{ numRuns: 2000 },
		);
	});

	it("every integer data type gives the int64 result of the same counts", () => {
		fc.assert(
			fc.property(fc.array(fc.integer({ min: -128, max: 127 }), { minLength: 1, maxLength: 20 }), fc.constantFrom(...REFERENCE_UNITS), (counts, unit) => {
				const coding = parseCfTimeCoding({ units: `${unit} since 1999-12-31 23:00`, calendar: "standard" });
				const options = { unit: "ns" as const, allowTruncate: false, onOverflow: "null" as const, dataType: "x" };
				const expected = decodeCfTimes(BigInt64Array.from(counts, BigInt), coding, NO_MARKERS, options);
				for (const values of [Int8Array.from(counts), Int16Array.from(counts), Int32Array.from(counts), Float32Array.from(counts), Float64Array.from(counts)]) {
					expect(decodeCfTimes(values, coding, NO_MARKERS, options)).toEqual(expected);
				}
			}),
			{ numRuns: 300 },
		);
	});
});
