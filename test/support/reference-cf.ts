/**
 * A plain BigInt reference of CF time decoding, written independently of src/cf on purpose (a test oracle must not
 * share the code it checks): dates through Julian Day Numbers (Fliegel and Van Flandern's formulas), doubles
 * through their IEEE bits, then one floor division; unit lengths and the division are the datetime64 reference's.
 */
import { AS, floorDiv } from "./reference-convert.js";

/** Durations come from the datetime64 reference's attosecond table (numpy's units), in nanoseconds. */
const NUMPY_UNIT: Record<string, string> = { weeks: "W", days: "D", hours: "h", minutes: "m", seconds: "s", milliseconds: "ms", microseconds: "us", nanoseconds: "ns" };
const nanosecondsOf = (unit: string) => AS[unit] / 10n ** 9n;
export const REFERENCE_UNITS = Object.keys(NUMPY_UNIT);

/** Truncating division, as the published JDN formulas use (Fortran's). */
const tdiv = (a: bigint, b: bigint) => a / b;

/** JDN of a proleptic Gregorian date; years shifted by 400-year cycles so the formula's truncation stays positive. */
export function gregorianJdn(year: bigint, month: bigint, day: bigint): bigint {
	const cycles = year < 0n ? (-year / 400n + 1n) : 0n;
	const y = year + cycles * 400n;
	const a = tdiv(month - 14n, 12n);
	const jdn = tdiv(1461n * (y + 4800n + a), 4n) + tdiv(367n * (month - 2n - 12n * a), 12n) - tdiv(3n * tdiv(y + 4900n + a, 100n), 4n) + day - 32075n;
	return jdn - cycles * 146_097n;
}

/** JDN of a Julian calendar date (astronomical year), with 4-year cycles likewise. */
export function julianJdn(year: bigint, month: bigint, day: bigint): bigint {
	const cycles = year < 0n ? (-year / 4n + 2000n) : 0n;
	const y = year + cycles * 4n;
	const jdn = 367n * y - tdiv(7n * (y + 5001n + tdiv(month - 9n, 7n)), 4n) + tdiv(275n * month, 9n) + day + 1729777n;
	return jdn - cycles * 1_461n;
}

const EPOCH_JDN = 2_440_588n;

/** A double's exact value as numerator / 2^shift, from its bits. */
export function doubleAsFraction(value: number): { numerator: bigint; shift: bigint } {
	const view = new DataView(new ArrayBuffer(8));
	view.setFloat64(0, value);
	const bits = view.getBigUint64(0);
	const sign = bits >> 63n ? -1n : 1n;
	const exponent = (bits >> 52n) & 0x7ffn;
	const fraction = bits & ((1n << 52n) - 1n);
	const mantissa = exponent === 0n ? fraction : fraction | (1n << 52n);
	const power = (exponent === 0n ? 1n : exponent) - 1075n;
	return power >= 0n ? { numerator: sign * (mantissa << power), shift: 0n } : { numerator: sign * mantissa, shift: -power };
}

export interface ReferenceInstant {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	nanosecond: bigint;
	offsetMinutes: number;
}

/** Nanoseconds since 1970-01-01T00:00Z of a proleptic Gregorian reference. */
export function referenceNanoseconds(r: ReferenceInstant, calendar: "proleptic_gregorian" | "julian" = "proleptic_gregorian"): bigint {
	const jdn = (calendar === "julian" ? julianJdn : gregorianJdn)(BigInt(r.year), BigInt(r.month), BigInt(r.day));
	const seconds = (jdn - EPOCH_JDN) * 86_400n + BigInt(r.hour * 3600 + r.minute * 60 + r.second - r.offsetMinutes * 60);
	return seconds * 10n ** 9n + r.nanosecond;
}

export type ReferenceOutcome = { kind: "value"; value: bigint; exact: boolean } | { kind: "overflow" };

/** The decoded value of one count (a bigint, or a double) in `target` units. */
export function referenceDecode(count: bigint | number, unit: string, reference: bigint, target: string): ReferenceOutcome {
	if (typeof count === "number" && !Number.isFinite(count)) return { kind: "overflow" };
	const { numerator, shift } = typeof count === "bigint" ? { numerator: count, shift: 0n } : doubleAsFraction(count);
	const total = reference * 2n ** shift + numerator * nanosecondsOf(NUMPY_UNIT[unit]);
	const divisor = nanosecondsOf(target) * 2n ** shift;
	const value = floorDiv(total, divisor);
	if (value <= -(2n ** 63n) || value >= 2n ** 63n) return { kind: "overflow" };
	return { kind: "value", value, exact: value * divisor === total };
}
