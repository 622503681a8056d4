/**
 * The CF calendars (the `calendar` attribute, case-insensitive, `standard` when absent). Real-world calendars map a
 * date label to an instant; model calendars (noleap, all_leap, 360_day) have dates that are no instants, and are
 * only exported as their labels (`--convert-calendar`); the rest are refused with the reason.
 */
import { Dt64ExportError } from "../errors.js";
import {
	DAYS_360,
	fixedYearCalendarDays,
	gregorianEpochDays,
	isGregorianLeapYear,
	isJulianLeapYear,
	julianEpochDays,
	monthLength,
} from "./calendar-days.js";

/** A calendar whose dates are instants: a label's day number is days since 1970-01-01 (proleptic Gregorian). */
export interface InstantCalendar {
	readonly kind: "instant";
	readonly name: string;
	/** The day number of a date label (the year as written), or a Dt64ExportError when the date does not exist. */
	epochDaysOf(year: number, month: number, day: number): number;
}

/** A model calendar: days count from its own year 0; a day number has one label. */
export interface ModelCalendar {
	readonly kind: "model";
	readonly name: string;
	daysOf(year: number, month: number, day: number): number;
	labelOf(days: number): [number, number, number];
}

export interface RefusedCalendar {
	readonly kind: "refused";
	readonly name: string;
	readonly why: string;
}

export type CfCalendar = InstantCalendar | ModelCalendar | RefusedCalendar;

const noSuchDate = (calendar: string, year: number, month: number, day: number, why = ""): Dt64ExportError =>
	new Dt64ExportError("VALUE_INVALID", `date ${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")} does not exist in the ${calendar} calendar${why}`);

/** In the julian and standard calendars years are counted without a year 0: -1 is 1 BC, astronomical year 0. */
function astronomicalYear(calendar: string, year: number, month: number, day: number): number {
	if (year === 0) throw noSuchDate(calendar, year, month, day, " (it has no year 0: 1 BC is year -1)");
	return year < 0 ? year + 1 : year;
}

function checkDay(calendar: string, year: number, month: number, day: number, length: number): void {
	if (day > length) throw noSuchDate(calendar, year, month, day);
}

const PROLEPTIC_GREGORIAN: InstantCalendar = {
	kind: "instant",
	name: "proleptic_gregorian",
	epochDaysOf(year, month, day) {
		checkDay("proleptic_gregorian", year, month, day, monthLength(month, isGregorianLeapYear(year)));
		return gregorianEpochDays(year, month, day);
	},
};

const JULIAN: InstantCalendar = {
	kind: "instant",
	name: "julian",
	epochDaysOf(year, month, day) {
		const y = astronomicalYear("julian", year, month, day);
		checkDay("julian", year, month, day, monthLength(month, isJulianLeapYear(y)));
		return julianEpochDays(y, month, day);
	},
};

/** The mixed calendar: Julian dates up to 1582-10-04, Gregorian ones from 1582-10-15, the ten between none. */
function standardCalendar(name: string): InstantCalendar {
	return {
		kind: "instant",
		name,
		epochDaysOf(year, month, day) {
			const y = astronomicalYear(name, year, month, day);
			const label = y * 10_000 + month * 100 + day;
			if (label >= 1582_10_15) {
				checkDay(name, year, month, day, monthLength(month, isGregorianLeapYear(y)));
				return gregorianEpochDays(y, month, day);
			}
			if (label >= 1582_10_05) throw noSuchDate(name, year, month, day, " (the ten days the Gregorian reform skipped, 1582-10-05..14)");
			checkDay(name, year, month, day, monthLength(month, isJulianLeapYear(y)));
			return julianEpochDays(y, month, day);
		},
	};
}

function modelCalendar(name: string, days: { daysOf(year: number, month: number, day: number): number; labelOf(days: number): [number, number, number] }, monthDays: (month: number) => number): ModelCalendar {
	return {
		kind: "model",
		name,
		daysOf(year, month, day) {
			checkDay(name, year, month, day, monthDays(month));
			return days.daysOf(year, month, day);
		},
		labelOf: days.labelOf,
	};
}

const NOLEAP = (name: string) => modelCalendar(name, fixedYearCalendarDays(false), (month) => monthLength(month, false));
const ALL_LEAP = (name: string) => modelCalendar(name, fixedYearCalendarDays(true), (month) => monthLength(month, true));

const LEAP_SECONDS_WHY = "its counts include leap seconds, and dt64-export has no leap-second table to convert them exactly";

const CALENDARS: ReadonlyMap<string, CfCalendar> = new Map<string, CfCalendar>([
	["proleptic_gregorian", PROLEPTIC_GREGORIAN],
	["standard", standardCalendar("standard")],
	["gregorian", standardCalendar("gregorian")],
	["julian", JULIAN],
	["noleap", NOLEAP("noleap")],
	["365_day", NOLEAP("365_day")],
	["all_leap", ALL_LEAP("all_leap")],
	["366_day", ALL_LEAP("366_day")],
	["360_day", modelCalendar("360_day", DAYS_360, () => 30)],
	["utc", { kind: "refused", name: "utc", why: LEAP_SECONDS_WHY }],
	["tai", { kind: "refused", name: "tai", why: `${LEAP_SECONDS_WHY} (TAI instants are not UTC ones)` }],
	["none", { kind: "refused", name: "none", why: "it has no dates, only counts" }],
]);

const CALENDAR_NAMES: readonly string[] = [...CALENDARS.keys()];

/**
 * The calendar of a `calendar` attribute (absent: `standard`). A calendar defined by `month_lengths` is refused:
 * it is whatever its attributes say, not one of the calendars above.
 */
export function parseCfCalendar(calendar: unknown, attributes: Record<string, unknown> = {}): CfCalendar {
	if (attributes.month_lengths !== undefined) {
		return { kind: "refused", name: typeof calendar === "string" ? calendar : "month_lengths", why: "a calendar defined by month_lengths is not supported" };
	}
	if (calendar === undefined) return CALENDARS.get("standard") as CfCalendar;
	if (typeof calendar !== "string") throw new Dt64ExportError("METADATA_INVALID", `calendar ${JSON.stringify(calendar)} is not a string`, { field: "calendar" });
	const found = CALENDARS.get(calendar.trim().toLowerCase());
	if (found === undefined) throw new Dt64ExportError("CALENDAR_UNSUPPORTED", `unknown calendar ${JSON.stringify(calendar)}; known: ${CALENDAR_NAMES.join(", ")}`);
	return found;
}
