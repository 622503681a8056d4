/**
 * Rows whose time is a model calendar's date the proleptic Gregorian calendar lacks (a 360_day 29 or 30 February,
 * an all_leap 29 February of a common year), left out when the export is asked to (`dropInvalidDates`), as xarray's
 * `convert_calendar(..., align_on="date")` drops them. The decoding of a time coordinate makes such a value null and
 * marks its slot (under the null bit) with INVALID_DATE_SLOT plus the day number of the first day of the month after
 * the missing date: the mark travels with the value as the batcher repeats it over the rows of that time (a
 * coordinate broadcast over the other dimensions), and the batcher then leaves those rows out and counts them.
 * A missing value (NaN, _FillValue) is a null slot holding 0, or an overflow's mark (overflow-nulls.ts): never
 * dropped.
 *
 * Where such a date lies, for a time range: after every date of its month, before the first of the next
 * (`2001-02-30` lies in [2001-02-01, 2001-03-01), not in [2001-03-01, ...)). That position, one attosecond before the
 * next month, is how the range search places it and whether it is counted among the rows a range leaves out.
 * (No apache-arrow here: the decoding is loaded before it; the batches are filtered by InvalidDateRows.)
 */

/** The base of the marks: far below any day number (|days| < 2^48) and apart from 0 and the overflow mark. */
const INVALID_DATE_SLOT = -(2n ** 62n);
const DAY_SPAN = 2n ** 49n;
const ATTOSECONDS_PER_DAY = 86_400n * 10n ** 18n;

/** A value the decoding left out: its position among the values decoded, and the day number the next month starts on. */
export interface InvalidDate {
	readonly index: number;
	readonly nextMonthDays: number;
}

/** Where a dropped date lies (see above), in attoseconds since 1970-01-01: one before its next month starts. */
export function invalidDatePosition(nextMonthDays: number | bigint): bigint {
	return BigInt(nextMonthDays) * ATTOSECONDS_PER_DAY - 1n;
}

/** Marks the null slots of the dates a decoding left out, after any other marking of its null slots. */
export function markInvalidDates(values: BigInt64Array, invalid: readonly InvalidDate[] | undefined): void {
	for (const { index, nextMonthDays } of invalid ?? []) values[index] = INVALID_DATE_SLOT + BigInt(nextMonthDays);
}

/** The day number of the next month held by a marked slot, or undefined for any other slot. */
export function markedNextMonth(slot: bigint): bigint | undefined {
	const days = slot - INVALID_DATE_SLOT;
	return days > -DAY_SPAN && days < DAY_SPAN ? days : undefined;
}

