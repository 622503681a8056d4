/**
 * The exact decoding of CF time counts into Arrow timestamp (or duration) values: each instant is the reference
 * plus count × unit, computed exactly (integer counts without a double past 2^53, float counts from the exact
 * dyadic value of the double), then put in the target unit under the datetime64 rules: a value that is not a
 * whole number of target units is refused, floored or rounded to the nearest (ties to even) as `rounding` says,
 * one outside int64 (after rounding) is refused unless overflow makes null. Missing values (NaN, the missing-value
 * markers) become null.
 *
 * Model calendars (with --convert-calendar): the count gives a date label in that calendar, which is exported as
 * the same label of the proleptic Gregorian calendar (a label that does not exist there is refused), or, a 360_day
 * date aligned on the year, as the day at the same position in the same proleptic Gregorian year (calendar-alignment.ts).
 */
import { floorDiv, roundHalfEvenDiv } from "../convert/bigint-division.js";
import { ConversionError, floorAndNearest, type TimestampValues } from "../convert/to-arrow-timestamps.js";
import { cfDecodeArguments } from "../convert/core-arguments.js";
import { resolveRounding, type OverflowPolicy, type Rounding } from "../convert/options.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError } from "../errors.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import { YEAR_ALIGNED_CALENDAR, yearAlignedGregorianDays } from "./calendar-alignment.js";
import type { ModelCalendar } from "./calendars.js";
import { describeCfTimeCoding, NANOSECONDS_PER_DAY, type CfTimeCoding } from "./cf-time-coding.js";
import { exactDyadic, isExactProduct, veltkampHigh } from "./exact-double.js";
import { invalidDatePosition, type InvalidDate } from "../convert/dropped-dates.js";
import { gregorianEpochDays, isGregorianLeapYear, monthLength } from "./calendar-days.js";
import { isMissingValue, type MissingValueMarkers } from "./missing-value.js";
import { exactUnpacker } from "./packing.js";
import { WASM_WINDOW_VALUES, WasmLinearKernel, type SmallIntegers } from "../convert/wasm/wasm-kernel.js";

/** Why `--unit auto` gave ns to an array it could not give an exact unit, in a refusal (the CLI's advice keys on it). */
export const UNHELD_COUNT_NOTE = "is not a whole number of any unit, not even ns";

/** decodeCfTimes' options, as a library user gives them (README, Library): the conversion options and the data type. */
export interface CfDecodeOptions {
	readonly unit: TargetUnit;
	/** A value between two units: `error` (default), `floor` or `nearest` (ties to even). */
	readonly rounding?: Rounding;
	/** `rounding: "floor"`, as the conversion options say it. */
	readonly allowTruncate?: boolean;
	readonly onOverflow: OverflowPolicy;
	/** The data type's name (`float64`), for messages. */
	readonly dataType: string;
}

/** The package's own decoding: the public options and those of its pipeline, which a library user does not see. */
export interface CfDecodeSettings extends CfDecodeOptions {
	/** Describes the position of the i-th value in messages; defaults to `index i`. */
	readonly describePosition?: (index: number) => string;
	/** Where a validity bitmap's memory comes from (its content is set here): by default a new Uint8Array. */
	readonly allocateBitmap?: (bytes: number) => Uint8Array;
	/**
	 * A model calendar's date the proleptic Gregorian calendar lacks: refused (default), or made null and listed in
	 * `invalidDates`, for its row to be left out (`dropInvalidDates`, of a time coordinate: see dropped-dates.ts).
	 */
	readonly invalidDates?: "refuse" | "drop";
	/**
	 * Write int64 counts' instants over them instead of into a new buffer: for a caller that owns the values and
	 * drops them (the export pipeline's own decoded chunks), a buffer less per chunk.
	 */
	readonly inPlace?: boolean;
	/** Where the values' memory comes from when not in place (every slot is written): by default a new BigInt64Array. */
	readonly allocateValues?: (length: number) => BigInt64Array;
	/**
	 * A float count `--unit auto` found that is not a whole number of any unit, not even ns, and so fell back to ns
	 * for (AutoUnits.inexact). Without rounding such an array cannot be exported exactly in any unit: a value that then
	 * overflows ns (a date before 1678) is refused for that reason (TRUNCATION, naming the count), not as an
	 * overflow whose advice, a coarser unit, would only meet the count next.
	 */
	readonly unheldCount?: number;
}

