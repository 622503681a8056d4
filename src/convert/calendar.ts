/**
 * Proleptic Gregorian calendar arithmetic in days since 1970-01-01: the `Y` and `M` units, and the dates of day
 * counts (ISO 8601 text, Hive partitions). Howard Hinnant's "chrono-compatible low-level date algorithms".
 */
import { floorDiv } from "./bigint-division.js";

/**
 * days_from_civil restated for months since January 1970. Exact in doubles while |months| < 2^43 (the caller
 * ensures it), since every intermediate then stays far below 2^53.
 */
export function daysFromMonths(months: number): number {
	const yearsSince1970 = Math.floor(months / 12);
	const month = months - yearsSince1970 * 12 + 1;
	const year = 1970 + yearsSince1970 - (month <= 2 ? 1 : 0);
	const era = Math.floor(year / 400);
	const yearOfEra = year - era * 400;
	const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5);
	const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
	return era * 146_097 + dayOfEra - 719_468;
}

/** The same for any BigInt month count, for the exact slow path. */
export function daysFromMonthsBig(months: bigint): bigint {
	const yearsSince1970 = floorDiv(months, 12n);
	const month = months - yearsSince1970 * 12n + 1n;
	const year = 1970n + yearsSince1970 - (month <= 2n ? 1n : 0n);
	const era = floorDiv(year, 400n);
	const yearOfEra = year - era * 400n;
	const dayOfYear = (153n * (month + (month > 2n ? -3n : 9n)) + 2n) / 5n;
	const dayOfEra = yearOfEra * 365n + yearOfEra / 4n - yearOfEra / 100n + dayOfYear;
	return era * 146_097n + dayOfEra - 719_468n;
}

/** Year, month (1-12) and day (1-31) of a day count since 1970-01-01 (civil_from_days, in BigInt: any int64). */
export function civilFromDays(days: bigint): [bigint, number, number] {
	const z = days + 719_468n;
	const era = floorDiv(z, 146_097n);
	const dayOfEra = z - era * 146_097n;
	const yearOfEra = (dayOfEra - dayOfEra / 1_460n + dayOfEra / 36_524n - dayOfEra / 146_096n) / 365n;
	const dayOfYear = dayOfEra - (365n * yearOfEra + yearOfEra / 4n - yearOfEra / 100n);
	const shiftedMonth = (5n * dayOfYear + 2n) / 153n;
	const day = Number(dayOfYear - (153n * shiftedMonth + 2n) / 5n + 1n);
	const month = Number(shiftedMonth < 10n ? shiftedMonth + 3n : shiftedMonth - 9n);
	return [yearOfEra + era * 400n + (month <= 2 ? 1n : 0n), month, day];
}
