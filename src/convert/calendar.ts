/**
 * Proleptic Gregorian calendar arithmetic for the `Y` and `M` units, in days since 1970-01-01.
 * The civil-from-days algorithm of Howard Hinnant's "chrono-compatible low-level date algorithms", restated
 * for months since January 1970. Exact in doubles while |months| < 2^43 (the caller ensures it), since every
 * intermediate then stays far below 2^53.
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
	const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
	const yearsSince1970 = floorDiv(months, 12n);
	const month = months - yearsSince1970 * 12n + 1n;
	const year = 1970n + yearsSince1970 - (month <= 2n ? 1n : 0n);
	const era = floorDiv(year, 400n);
	const yearOfEra = year - era * 400n;
	const dayOfYear = (153n * (month + (month > 2n ? -3n : 9n)) + 2n) / 5n;
	const dayOfEra = yearOfEra * 365n + yearOfEra / 4n - yearOfEra / 100n + dayOfYear;
	return era * 146_097n + dayOfEra - 719_468n;
}