/** A decoding's values, with the dates it left out when asked to (CfDecodeSettings.invalidDates). */
export interface CfTimestampValues extends TimestampValues {
	readonly invalidDates?: readonly InvalidDate[];
}

/**
 * A value the decoding refuses (TRUNCATION, OVERFLOW, VALUE_INVALID): the message names the value and its position.
 * A ConversionError, as the same refusal of a datetime64 value is; `value` (and `count`) is the count as stored.
 */
export class CfDecodeError extends ConversionError {
	declare readonly value: number | bigint;

	constructor(code: "TRUNCATION" | "OVERFLOW" | "VALUE_INVALID", message: string, index: number, value: number | bigint, unit: TargetUnit, coarserUnitHolds?: boolean) {
		super(code, message, index, value, unit, coarserUnitHolds);
		this.name = "CfDecodeError";
	}
}

/**
 * What can be done with a model calendar's date the proleptic Gregorian calendar lacks (daily 360_day data holds two
 * a year): xarray's convert_calendar(..., align_on="date") drops such dates, which an export never does silently.
 */
function labelWays(coding: CfTimeCoding): string {
	const aligned = coding.calendar?.name === YEAR_ALIGNED_CALENDAR ? "; `alignOn` year moves every date by its day of the year, as xarray's align_on=\"year\" does" : "";
	return `: xarray's convert_calendar("proleptic_gregorian", align_on="date") drops such dates, as \`dropInvalidDates\` drops the rows of a time coordinate's${aligned}; without CF decoding the stored counts are exported`;
}

const NANOSECONDS_PER_TARGET: Readonly<Record<TargetUnit, bigint>> = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };
const INT64_MIN = -(2n ** 63n) + 1n;
const INT64_MAX = 2n ** 63n - 1n;
/** Past this many days no Arrow unit holds the instant (int64 seconds span ±1.07e14 days): labels stay in doubles. */
const DAY_LIMIT = 2n ** 48n;

/** A label the proleptic Gregorian calendar lacks, and the day number its next month starts on there. */
type MissingLabel = { label: string; nextMonthDays: number };

type Outcome = { value: bigint; exact: boolean } | "overflow" | MissingLabel;

/**
 * The library's decodeCfTimes: only the options a library user is given (the pipeline's own, buffers written over or
 * supplied, dates dropped, are refused by name as any unknown option is, never taken from a caller).
 */
export function decodeCfTimes(values: NumericValues, coding: CfTimeCoding, markers: MissingValueMarkers, options: CfDecodeOptions): CfTimestampValues {
	return decodeCfCounts(values, coding, markers, cfDecodeArguments(values, coding, markers, options));
}

