/**
 * How a model calendar's date becomes a proleptic Gregorian one, as xarray's
 * `convert_calendar(obj, "proleptic_gregorian", align_on=...)` says it: `date` keeps the label (year, month, day),
 * which a 360_day year's 29 and 30 February (and all_leap's 29 February of a common year) do not have; `year`
 * (360_day only, as in xarray) keeps the year and moves the day by its position in the year:
 * day of year round(days_in_target_year × doy / 360), ties to even (numpy's round), computed here with integers.
 *
 * Within a year, doy ↦ round(N × doy / 360) is strictly increasing, N (365 or 366) being more than 360: from one day
 * to the next the exact value grows by N/360 > 1, and rounding moves each by at most 1/2. The time of day is kept
 * and the years stay in order, so the aligned instant grows strictly with the 360_day instant: no two dates meet
 * (xarray's de-duplication drops nothing that was not a duplicate already) and sorted times stay sorted (a time
 * range is searched by the aligned instants, as by any calendar's).
 */
import { gregorianEpochDays, isGregorianLeapYear } from "./calendar-days.js";

export type CalendarAlignment = "date" | "year";

export const CALENDAR_ALIGNMENTS: readonly CalendarAlignment[] = ["date", "year"];

/** The calendar `year` alignment applies to: the others have the months of the Gregorian year, and keep their dates. */
export const YEAR_ALIGNED_CALENDAR = "360_day";

/** numerator / denominator rounded to the nearest integer, ties to the even one (both positive, small). */
function roundHalfEven(numerator: number, denominator: number): number {
	const quotient = Math.floor(numerator / denominator);
	const twiceRemainder = 2 * (numerator - quotient * denominator);
	if (twiceRemainder > denominator) return quotient + 1;
	if (twiceRemainder < denominator) return quotient;
	return quotient % 2 === 0 ? quotient : quotient + 1;
}

/**
 * The proleptic Gregorian day number (days since 1970-01-01) of a 360_day date aligned on its year: the same year
 * (astronomical, year 0 a leap year), the day of the year scaled to that year's 365 or 366 days.
 */
export function yearAlignedGregorianDays(days360: number): number {
	const year = Math.floor(days360 / 360);
	const dayOfYear = days360 - year * 360 + 1;
	const targetDays = isGregorianLeapYear(year) ? 366 : 365;
	return gregorianEpochDays(year, 1, 1) + roundHalfEven(targetDays * dayOfYear, 360) - 1;
}
