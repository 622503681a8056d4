/**
 * ISO 8601 text for Arrow time values, exact for every int64 in every unit: BigInt arithmetic throughout, where
 * a JS Date would lose nanoseconds and stop at ±275,760 years.
 */
import { TARGET_UNITS_PER_SECOND, type TargetUnit } from "../dtype/units.js";
import { floorDiv } from "./bigint-division.js";
import { civilFromDays } from "./calendar.js";

const FRACTION_DIGITS: Readonly<Record<TargetUnit, number>> = { s: 0, ms: 3, us: 6, ns: 9 };

const pad = (value: bigint | number, width: number): string => value.toString().padStart(width, "0");

/** Years 0000-9999 as four digits; others with a sign, as ISO 8601's expanded representation does. */
function formatYear(year: bigint): string {
	if (year >= 0n && year <= 9999n) return pad(year, 4);
	return `${year < 0n ? "-" : "+"}${pad(year < 0n ? -year : year, 4)}`;
}

function fraction(remainder: bigint, unit: TargetUnit): string {
	return remainder === 0n ? "" : `.${pad(remainder, FRACTION_DIGITS[unit])}`;
}

/**
 * A naive timestamp (`value` units after 1970-01-01T00:00:00, proleptic Gregorian), e.g. `2005-02-03T04:05:06`,
 * with the unit's fractional digits (`.500`, `.000001`) only when they are not all zero.
 */
export function formatIsoTimestamp(value: bigint, unit: TargetUnit): string {
	const perSecond = TARGET_UNITS_PER_SECOND[unit];
	const seconds = floorDiv(value, perSecond);
	const days = floorDiv(seconds, 86_400n);
	const secondOfDay = seconds - days * 86_400n;
	const [year, month, day] = civilFromDays(days);
	const time = `${pad(secondOfDay / 3_600n, 2)}:${pad((secondOfDay / 60n) % 60n, 2)}:${pad(secondOfDay % 60n, 2)}`;
	return `${formatYear(year)}-${pad(month, 2)}-${pad(day, 2)}T${time}${fraction(value - seconds * perSecond, unit)}`;
}

/** A duration as ISO 8601 `PnDTnHnMnS` (days of 24 hours), e.g. `P365D`, `PT4H`, `PT0.007S`, `-PT1.5S`. */
export function formatIsoDuration(value: bigint, unit: TargetUnit): string {
	if (value === 0n) return "PT0S";
	const magnitude = value < 0n ? -value : value;
	const perSecond = TARGET_UNITS_PER_SECOND[unit];
	const seconds = magnitude / perSecond;
	const days = seconds / 86_400n;
	const hours = (seconds / 3_600n) % 24n;
	const minutes = (seconds / 60n) % 60n;
	const rest = seconds % 60n;
	const sub = fraction(magnitude % perSecond, unit);
	let time = "";
	if (hours !== 0n) time += `${hours}H`;
	if (minutes !== 0n) time += `${minutes}M`;
	if (rest !== 0n || sub !== "") time += `${rest}${sub}S`;
	return `${value < 0n ? "-" : ""}P${days !== 0n ? `${days}D` : ""}${time === "" ? "" : `T${time}`}`;
}
