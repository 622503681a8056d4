/**
 * `alignOn` (`--align-on`): the year alignment of 360_day dates on its own (day numbers, ties to even, years 0 and
 * before, strictly increasing), exact to the nanosecond, and the option's refusals (without `convertCalendar`, an
 * unknown value, `year` for a calendar xarray converts by date), in the library, the CLI and inspect's advice.
 * xarray's own values are checked in calendar-align-golden.test.ts.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { yearAlignedGregorianDays } from "../src/cf/calendar-alignment.js";
import { gregorianEpochDays, isGregorianLeapYear } from "../src/cf/calendar-days.js";
import { parseCfTimeCoding } from "../src/cf/cf-time-coding.js";
import { decodeCfTimes } from "../src/cf/decode-cf-times.js";
import { cfMissingValueMarkers } from "../src/cf/missing-value.js";
import { planExport } from "../src/export-plan.js";
import { REPO, runCli, tempDir } from "./support/cli.js";

const NO_MARKERS = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
const work = tempDir("dt64-align-on-");

/** The proleptic Gregorian (year, day of the year) of a day number. */
function yearAndDay(days: number): [number, number] {
	const date = new Date(days * 86_400_000);
	const year = date.getUTCFullYear();
	return [year, days - gregorianEpochDays(year, 1, 1) + 1];
}

describe("yearAlignedGregorianDays", () => {
	it("keeps the year, day 1 on January 1 and day 360 on December 31, strictly increasing over every day of 2,800 years", () => {
		const wrong: string[] = [];
		let previous = -Infinity;
		for (let year = -400; year <= 2401; year++) {
			const length = isGregorianLeapYear(year) ? 366 : 365;
			for (let day = 0; day < 360; day++) {
				const aligned = yearAlignedGregorianDays(year * 360 + day);
				if (aligned <= previous) wrong.push(`${year} day ${day + 1}: ${aligned} after ${previous}`);
				previous = aligned;
				if (day === 0 && aligned !== gregorianEpochDays(year, 1, 1)) wrong.push(`${year}: day 1 is ${aligned}`);
				if (day === 359 && aligned !== gregorianEpochDays(year, 1, 1) + length - 1) wrong.push(`${year}: day 360 is ${aligned}`);
			}
		}
		expect(wrong).toEqual([]);
	});

	it("rounds N × doy / 360 half to even, as numpy's round: the ties of a leap and a common year", () => {
		// 366 × 30 / 360 = 30.5 → 30; 366 × 90 / 360 = 91.5 → 92; 365 × 36 / 360 = 36.5 → 36; 365 × 108 / 360 = 109.5 → 110.
		const doyOf = (year: number, day: number) => yearAndDay(yearAlignedGregorianDays(year * 360 + day - 1));
		expect([doyOf(2000, 30), doyOf(2000, 31), doyOf(2000, 90), doyOf(2000, 91)]).toEqual([[2000, 30], [2000, 32], [2000, 92], [2000, 93]]);
		expect([doyOf(2001, 36), doyOf(2001, 37), doyOf(2001, 108), doyOf(2001, 109)]).toEqual([[2001, 36], [2001, 38], [2001, 110], [2001, 111]]);
	});

	it("years 0 and before are astronomical years of the proleptic Gregorian calendar (year 0 and -4 leap, -1 common)", () => {
		expect(yearAlignedGregorianDays(359)).toBe(gregorianEpochDays(0, 12, 31));
		expect(yearAlignedGregorianDays(-4 * 360 + 359)).toBe(gregorianEpochDays(-4, 12, 31));
		expect(yearAlignedGregorianDays(-360 + 359)).toBe(gregorianEpochDays(-1, 12, 31));
		expect(yearAlignedGregorianDays(-360 + 35)).toBe(gregorianEpochDays(-1, 2, 5));
	});
});