/** decodeCfTimes with the package's own settings (see CfDecodeSettings). */
export function decodeCfCounts(values: NumericValues, coding: CfTimeCoding, markers: MissingValueMarkers, options: CfDecodeSettings): CfTimestampValues {
	const length = values.length;
	// In place (int64 counts, and float64 ones whose bytes the instants take), each value is read before its slot is
	// written (a refusal's message names the value as stored).
	const out =
		options.inPlace === true && values instanceof BigInt64Array
			? values
			: options.inPlace === true && values instanceof Float64Array
				? new BigInt64Array(values.buffer, values.byteOffset, length)
				: (options.allocateValues?.(length) ?? new BigInt64Array(length));
	let validity: Uint8Array | null = null;
	let nullCount = 0;
	const overflowed: number[] = [];
	const invalidDates: InvalidDate[] = [];
	const dropInvalid = options.invalidDates === "drop";
	// A null's slot holds 0, as a new buffer's does: the output is the same in place or not.
	const setNull = (i: number) => {
		if (validity === null) validity = (options.allocateBitmap?.((length + 7) >> 3) ?? new Uint8Array((length + 7) >> 3)).fill(0xff);
		validity[i >> 3] &= ~(1 << (i & 7));
		nullCount++;
		out[i] = 0n;
	};
	const target = NANOSECONDS_PER_TARGET[options.unit];
	const rounding = resolveRounding(options);
	const instant = exactInstant(coding, target, rounding);
	const unpack = coding.packing === null ? null : exactUnpacker(coding.packing);
	const refuse: (i: number, value: number | bigint, code: "TRUNCATION" | "OVERFLOW" | "VALUE_INVALID", why: string, coarserUnitHolds?: boolean) => never = (i, value, code, why, coarserUnitHolds) => {
		const position = options.describePosition?.(i) ?? `index ${i}`;
		// A packed count is named as stored, with the count it unpacks to.
		const unpacked = unpack === null ? "" : ` (unpacked to ${unpack(value)})`;
		throw new CfDecodeError(code, `value ${value}${unpacked} of ${options.dataType} CF time (${describeCfTimeCoding(coding)}) at ${position} ${why}`, i, value, options.unit, coarserUnitHolds);
	};
	// Whether seconds hold a count another unit overflowed (±Infinity, 1e300 days: no unit does), for the CLI's advice.
	const inSeconds = options.unit === "s" ? null : exactInstant(coding, NANOSECONDS_PER_TARGET.s, "floor");
	const secondsHold = (value: number | bigint): boolean | undefined => {
		if (inSeconds === null) return undefined;
		if (typeof value === "number" && !Number.isFinite(value)) return false;
		const { numerator, shift } = typeof value === "bigint" ? { numerator: value, shift: 0n } : exactDyadic(value);
		return inSeconds(numerator, shift) !== "overflow";
	};
	const fast = integerFastPath(coding, target);
	/** The value at index i: its instant in out[i], or null (overflow, a dropped date, a missing value), or a refusal. */
	const settle = (i: number): void => {
		const stored = values[i];
		if (isMissingValue(markers, stored)) {
			setNull(i);
			return;
		}
		// Messages name the stored count; the coding they quote names the packing.
		const value = unpack === null ? stored : unpack(stored);
		if (fast !== null) {
			const result = fast(value);
			if (result !== undefined) {
				out[i] = result;
				return;
			}
		}
		let outcome: Outcome;
		if (typeof value === "number" && !Number.isFinite(value)) outcome = "overflow";
		else {
			const { numerator, shift } = typeof value === "bigint" ? { numerator: value, shift: 0n } : exactDyadic(value);
			outcome = instant(numerator, shift);
		}
		if (outcome === "overflow") {
			if (options.onOverflow === "null") {
				setNull(i);
				overflowed.push(i);
				return;
			}
			if (options.unheldCount !== undefined && rounding === "error") {
				refuse(i, stored, "TRUNCATION", `is outside the int64 range in unit ${options.unit}, the unit that \`unit\` auto fell back to because the count ${options.unheldCount} ${UNHELD_COUNT_NOTE}`);
			}
			refuse(i, stored, "OVERFLOW", `is outside the int64 range in unit ${options.unit}`, secondsHold(value));
		}
		if ("label" in outcome && dropInvalid) {
			setNull(i);
			invalidDates.push({ index: i, nextMonthDays: outcome.nextMonthDays });
			return;
		}
		if ("label" in outcome) refuse(i, stored, "VALUE_INVALID", `is the date ${outcome.label} of the ${coding.calendarName} calendar, which does not exist in the proleptic Gregorian calendar${labelWays(coding)}`);
		if (!outcome.exact && rounding === "error") {
			const { numerator, shift } = typeof value === "bigint" ? { numerator: value, shift: 0n } : exactDyadic(value);
			const nearest = exactInstant(coding, target, "nearest")(numerator, shift);
			const held = shift === 0n ? String(value) : exactDecimal(numerator, shift);
			// A double that is its decimal (0.25) holds a real fraction of the unit; one that is not (1/24) says so.
			const why = held === String(value) ? "" : `: the ${unpack === null ? options.dataType : "unpacked count"} holds ${held}, the binary fraction nearest to the decimal it prints as`;
			refuse(i, stored, "TRUNCATION", `is not a whole number of ${options.unit}${why}${floorAndNearest(outcome, typeof nearest === "object" && "value" in nearest ? nearest : "overflow", options.unit)}`);
		}
		out[i] = outcome.value;
	};
	const wide = values instanceof BigInt64Array;
	const floats = values instanceof Float64Array || values instanceof Float32Array;
	const kernel = unpack !== null ? null : wide || isSmallIntegers(values) ? affineKernel(coding, target, markers) : floats ? affineFloatKernel(coding, target, markers) : null;
	const modelInstant = kernel === null ? modelCalendarInstants(coding, target) : null;
	if (modelInstant !== null) {
		// A model calendar's counts in doubles (its labels through a table per year), each written as the two int32
		// words of its int64: no BigInt per value. What they cannot take (a missing value, a label the proleptic
		// Gregorian calendar lacks, past 2^53) is `settle`'s.
		const out32 = new Int32Array(out.buffer, out.byteOffset, length * 2);
		for (let i = 0; i < length; i++) {
			const stored = values[i];
			const result = isMissingValue(markers, stored) ? Number.NaN : modelInstant(unpack === null ? stored : unpack(stored));
			if (Number.isNaN(result)) {
				settle(i);
				continue;
			}
			const high = Math.floor(result / TWO_32);
			out32[2 * i] = result - high * TWO_32;
			out32[2 * i + 1] = high;
		}
	} else if (kernel !== null) {
		// Integer counts (xarray's int64 encoding of datetime64, a netCDF file's int32 hours) and float counts window by
		// window through the WebAssembly kernel, which stops at what it cannot settle alone (a missing-value marker,
		// NaN, an instant outside int64, a float count whose product is not an exact whole number) for `settle`.
		const in32 = wide ? new Int32Array(values.buffer, values.byteOffset, length * 2) : null;
		const out32 = new Int32Array(out.buffer, out.byteOffset, length * 2);
		for (let start = 0; start < length; start += WASM_WINDOW_VALUES) {
			const end = Math.min(length, start + WASM_WINDOW_VALUES);
			const window = in32 !== null ? kernel.load(in32, start, end) : floats ? kernel.loadDoubles(values, start, end) : kernel.loadWidened(values as SmallIntegers, start, end);
			for (let i = kernel.run(0, end - start); i < end - start; i = kernel.run(i + 1, end - start)) {
				settle(start + i);
				window[2 * i] = out32[2 * (start + i)];
				window[2 * i + 1] = out32[2 * (start + i) + 1];
			}
			out32.set(window, 2 * start);
		}
	} else {
		for (let i = 0; i < length; i++) settle(i);
	}
	// Arrow requires nothing of the bits past the end, but clean zeros make the output byte-reproducible.
	const bitmap = validity as Uint8Array | null;
	if (bitmap !== null && length & 7) bitmap[length >> 3] &= (1 << (length & 7)) - 1;
	return { unit: options.unit, values: out, validity: bitmap, nullCount, ...(overflowed.length > 0 && { overflowed }), ...(invalidDates.length > 0 && { invalidDates }) };
}

