/**
 * ISO 8601 text for Arrow time values, exact for every int64 in every unit: BigInt arithmetic throughout, where
 * a JS Date would lose nanoseconds and stop at ±275,760 years.
 */
import type { TargetUnit } from "../dtype/units.js";

const PER_SECOND: Readonly<Record<TargetUnit, bigint>> = { s: 1n, ms: 1_000n, us: 1_000_000n, ns: 1_000_000_000n };
const FRACTION_DIGITS: Readonly<Record<TargetUnit, number>> = { s: 0, ms: 3, us: 6, ns: 9 };

function floorDiv(a: bigint, b: bigint): bigint {
	const quotient = a / b;
	return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

const pad = (value: bigint, width: number): string => value.toString().padStart(width, "0");

/** Year, month, day of a day count since 1970-01-01 (Howard Hinnant's civil_from_days, in BigInt). */
function civilFromDays(days: bigint): [bigint, bigint, bigint] {
	const z = days + 719_468n;
	const era = floorDiv(z, 146_097n);
	const dayOfEra = z - era * 146_097n;
	const yearOfEra = (dayOfEra - dayOfEra / 1_460n + dayOfEra / 36_524n - dayOfEra / 146_096n) / 365n;
	const dayOfYear = dayOfEra - (365n * yearOfEra + yearOfEra / 4n - yearOfEra / 100n);
	const shiftedMonth = (5n * dayOfYear + 2n) / 153n;
	const day = dayOfYear - (153n * shiftedMonth + 2n) / 5n + 1n;
	const month = shiftedMonth < 10n ? shiftedMonth + 3n : shiftedMonth - 9n;
	return [yearOfEra + era * 400n + (month <= 2n ? 1n : 0n), month, day];
}

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
	const perSecond = PER_SECOND[unit];
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
	const perSecond = PER_SECOND[unit];
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