describe("decoding with alignOn year", () => {
	it("keeps the time of day to the nanosecond (xarray, through cftime, keeps microseconds)", () => {
		const coding = parseCfTimeCoding({ units: "hours since 2000-02-30 00:00:00.000000123", calendar: "360_day" }, { convertCalendar: true, alignOn: "year" });
		expect(coding.alignOn).toBe("year");
		const decoded = decodeCfTimes(new Float64Array([0, 1.5, -24 * 59 - 1]), coding, NO_MARKERS, { unit: "ns", onOverflow: "error", dataType: "float64" });
		const iso = (ns: bigint) => `${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 19)}.${String(ns % 1_000_000_000n).padStart(9, "0")}`;
		// 360_day 2000-02-30 is day 60 of the year: round(366 × 60 / 360) = 61, March 1; 1999-12-30T23:00 is day 360 of 1999.
		expect(Array.from(decoded.values, iso)).toEqual(["2000-03-01T00:00:00.000000123", "2000-03-01T01:30:00.000000123", "1999-12-31T23:00:00.000000123"]);
	});

	it("other calendars: year is refused for noleap and all_leap (xarray converts them by date), ignored for real-world ones", () => {
		for (const calendar of ["noleap", "365_day", "all_leap", "366_day"]) {
			expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar }, { convertCalendar: true, alignOn: "year" })).toThrow(expect.objectContaining({ code: "USAGE", option: "alignOn", message: expect.stringMatching(new RegExp(`calendar "${calendar}" keeps its dates`)) }));
			expect(parseCfTimeCoding({ units: "days since 2000-01-01", calendar }, { convertCalendar: true, alignOn: "date" }).alignOn).toBe("date");
		}
		expect(parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "standard" }, { convertCalendar: true, alignOn: "year" }).alignOn).toBeNull();
		expect(() => parseCfTimeCoding({ units: "days since 2000-01-01", calendar: "360_day" }, { convertCalendar: true, alignOn: "month" as never })).toThrow(expect.objectContaining({ code: "USAGE", option: "alignOn" }));
	});

	it("the plan refuses alignOn without convertCalendar, and a value that is no alignment", () => {
		expect(() => planExport({ alignOn: "year" })).toThrow(expect.objectContaining({ code: "USAGE", option: "alignOn", message: expect.stringMatching(/given without it/) }));
		expect(() => planExport({ alignOn: "yaer" as never, convertCalendar: true })).toThrow(expect.objectContaining({ code: "USAGE", option: "alignOn", message: 'invalid alignOn "yaer": choose one of date, year' }));
		expect(planExport({ alignOn: "year", convertCalendar: true }).columns.alignOn).toBe("year");
		expect(planExport({ convertCalendar: true }).columns.alignOn).toBe("date");
	});
});

describe("--align-on in the CLI", () => {
	const daily360 = path.join(REPO, "test/fixtures/calendar-align/daily-leap-common.zarr");

	it("is refused without --convert-calendar, with a value it does not take, and year on a noleap time (exit 2)", async () => {
		const without = runCli([daily360, "--array", "time", "--align-on", "year", "-o", path.join(work, "a.arrow")]);
		expect(without.status).toBe(2);
		expect(without.stderr).toBe("dt64-export: --align-on says how --convert-calendar moves a model calendar's dates, and is given without it [USAGE]\n");
		expect(runCli([daily360, "--array", "time", "--convert-calendar", "--align-on", "month", "-o", path.join(work, "b.arrow")]).status).toBe(2);
		const store = path.join(work, "noleap.zarr");
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [3], chunks: [3], values: Int32Array.from([0, 1, 2]), dataType: "int32", fillValue: 0, attributes: { units: "days since 2000-01-01", calendar: "noleap" }, dimensionNames: ["time"] });
		const noleap = runCli([store, "--array", "time", "--convert-calendar", "--align-on", "year", "-o", path.join(work, "c.arrow")]);
		expect(noleap.status).toBe(2);
		expect(noleap.stderr).toMatch(/^dt64-export: array time: --align-on year moves the dates of a 360_day year by their day of the year; calendar "noleap" keeps its dates \(xarray ignores align_on for it and converts date by date\) \[USAGE\]\n$/);
		const date = runCli([store, "--array", "time", "--convert-calendar", "--align-on", "date", "-o", path.join(work, "d.arrow")]);
		expect(date.status).toBe(0);
		expect(date.stderr).toMatch(/--align-on does nothing here: no column is CF time of the 360_day calendar/);
	});

	it("inspect and the refusal of a 360_day time without --convert-calendar name --align-on year", () => {
		const inspect = runCli(["inspect", daily360]);
		expect(inspect.stdout.toString()).toMatch(/--convert-calendar --align-on year each date at the same day of the year \(daily or finer data\)/);
		const refused = runCli([daily360, "--array", "time", "-o", path.join(work, "e.arrow")]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(/unless their rows are left out, or by aligning each date on its day of the year; .*or its rows left out with --drop-invalid-dates\), .*--convert-calendar --align-on year each date at the same day of the year.* \[CALENDAR_UNSUPPORTED\]\n$/);
	});
});
