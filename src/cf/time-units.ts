/**
 * CF time units: `<unit> since <reference date>` for instants, a bare `<unit>` for durations. The units are the
 * fixed-length UDUNITS time units; `months` and `years` are refused, since UDUNITS defines them as fractions of a
 * tropical year (a month is 30.436875 days), which is never what the data means.
 */
import { ATTOSECONDS_PER_UNIT, type LinearUnit } from "../dtype/units.js";
import { Dt64ExportError } from "../errors.js";
import { parseReferenceDate, type ReferenceDate } from "./reference-date.js";

export type CfTimeUnit = "weeks" | "days" | "hours" | "minutes" | "seconds" | "milliseconds" | "microseconds" | "nanoseconds";

/** Each CF unit has the fixed length of a numpy unit. */
const NUMPY_UNIT: Readonly<Record<CfTimeUnit, LinearUnit>> = { weeks: "W", days: "D", hours: "h", minutes: "m", seconds: "s", milliseconds: "ms", microseconds: "us", nanoseconds: "ns" };

export const NANOSECONDS_PER_CF_UNIT = Object.fromEntries(Object.entries(NUMPY_UNIT).map(([unit, numpy]) => [unit, ATTOSECONDS_PER_UNIT[numpy] / 10n ** 9n])) as Readonly<Record<CfTimeUnit, bigint>>;

/** Every accepted spelling (compared in lower case): UDUNITS' names, plurals and abbreviations, and cftime's (`millisec`, `microsecs`). */
const SPELLINGS: ReadonlyMap<string, CfTimeUnit> = new Map(
	(
		[
			["weeks", ["weeks", "week"]],
			["days", ["days", "day", "d"]],
			["hours", ["hours", "hour", "hrs", "hr", "h"]],
			["minutes", ["minutes", "minute", "mins", "min"]],
			["seconds", ["seconds", "second", "secs", "sec", "s"]],
			["milliseconds", ["milliseconds", "millisecond", "millisecs", "millisec", "msecs", "msec", "ms"]],
			["microseconds", ["microseconds", "microsecond", "microsecs", "microsec", "usecs", "usec", "us"]],
			["nanoseconds", ["nanoseconds", "nanosecond", "nsecs", "nsec", "ns"]],
		] as const
	).flatMap(([unit, spellings]) => spellings.map((spelling) => [spelling, unit] as const)),
);

/** Calendar units: not fixed durations, so a count of them is no instant. */
const CALENDAR_SPELLINGS: ReadonlySet<string> = new Set([
	"months",
	"month",
	"mon",
	"years",
	"year",
	"yr",
	"yrs",
	"a",
	"common_years",
	"common_year",
	"leap_years",
	"leap_year",
]);

/** Why a calendar unit (one of CALENDAR_SPELLINGS) is refused, in its own terms. */
function calendarUnitRefusal(spelling: string): string {
	if (spelling.startsWith("common_year")) return "common_years are 365 days in UDUNITS, not calendar years: a count of them moves a day off the date it means with each leap year, so the counts are no instants";
	if (spelling.startsWith("leap_year")) return "leap_years are 366 days in UDUNITS, not calendar years: a count of them moves a day off the date it means with each common year, so the counts are no instants";
	if (spelling.startsWith("mon")) return "months are not a fixed duration (UDUNITS makes a month 30.436875 days, a twelfth of its year), so the counts are no instants";
	return "years are not a fixed duration (UDUNITS makes a year 365.242198781 days, a tropical year), so the counts are no instants";
}

const ACCEPTED_UNITS_TEXT = "days/day/d, hours/hour/hr/h, minutes/minute/min, seconds/second/sec/s, milliseconds/millisec/msec/ms, microseconds/microsec/usec/us, nanoseconds/nsec/ns, weeks/week";

const SINCE = /^\s*(\S+)\s+since\s+(.*?)\s*$/is;

export interface CfInstantUnits {
	readonly kind: "instant";
	readonly unit: CfTimeUnit;
	readonly reference: ReferenceDate;
}

export interface CfDurationUnits {
	readonly kind: "duration";
	readonly unit: CfTimeUnit;
}

/** True when `units` has the CF time form `<word> since <something>`, whether or not it is then accepted. */
export function isCfTimeUnitsText(units: unknown): units is string {
	return typeof units === "string" && SINCE.test(units);
}

function parseUnitWord(word: string, units: string): CfTimeUnit {
	const spelling = word.toLowerCase();
	const unit = SPELLINGS.get(spelling);
	if (unit !== undefined) return unit;
	if (CALENDAR_SPELLINGS.has(spelling)) throw new Dt64ExportError("UNSUPPORTED", `units ${JSON.stringify(units)}: ${calendarUnitRefusal(spelling)}; refused`);
	throw new Dt64ExportError("UNSUPPORTED", `units ${JSON.stringify(units)}: unknown time unit ${JSON.stringify(word)}; accepted: ${ACCEPTED_UNITS_TEXT}`);
}

/** Parses `<unit> since <reference>`; refusals name the units as written. */
export function parseCfInstantUnits(units: string): CfInstantUnits {
	const match = SINCE.exec(units);
	if (match === null) throw new Dt64ExportError("METADATA_INVALID", `units ${JSON.stringify(units)}: expected "<unit> since <reference date>"`, { field: "units" });
	const unit = parseUnitWord(match[1], units);
	return { kind: "instant", unit, reference: parseReferenceDate(match[2], units) };
}

/** Parses a bare duration unit, as xarray writes timedeltas (`units: "seconds"`). */
export function parseCfDurationUnits(units: string): CfDurationUnits {
	return { kind: "duration", unit: parseUnitWord(units.trim(), units) };
}
