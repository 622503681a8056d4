/**
 * What a CF time variable's attributes say about its numbers, worked out once per array: the unit of a count, the
 * calendar, and the reference as an exact nanosecond count. Instants: `units: "<unit> since <date>"` with a
 * `calendar`. Durations: xarray's timedelta form, a bare unit with the attribute `dtype: "timedelta64[...]"` (newer
 * xarray), or one of the bare units xarray decodes as timedeltas without any other mark (what xarray 2023.01 writes).
 */
import { checkObjectArgument, optionsArgument } from "../call-arguments.js";
import { Dt64ExportError, errorInContext } from "../errors.js";
import { CALENDAR_ALIGNMENTS, YEAR_ALIGNED_CALENDAR, type CalendarAlignment } from "./calendar-alignment.js";
import { parseCfCalendar, type InstantCalendar, type ModelCalendar } from "./calendars.js";
import type { MaskableType } from "./masking.js";
import { describePacking, packingRuleOf, type PackingRule } from "./packing.js";
import type { ReferenceDate } from "./reference-date.js";
import { isCfTimeUnitsText, NANOSECONDS_PER_CF_UNIT, parseCfDurationUnits, parseCfInstantUnits, type CfTimeUnit } from "./time-units.js";

export const NANOSECONDS_PER_DAY = 86_400n * 10n ** 9n;

export interface CfTimeCoding {
	readonly kind: "datetime" | "duration";
	/** The `units` attribute as written. */
	readonly units: string;
	readonly unit: CfTimeUnit;
	readonly unitNanoseconds: bigint;
	/** The calendar (null for durations), and its name as the attribute wrote it (`standard` when absent). */
	readonly calendar: InstantCalendar | ModelCalendar | null;
	readonly calendarName: string | null;
	/**
	 * The reference as nanoseconds: since 1970-01-01T00:00:00 UTC for a real-world calendar, since the model
	 * calendar's year 0 for a model one (its labels are mapped to proleptic Gregorian value by value), 0 for durations.
	 */
	readonly referenceNanoseconds: bigint;
	/** How a model calendar's dates become proleptic Gregorian ones (see calendar-alignment.ts); null for the others. */
	readonly alignOn: CalendarAlignment | null;
	/**
	 * The CF packing of the counts (`scale_factor`, `add_offset`: xarray writes them when its `encoding` asks), applied
	 * after the missing values are found and before the counts are decoded, as xarray's decode_cf does; null without.
	 */
	readonly packing: PackingRule | null;
}

export interface CfTimeCodingOptions {
	/** Export a model calendar's date labels as the same labels in the proleptic Gregorian calendar. */
	convertCalendar?: boolean;
	/**
	 * With `convertCalendar`: `date` (default) keeps each label, `year` moves each 360_day date by its day of the
	 * year, as xarray's `convert_calendar(..., align_on=...)`. `year` of another model calendar is refused: xarray
	 * ignores it there and converts date by date.
	 */
	alignOn?: CalendarAlignment;
	/** The stored data type, which the unpacked counts' precision follows (packing.ts); float64 when not given. */
	dataType?: MaskableType;
}

/** `timedelta64[ns]` and the like: xarray's mark of a duration variable. */
const TIMEDELTA_DTYPE = /^timedelta64(?:\[[a-zμ]+\])?$/;

/**
 * The units xarray's decode_cf reads as a timedelta on their own (its TIME_UNITS, compared as written): a variable
 * with `units: "hours"` is timedelta64 to xarray, so it is a Duration here. Other spellings (`h`, `Hours`) only with
 * the `dtype` attribute, as xarray leaves them numbers.
 */
