/**
 * The reference date of CF time units, in the forms UDUNITS and cftime read: `Y-M-D` (or `Y-M`, `Y`: the first of
 * the month or year, as UDUNITS and pandas read them), then optionally
 * `h[:m[:s[.fraction]]]` after `T` or spaces (an hour alone, `2000-01-01T00`, as cftime reads it), then optionally a time zone (`Z`, `UTC`, `GMT`, `±h`, `±hh`, `±hh:mm`,
 * `±hhmm`, with or without a space before it). Leading zeros are optional and years may be signed or longer than
 * four digits. The date is a label in the array's calendar: only the calendar says whether it exists.
 */
import { Dt64ExportError } from "../errors.js";

export interface ReferenceDate {
	/** The year as written: in the julian and standard calendars there is no year 0 and -1 is 1 BC. */
	readonly year: number;
	readonly month: number;
	readonly day: number;
	readonly hour: number;
	readonly minute: number;
	readonly second: number;
	/** The fraction of the second, in nanoseconds. */
	readonly nanosecond: bigint;
	/** The time zone's offset east of UTC, in minutes: the instant is the label minus the offset. */
	readonly offsetMinutes: number;
	/** The text as written, for messages. */
	readonly text: string;
}

const REFERENCE =
	/^([+-]?\d+)(?:-(\d{1,2})(?:-(\d{1,2})(?:(?:T|\s+)(\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:\.(\d*))?)?)?)?)?)?\s*(Z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?$/i;

/** The most digits of a year written alone (`2000`): more is a packed date (`20000101`), which is refused, not guessed. */
const MAX_LONE_YEAR_DIGITS = 4;

const MAX_YEAR_DIGITS = 12;

function parseOffset(zone: string | undefined): number | undefined {
	if (zone === undefined || /^(?:Z|UTC|GMT)$/i.test(zone)) return 0;
	const sign = zone.startsWith("-") ? -1 : 1;
	const digits = zone.slice(1).replace(":", "");
	// `±h` and `±hh` are hours; `±hhmm` (or `±hh:mm`) hours and minutes.
	const hours = Number(digits.length <= 2 ? digits : digits.slice(0, -2));
	const minutes = digits.length <= 2 ? 0 : Number(digits.slice(-2));
	if (hours > 23 || minutes > 59) return undefined;
	return sign * (hours * 60 + minutes);
}

/** Parses the reference date of `units` (quoted whole in refusals). */
export function parseReferenceDate(text: string, units: string): ReferenceDate {
	const refuse = (why: string): never => {
		throw new Dt64ExportError("METADATA_INVALID", `units ${JSON.stringify(units)}: reference date ${JSON.stringify(text)} ${why}`, { field: "units" });
	};
	const match = REFERENCE.exec(text.trim());
	if (match === null) return refuse("is not a date of the form Y[-M[-D[ h[:m[:s[.f]]]]]][ zone] (zone Z, UTC, GMT, ±hh, ±hh:mm or ±hhmm)");
	const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, zone] = match;
	if (yearText.replace(/^[+-]/, "").length > MAX_YEAR_DIGITS) refuse(`has a year of more than ${MAX_YEAR_DIGITS} digits`);
	// UDUNITS leaves the month and day out (`2000`, `2000-01`): the first of the year or month, as pandas reads them.
	if (monthText === undefined && yearText.replace(/^[+-]/, "").length > MAX_LONE_YEAR_DIGITS) refuse(`is a number of more than ${MAX_LONE_YEAR_DIGITS} digits: a year alone, or a packed date (YYYYMMDD)? Write it Y-M-D`);
	const [month, day] = [monthText === undefined ? 1 : Number(monthText), dayText === undefined ? 1 : Number(dayText)];
	const [hour, minute, second] = [hourText, minuteText, secondText].map((part) => (part === undefined ? 0 : Number(part)));
	if (month < 1 || month > 12) refuse(`has month ${month}`);
	if (day < 1 || day > 31) refuse(`has day ${day}`);
	if (hour > 23 || minute > 59 || second > 59) refuse("has a time of day outside 00:00:00..23:59:59");
	const fraction = fractionText ?? "";
	// Digits past the ninth must be zeros: a finer reference is not representable in any Arrow unit.
	if (/[1-9]/.test(fraction.slice(9))) refuse("is finer than a nanosecond");
	const offsetMinutes = parseOffset(zone);
	if (offsetMinutes === undefined) return refuse(`has time zone offset ${JSON.stringify(zone)} beyond ±23:59`);
	return {
		year: Number(yearText),
		month,
		day,
		hour,
		minute,
		second,
		nanosecond: BigInt(fraction.slice(0, 9).padEnd(9, "0")),
		offsetMinutes,
		text,
	};
}