/**
 * The WebAssembly kernel of float counts where integerFastPath holds, taking what its double product takes; none for
 * more markers than it holds (NaN needs none: it stops there).
 */
function affineFloatKernel(coding: CfTimeCoding, target: bigint, markers: MissingValueMarkers): WasmLinearKernel | null {
	const steps = wholeUnitSteps(coding, target);
	if (steps === null || !markers.nanIsMissing) return null;
	return WasmLinearKernel.forAffineFloat(steps.step, veltkampHigh(Number(steps.step)), steps.start, [...markers.floats]);
}

/** Whether the values are integers of up to 32 bits, which the kernel widens to int64. */
function isSmallIntegers(values: NumericValues): values is SmallIntegers {
	return values instanceof Int32Array || values instanceof Int16Array || values instanceof Int8Array || values instanceof Uint32Array || values instanceof Uint16Array || values instanceof Uint8Array;
}

/**
 * The WebAssembly kernel of integer counts where integerFastPath holds (a real-world calendar, whole target units):
 * count × step + start, stopping at the markers; none for more than its markers, or without WebAssembly.
 */
function affineKernel(coding: CfTimeCoding, target: bigint, markers: MissingValueMarkers): WasmLinearKernel | null {
	const steps = wholeUnitSteps(coding, target);
	return steps === null ? null : WasmLinearKernel.forAffine(steps.step, steps.start, [...markers.integers]);
}