const XARRAY_TIMEDELTA_UNITS: ReadonlySet<string> = new Set(["days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]);

/** Which CF time form the attributes have, if any: detection only, before anything is validated. */
export function cfTimeKindOf(attributes: Record<string, unknown>): "datetime" | "duration" | undefined {
	const { units, dtype } = attributes;
	if (isCfTimeUnitsText(units)) return "datetime";
	if (typeof units !== "string") return undefined;
	if (XARRAY_TIMEDELTA_UNITS.has(units) || (typeof dtype === "string" && TIMEDELTA_DTYPE.test(dtype))) return "duration";
	return undefined;
}

function timeOfDayNanoseconds(reference: ReferenceDate): bigint {
	const seconds = BigInt(reference.hour * 3_600 + reference.minute * 60 + reference.second - reference.offsetMinutes * 60);
	return seconds * 10n ** 9n + reference.nanosecond;
}

/**
 * Reads the CF time coding of a variable's attributes; refusals (months since, model calendars without
 * `convertCalendar`, leap-second calendars, a date that does not exist) are Dt64ExportErrors naming what is wrong,
 * for the caller to prefix with the array.
 */
export function parseCfTimeCoding(attributes: Record<string, unknown>, options: CfTimeCodingOptions = {}): CfTimeCoding {
	checkObjectArgument("parseCfTimeCoding", "attributes", attributes, "the array's attributes, an object");
	options = optionsArgument(options);
	if (options.alignOn !== undefined && !CALENDAR_ALIGNMENTS.includes(options.alignOn)) {
		throw new Dt64ExportError("USAGE", `invalid alignOn ${JSON.stringify(options.alignOn)}: choose one of ${CALENDAR_ALIGNMENTS.join(", ")}`, { option: "alignOn", value: options.alignOn });
	}
	const kind = cfTimeKindOf(attributes);
	if (kind === undefined) throw new Dt64ExportError("METADATA_INVALID", `units ${JSON.stringify(attributes.units)} are not CF time units ("<unit> since <date>")`, { field: "units" });
	const units = attributes.units as string;
	const packing = packingRuleOf(undefined, options.dataType ?? "float64", attributes) ?? null;
	if (kind === "duration") {
		const { unit } = parseCfDurationUnits(units);
		return { kind, units, unit, unitNanoseconds: NANOSECONDS_PER_CF_UNIT[unit], calendar: null, calendarName: null, referenceNanoseconds: 0n, alignOn: null, packing };
	}
	const { unit, reference } = parseCfInstantUnits(units);
	const calendar = parseCfCalendar(attributes.calendar, attributes);
	const calendarName = typeof attributes.calendar === "string" ? attributes.calendar : calendar.name;
	if (calendar.kind === "refused") throw new Dt64ExportError("CALENDAR_UNSUPPORTED", `calendar ${JSON.stringify(calendarName)} is refused: ${calendar.why}`);
	if (calendar.kind === "model" && options.convertCalendar !== true) {
		// A 360_day year has 29 and 30 February, which no date of the proleptic Gregorian calendar has: converting each
		// label refuses them, and daily (or finer) data always holds them.
		const thirtyDayMonths =
			calendar.name === YEAR_ALIGNED_CALENDAR
				? "; its 29 and 30 February have no proleptic Gregorian date, so daily or finer data cannot be exported by converting each date label unless their rows are left out, or by aligning each date on its day of the year"
				: "";
		throw new Dt64ExportError("CALENDAR_UNSUPPORTED", `calendar ${JSON.stringify(calendarName)} is a model calendar: its dates are not instants${thirtyDayMonths}`, { option: "convertCalendar", value: calendar.name });
	}
	const alignOn = calendar.kind === "model" ? options.alignOn ?? "date" : null;
	if (alignOn === "year" && calendar.name !== YEAR_ALIGNED_CALENDAR) {
		throw new Dt64ExportError("USAGE", `\`alignOn\` year moves the dates of a 360_day year by their day of the year; calendar ${JSON.stringify(calendarName)} keeps its dates (xarray ignores align_on for it and converts date by date)`, { option: "alignOn", value: "year" });
	}
	let days: number;
	try {
		days = calendar.kind === "model" ? calendar.daysOf(reference.year, reference.month, reference.day) : calendar.epochDaysOf(reference.year, reference.month, reference.day);
	} catch (error) {
		throw errorInContext(`units ${JSON.stringify(units)}: reference`, error, "VALUE_INVALID");
	}
	const referenceNanoseconds = BigInt(days) * NANOSECONDS_PER_DAY + timeOfDayNanoseconds(reference);
	return { kind, units, unit, unitNanoseconds: NANOSECONDS_PER_CF_UNIT[unit], calendar, calendarName, referenceNanoseconds, alignOn, packing };
}

/**
 * How messages name the coding: `hours since 2020-01-01 00:00:00, proleptic_gregorian` (and the packing:
 * `, scale_factor 12`). inspect shows the attributes themselves, and the packing on a line of its own.
 */
export function describeCfTimeCoding(coding: CfTimeCoding): string {
	const packing = coding.packing === null ? "" : `, ${describePacking(coding.packing)}`;
	return coding.kind === "duration" ? `${coding.units}, timedelta${packing}` : `${coding.units}, ${coding.calendarName}${packing}`;
}
