/**
 * `--start` / `--end` bounds as exact instants: attoseconds since 1970-01-01T00:00:00 UTC (the finest numpy unit,
 * so that a bound compares exactly with a value of any unit). A bound without a zone is naive, like the data it
 * selects (numpy datetime64 has no zone); a bound with `Z` or an offset is converted to UTC.
 */
import { UsageError } from "../errors.js";
import { daysFromMonthsBig } from "../convert/calendar.js";

export const ATTOSECONDS_PER_SECOND = 10n ** 18n;

/** Rows whose time t satisfies start <= t < end; an absent bound does not limit. */
export interface TimeBounds {
	readonly start?: bigint;
	readonly end?: bigint;
}

const BOUND = /^([+-]?\d{4,})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,18}))?)?)?)?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: bigint): boolean {
	return (year % 4n === 0n && year % 100n !== 0n) || year % 400n === 0n;
}

function checkRange(option: string, text: string, what: string, value: number, low: number, high: number): void {
	if (value < low || value > high) throw new UsageError(`${option} ${JSON.stringify(text)}: ${what} ${value} is out of range (${low}-${high})`, { option, value: text });
}

/**
 * Refuses a bound that is not a string (a JavaScript caller's Date, number or null): it failed with an uncoded
 * `TypeError: text.trim is not a function` (trial 25, finding 13). A Date is an instant: its ISO string says it.
 */
function checkBoundText(text: unknown, option: "start" | "end"): asserts text is string {
	if (typeof text === "string") return;
	const got = text instanceof Date ? "a Date: pass date.toISOString()" : text === null ? "null" : typeof text === "number" ? `the number ${text}: write it as a string` : `a ${typeof text}`;
	throw new UsageError(`${option}: expected an ISO 8601 date or date-time string (e.g. "2021-03-04" or "2021-03-04T05:06:07Z"), got ${got}`, { option });
}

/**
 * Parses an ISO 8601 date or date-time (`2021`, `2021-03`, `2021-03-04`, `2021-03-04T05:06:07.123456789`, with
 * an optional `Z`, `UTC` or `±hh[:mm]`) into its exact instant. Omitted fields are the start of the period.
 */
export function parseTimeBound(text: string, option: "start" | "end" = "start"): bigint {
	checkBoundText(text, option);
	const match = BOUND.exec(text.trim());
	if (match === null) throw new UsageError(`${option} ${JSON.stringify(text)}: not an ISO 8601 date or date-time (e.g. 2021-03-04 or 2021-03-04T05:06:07Z)`, { option, value: text });
	const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, zone] = match;
	// ISO 8601 writes a year past 9999 with a sign (+20220102); unsigned, 20220102 is the basic format's 2022-01-02,
	// which pandas reads so, where taking it as a year would select nothing (or everything) without a word.
	if (yearText.length > 4 && !/^[+-]/.test(yearText)) {
		const dashed = yearText.length === 8 ? `${yearText.slice(0, 4)}-${yearText.slice(4, 6)}-${yearText.slice(6)}` : "2021-03-04";
		throw new UsageError(
			`${option} ${JSON.stringify(text)}: a year of ${yearText.length} digits; write dates with dashes (${dashed}: the basic format is not read), or a year past 9999 with its sign (+${yearText})`,
			{ option, value: text },
		);
	}
	const year = BigInt(yearText);
	const month = monthText === undefined ? 1 : Number(monthText);
	const day = dayText === undefined ? 1 : Number(dayText);
	const hour = hourText === undefined ? 0 : Number(hourText);
	const minute = minuteText === undefined ? 0 : Number(minuteText);
	const second = secondText === undefined ? 0 : Number(secondText);
	checkRange(option, text, "month", month, 1, 12);
	const monthDays = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
	checkRange(option, text, "day", day, 1, monthDays);
	checkRange(option, text, "hour", hour, 0, 23);
	checkRange(option, text, "minute", minute, 0, 59);
	checkRange(option, text, "second", second, 0, 59);
	const days = daysFromMonthsBig((year - 1970n) * 12n + BigInt(month - 1)) + BigInt(day - 1);
	const seconds = days * 86_400n + BigInt(hour * 3_600 + minute * 60 + second) - zoneOffsetSeconds(zone, option, text);
	const fraction = fractionText === undefined ? 0n : BigInt(fractionText.padEnd(18, "0"));
	return seconds * ATTOSECONDS_PER_SECOND + fraction;
}

/** Seconds east of UTC: the instant is the local time minus the offset. */
function zoneOffsetSeconds(zone: string | undefined, option: string, text: string): bigint {
	if (zone === undefined || /^(z|utc)$/i.test(zone)) return 0n;
	const digits = zone.slice(1).replace(":", "");
	const hours = Number(digits.slice(0, 2));
	const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
	checkRange(option, text, "offset hours", hours, 0, 23);
	checkRange(option, text, "offset minutes", minutes, 0, 59);
	const seconds = BigInt(hours * 3_600 + minutes * 60);
	return zone.startsWith("-") ? -seconds : seconds;
}

/** Both bounds parsed; an empty range (start >= end) is refused rather than exporting nothing. */
export function parseTimeBounds(start: string | undefined, end: string | undefined): TimeBounds {
	const bounds = { start: start === undefined ? undefined : parseTimeBound(start, "start"), end: end === undefined ? undefined : parseTimeBound(end, "end") };
	if (bounds.start !== undefined && bounds.end !== undefined && bounds.start >= bounds.end) {
		throw new UsageError(`start ${start} is not before \`end\` ${end}: the range [start, end) would be empty`, { option: "start", value: start });
	}
	return bounds;
}

export function inBounds(instant: bigint, bounds: TimeBounds): boolean {
	return (bounds.start === undefined || instant >= bounds.start) && (bounds.end === undefined || instant < bounds.end);
}