/**
 * For a real-world calendar whose unit and reference are whole target units, the unit and the reference in target
 * units: the instant of a count is count × step + start. Null otherwise (a model calendar, a unit or reference finer
 * than the target): the general path alone decodes such counts.
 */
function wholeUnitSteps(coding: CfTimeCoding, target: bigint): { step: bigint; start: bigint } | null {
	if (coding.calendar?.kind === "model") return null;
	if (coding.unitNanoseconds % target !== 0n || coding.referenceNanoseconds % target !== 0n) return null;
	return { step: coding.unitNanoseconds / target, start: coding.referenceNanoseconds / target };
}

/**
 * For a real-world calendar whose unit and reference are whole target units: value = reference + count × unit,
 * with the product in a double while it is exact (for a fractional float count, a product that is a whole number
 * and whose rounding error is zero). Undefined for what the exact general path must settle: a product that is no
 * safe integer, or a result outside int64.
 */
function integerFastPath(coding: CfTimeCoding, target: bigint): ((count: number | bigint) => bigint | undefined) | null {
	const steps = wholeUnitSteps(coding, target);
	if (steps === null) return null;
	const { step, start } = steps;
	const stepNumber = Number(step);
	return (count) => {
		let result: bigint;
		if (typeof count === "number") {
			const product = count * stepNumber;
			if (Math.abs(product) <= Number.MAX_SAFE_INTEGER && Number.isInteger(product) && (Number.isInteger(count) || isExactProduct(count, stepNumber, product))) {
				result = BigInt(product) + start;
			} else if (Number.isInteger(count)) {
				result = BigInt(count) * step + start;
			} else {
				return undefined;
			}
		} else {
			result = count * step + start;
		}
		return result < INT64_MIN || result > INT64_MAX ? undefined : result;
	};
}

const TWO_32 = 2 ** 32;

/** Model-calendar years whose day tables are kept (see gregorianDaysOfModelDays): data of a few centuries, in order or not. */
const KEPT_YEARS = 64;

/**
 * The proleptic Gregorian day number of each day of a model calendar (days since its year 0, January 1), NaN for a
 * label the proleptic Gregorian calendar lacks: a table per model year, made from the calendar's own labels once for
 * its 360 to 366 days, so that a count costs a lookup, not a label. Exact while |days| < 2^53 / 366.
 */
function gregorianDaysOfModelDays(calendar: ModelCalendar): (days: number) => number {
	const yearDays = calendar.daysOf(1, 1, 1) - calendar.daysOf(0, 1, 1);
	const tables = new Map<number, Float64Array>();
	let lastYear = Number.NaN;
	let last: Float64Array = new Float64Array(0);
	const tableOf = (year: number): Float64Array => {
		let table = tables.get(year);
		if (table === undefined) {
			table = new Float64Array(yearDays);
			for (let day = 0; day < yearDays; day++) {
				const [y, month, dayOfMonth] = calendar.labelOf(year * yearDays + day);
				table[day] = dayOfMonth > monthLength(month, isGregorianLeapYear(y)) ? Number.NaN : gregorianEpochDays(y, month, dayOfMonth);
			}
			if (tables.size >= KEPT_YEARS) tables.clear();
			tables.set(year, table);
		}
		return table;
	};
	return (days) => {
		const year = Math.floor(days / yearDays);
		if (year !== lastYear) {
			last = tableOf(year);
			lastYear = year;
		}
		return last[days - year * yearDays];
	};
}

