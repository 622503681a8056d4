/**
 * Day numbers of calendar dates (astronomical years: year 0 is 1 BC), in doubles, exact while |year| < 10^12.
 * Gregorian and Julian days count from 1970-01-01 of the proleptic Gregorian calendar, so that a Julian date's
 * day number is its instant's; the model calendars count from their own year 0, January 1.
 * The Gregorian one is Howard Hinnant's days_from_civil; the Julian one the same over 4-year eras.
 */

/** Day of the year of month/day, counted from March 1 (so that a leap day is the year's last). */
function dayFromMarch(month: number, day: number): number {
	return Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
}

export function isGregorianLeapYear(year: number): boolean {
	return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function isJulianLeapYear(year: number): boolean {
	return year % 4 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month of a 365- or 366-day year. */
export function monthLength(month: number, leap: boolean): number {
	return month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
}

export function gregorianEpochDays(year: number, month: number, day: number): number {
	const y = year - (month <= 2 ? 1 : 0);
	const era = Math.floor(y / 400);
	const yearOfEra = y - era * 400;
	const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayFromMarch(month, day);
	return era * 146_097 + dayOfEra - 719_468;
}

/** Julian 1969-12-19 is Gregorian 1970-01-01. */
const JULIAN_EPOCH_OFFSET = 719_470;

export function julianEpochDays(year: number, month: number, day: number): number {
	const y = year - (month <= 2 ? 1 : 0);
	const era = Math.floor(y / 4);
	const yearOfEra = y - era * 4;
	return era * 1_461 + yearOfEra * 365 + dayFromMarch(month, day) - JULIAN_EPOCH_OFFSET;
}

/** Cumulative days before each month in a 365-day (or, `leap`, 366-day) year. */
function daysBeforeMonth(leap: boolean): number[] {
	const before: number[] = [];
	let total = 0;
	for (let month = 1; month <= 12; month++) {
		before.push(total);
		total += monthLength(month, leap);
	}
	return before;
}

/** A model calendar whose every year has the same months: noleap (365 days) and all_leap (366). */
export function fixedYearCalendarDays(leap: boolean): {
	daysOf(year: number, month: number, day: number): number;
	labelOf(days: number): [number, number, number];
} {
	const before = daysBeforeMonth(leap);
	const yearDays = leap ? 366 : 365;
	return {
		daysOf: (year, month, day) => year * yearDays + before[month - 1] + day - 1,
		labelOf(days) {
			const year = Math.floor(days / yearDays);
			const dayOfYear = days - year * yearDays;
			let month = 12;
			while (before[month - 1] > dayOfYear) month--;
			return [year, month, dayOfYear - before[month - 1] + 1];
		},
	};
}

/** The 360_day calendar: twelve months of 30 days. */
export const DAYS_360 = {
	daysOf: (year: number, month: number, day: number): number => year * 360 + (month - 1) * 30 + day - 1,
	labelOf(days: number): [number, number, number] {
		const year = Math.floor(days / 360);
		const dayOfYear = days - year * 360;
		return [year, Math.floor(dayOfYear / 30) + 1, (dayOfYear % 30) + 1];
	},
};