/**
 * For a model calendar's dates aligned on the date (`--convert-calendar`), a unit and a reference that are whole
 * target units: the instant of a count in target units, as a double, the same as scaledInstant gives (the label's
 * proleptic Gregorian day, plus the time of day); NaN for what the exact general path settles: a count whose product
 * by the unit is not an exact whole number, anything past 2^53, a label the proleptic Gregorian calendar lacks.
 */
function modelCalendarInstants(coding: CfTimeCoding, target: bigint): ((count: number | bigint) => number) | null {
	const { calendar } = coding;
	if (calendar?.kind !== "model" || coding.alignOn === "year") return null;
	if (coding.unitNanoseconds % target !== 0n || coding.referenceNanoseconds % target !== 0n) return null;
	const step = Number(coding.unitNanoseconds / target);
	const start = Number(coding.referenceNanoseconds / target);
	const dayUnits = Number(NANOSECONDS_PER_DAY / target);
	if (!Number.isSafeInteger(step) || !Number.isSafeInteger(start)) return null;
	const gregorianDays = gregorianDaysOfModelDays(calendar);
	return (stored) => {
		const count = typeof stored === "bigint" ? (stored >= -MAX_SAFE && stored <= MAX_SAFE ? Number(stored) : Number.NaN) : stored;
		const product = count * step;
		if (!(Math.abs(product) <= Number.MAX_SAFE_INTEGER && Number.isInteger(product) && (Number.isInteger(count) || isExactProduct(count, step, product)))) return Number.NaN;
		const instant = product + start;
		if (!Number.isSafeInteger(instant)) return Number.NaN;
		// Floored division in doubles, corrected by the exact remainder.
		let days = Math.floor(instant / dayUnits);
		let timeOfDay = instant - days * dayUnits;
		if (timeOfDay < 0) {
			days--;
			timeOfDay += dayUnits;
		} else if (timeOfDay >= dayUnits) {
			days++;
			timeOfDay -= dayUnits;
		}
		const result = gregorianDays(days) * dayUnits + timeOfDay;
		return Number.isSafeInteger(result) ? result : Number.NaN;
	};
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The exact instant of numerator / 2^shift counts as nanoseconds × 2^shift since 1970-01-01T00:00:00 UTC (a model
 * calendar's label converted to the same proleptic Gregorian label): "overflow" past any Arrow unit's range, the
 * label when it does not exist in the proleptic Gregorian calendar.
 */
function scaledInstant(coding: CfTimeCoding): (numerator: bigint, shift: bigint) => bigint | "overflow" | MissingLabel {
	const { unitNanoseconds, referenceNanoseconds, calendar, alignOn } = coding;
	return (numerator, shift) => {
		const scaled = (referenceNanoseconds << shift) + numerator * unitNanoseconds;
		if (calendar?.kind !== "model") return scaled;
		const dayScaled = NANOSECONDS_PER_DAY << shift;
		const days = floorDiv(scaled, dayScaled);
		if (days > DAY_LIMIT || days < -DAY_LIMIT) return "overflow";
		if (alignOn === "year") return scaled + (BigInt(yearAlignedGregorianDays(Number(days))) - days) * dayScaled;
		const [year, month, day] = calendar.labelOf(Number(days));
		// Told without an error thrown and caught (daily 360_day data has two such dates a year, each dropped or refused).
		if (day > monthLength(month, isGregorianLeapYear(year))) {
			const nextMonthDays = month === 12 ? gregorianEpochDays(year + 1, 1, 1) : gregorianEpochDays(year, month + 1, 1);
			return { label: `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`, nextMonthDays };
		}
		return scaled + (BigInt(gregorianEpochDays(year, month, day)) - days) * dayScaled;
	};
}

/**
 * The exact instant of numerator / 2^shift counts in target units: floored, or the nearest with `nearest` (ties to
 * even); `exact` says whether it was a whole number of them.
 */
function exactInstant(coding: CfTimeCoding, target: bigint, rounding: Rounding): (numerator: bigint, shift: bigint) => Outcome {
	const instant = scaledInstant(coding);
	return (numerator, shift) => {
		const scaled = instant(numerator, shift);
		if (typeof scaled !== "bigint") return scaled;
		const divisor = target << shift;
		const floored = floorDiv(scaled, divisor);
		const value = rounding === "nearest" ? roundHalfEvenDiv(scaled, divisor) : floored;
		if (value < INT64_MIN || value > INT64_MAX) return "overflow";
		return { value, exact: floored * divisor === scaled };
	};
}

/** Significant digits of a binary fraction's decimal expansion shown in a message, before an ellipsis. */
const SHOWN_DIGITS = 24;

/**
 * The exact decimal of numerator / 2^shift (shift > 0: it ends after shift digits), cut after SHOWN_DIGITS
 * significant digits with an ellipsis.
 */
function exactDecimal(numerator: bigint, shift: bigint): string {
	const negative = numerator < 0n;
	const magnitude = negative ? -numerator : numerator;
	const whole = magnitude >> shift;
	const digits = ((magnitude - (whole << shift)) * 5n ** shift).toString().padStart(Number(shift), "0");
	const room = Math.max(1, SHOWN_DIGITS - whole.toString().length);
	const fraction = digits.length > room ? `${digits.slice(0, room)}…` : digits;
	return `${negative ? "-" : ""}${whole}.${fraction}`;
}

const ATTOSECONDS_PER_NANOSECOND = 1_000_000_000n;

/**
 * The instant of one stored count as attoseconds since 1970-01-01T00:00:00 UTC, by the arithmetic of
 * decodeCfTimes, floored (a floored instant compares with a whole number of attoseconds as the exact one does):
 * what a time range is searched with. Null for a value no range holds: a missing one, and one no Arrow unit can
 * hold (infinite, or a model calendar date past every unit's range), which the decoding makes null or refuses.
 * A model calendar's label that does not exist in the proleptic Gregorian calendar is refused, as decodeCfTimes does,
 * or with `invalidDates` "drop" placed where its row, dropped, is counted by a range (see dropped-dates.ts).
 * With `nearestIn`, the instant of the value exported when rounding to the nearest unit: the instant rounded to it.
 */
export function cfInstantOf(coding: CfTimeCoding, markers: MissingValueMarkers, dataType: string, nearestIn?: TargetUnit, invalidDates: "refuse" | "drop" = "refuse"): (value: number | bigint) => bigint | null {
	if (coding.kind !== "datetime") throw new Dt64ExportError("UNSUPPORTED", `CF time of units ${JSON.stringify(coding.units)} holds durations, not times: it cannot select a time range`);
	const instant = scaledInstant(coding);
	const unpack = coding.packing === null ? null : exactUnpacker(coding.packing);
	return (stored) => {
		if (isMissingValue(markers, stored)) return null;
		const value = unpack === null ? stored : unpack(stored);
		if (typeof value === "number" && !Number.isFinite(value)) return null;
		const { numerator, shift } = typeof value === "bigint" ? { numerator: value, shift: 0n } : exactDyadic(value);
		const scaled = instant(numerator, shift);
		if (scaled === "overflow") return null;
		if (typeof scaled !== "bigint" && invalidDates === "drop") return invalidDatePosition(scaled.nextMonthDays);
		if (typeof scaled !== "bigint") {
			throw new Dt64ExportError("VALUE_INVALID", `value ${stored}${unpack === null ? "" : ` (unpacked to ${value})`} of ${dataType} CF time (${describeCfTimeCoding(coding)}) is the date ${scaled.label} of the ${coding.calendarName} calendar, which does not exist in the proleptic Gregorian calendar${labelWays(coding)}`, { value: stored });
		}
		if (nearestIn === undefined) return floorDiv(scaled * ATTOSECONDS_PER_NANOSECOND, 1n << shift);
		const size = NANOSECONDS_PER_TARGET[nearestIn];
		return roundHalfEvenDiv(scaled, size << shift) * size * ATTOSECONDS_PER_NANOSECOND;
	};
}
