/**
 * The Arrow unit `--unit auto` gives a CF time variable: the coarsest of s, ms, us, ns that holds the reference and
 * every value exactly, never coarser than the units (`days since` -> s, `milliseconds since` -> ms). Integer counts
 * need only the units and the reference; float counts may hold fractions, which `refineTargetUnits` reads.
 *
 * When values are rounded to the nearest unit, auto asks less of a float count: that the nearest whole unit be
 * within one ulp of the count (of its own float type), so that the float is that instant as its writer's division
 * rounded it (hourly data as float `days since`: 7362.041666666667 days is 01:00 within 2^-40 days), never a unit
 * that would move a value by more than its float's precision.
 */
import { roundHalfEvenDiv } from "../convert/bigint-division.js";
import type { TargetUnit } from "../dtype/units.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { CfTimeCoding } from "./cf-time-coding.js";
import type { CountExtremes } from "./count-extremes.js";
import { exactDyadic, isExactProduct } from "./exact-double.js";
import { isMissingValue, type MissingValueMarkers } from "./missing-value.js";
import { exactUnpacker } from "./packing.js";

const NANOSECONDS_PER_TARGET: readonly (readonly [TargetUnit, bigint])[] = [
	["s", 1_000_000_000n],
	["ms", 1_000_000n],
	["us", 1_000n],
	["ns", 1n],
];

/** The significant bits of unpacked counts (packing.ts): Float32 or Float64. */
const PACKED_SIGNIFICAND_BITS = { float32: 24, float64: 53, int64: 64 } as const;

const FINENESS: Readonly<Record<TargetUnit, number>> = { s: 0, ms: 1, us: 2, ns: 3 };

/** The coarsest unit that divides `nanoseconds`; ns when nothing coarser does. */
function coarsestDividing(nanoseconds: bigint): TargetUnit {
	for (const [unit, size] of NANOSECONDS_PER_TARGET) if (nanoseconds % size === 0n) return unit;
	return "ns";
}

function finerUnit(a: TargetUnit, b: TargetUnit): TargetUnit {
	return FINENESS[a] >= FINENESS[b] ? a : b;
}

/** The unit that integer counts need: the units' own and the reference's. */
export function baseCfTargetUnit(coding: CfTimeCoding): TargetUnit {
	return finerUnit(coarsestDividing(coding.unitNanoseconds), coarsestDividing(coding.referenceNanoseconds));
}

/** The units `--unit auto` gives: for exact values, and for values rounded to the nearest unit. */
export interface AutoUnits {
	readonly exact: TargetUnit;
	readonly nearest: TargetUnit;
	/**
	 * A float count found that is not a whole number of ns, when one was looked for (see refineTargetUnits): exact
	 * decoding refuses it in any unit (TRUNCATION), rounding or flooring takes it.
	 */
	readonly inexact?: number;
	/**
	 * The earliest and latest counts, when every count was read (see cfAutoUnit's `findRange`): with values floored
	 * or rounded, auto takes a coarser unit where its own cannot hold them (auto-unit-range.ts).
	 */
	readonly extremes?: CountExtremes;
}

/**
 * The unit `--unit auto` gives values rounded to the nearest unit: the exact unit when every count is a whole number
 * of ns, so that rounding moves nothing (float32 counts, whose ulp of minutes would let the within-one-ulp rule pick
 * seconds and move exact values: 00:59:03.75 to 00:59:04, where xarray decodes 00:59:03.750000128); else the
 * coarsest unit within one ulp of every count (hourly float64 days, which no unit holds exactly: `s`).
 */
export function roundedAutoUnit(units: AutoUnits): TargetUnit {
	return units.inexact === undefined ? units.exact : units.nearest;
}

/**
 * The units a batch of float counts needs, at least `units`: a fractional count m/2^k of units of u ns is a whole
 * number of t ns when t·2^k divides m·u, and within one ulp of one when the nearest multiple of t is. A fraction finer
 * than a nanosecond asks for ns (and is then refused, floored or rounded as any other value); the first such count is
 * `inexact`. Values are read until both units are ns, and with `findInexact` until such a count is found too.
 */
export function refineTargetUnits(values: NumericValues, coding: CfTimeCoding, markers: MissingValueMarkers, units: AutoUnits, findInexact = false, significandBits?: number): AutoUnits {
	const { packing } = coding;
	if (packing === null && !(values instanceof Float64Array || values instanceof Float32Array)) return units;
	// A float of p significant bits holding m/2^k with m of b bits has an ulp of 2^(b-p)/2^k; half floats are held
	// as float32 values, of the stored precision `significandBits`. Packed counts are floats of their unpacking's type.
	const precision = packing !== null ? PACKED_SIGNIFICAND_BITS[packing.target] : significandBits ?? (values instanceof Float64Array ? 53 : 24);
	const unpack = packing === null ? (stored: number | bigint) => stored as number : exactUnpacker(packing);
	let { exact, nearest, inexact } = units;
	// A count that is a whole number of the coarser of the two units changes neither (the finer unit divides it, and
	// the reference is a whole number of both): told in doubles when count × (units / that unit) is an exact
	// integer product, without the BigInt arithmetic below (quarter hours as float hours: 0.25 × 3600 s).
	let wholeFactor = 0;
	const settleFactor = () => {
		const size = NANOSECONDS_PER_TARGET[Math.min(FINENESS[exact], FINENESS[nearest])][1];
		wholeFactor = coding.unitNanoseconds % size === 0n && coding.unitNanoseconds / size <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(coding.unitNanoseconds / size) : 0;
	};
	settleFactor();
	for (let i = 0; i < values.length && !(exact === "ns" && nearest === "ns" && (!findInexact || inexact !== undefined)); i++) {
		const stored = values[i];
		if (isMissingValue(markers, stored)) continue;
		const value = unpack(stored);
		// Integer packing's counts are integers (a bigint past 2^53).
		if (typeof value === "bigint" || Number.isInteger(value) || !Number.isFinite(value)) continue;
		if (wholeFactor !== 0) {
			const product = value * wholeFactor;
			if (Number.isInteger(product) && Math.abs(product) <= Number.MAX_SAFE_INTEGER && isExactProduct(value, wholeFactor, product)) continue;
		}
		const [exactBefore, nearestBefore] = [exact, nearest];
		const { numerator, shift } = exactDyadic(value);
		const scaled = (coding.referenceNanoseconds << shift) + numerator * coding.unitNanoseconds;
		const magnitude = numerator < 0n ? -numerator : numerator;
		const ulpShift = BigInt(Math.max(0, precision - magnitude.toString(2).length));
		const fraction = numerator * coding.unitNanoseconds;
		for (const [candidate, size] of NANOSECONDS_PER_TARGET) {
			if (FINENESS[candidate] < FINENESS[exact]) continue;
			if (fraction % (size << shift) === 0n || candidate === "ns") {
				exact = candidate;
				if (candidate === "ns" && inexact === undefined && fraction % (size << shift) !== 0n) inexact = value;
				break;
			}
		}
		for (const [candidate, size] of NANOSECONDS_PER_TARGET) {
			if (FINENESS[candidate] < FINENESS[nearest]) continue;
			const divisor = size << shift;
			const distance = scaled - roundHalfEvenDiv(scaled, divisor) * divisor;
			// |distance| / 2^shift ns <= one ulp of the count in ns: 2^(b-p) / 2^k × u ns.
			if (((distance < 0n ? -distance : distance) << ulpShift) <= coding.unitNanoseconds || candidate === "ns") {
				nearest = candidate;
				break;
			}
		}
		if (exact !== exactBefore || nearest !== nearestBefore) settleFactor();
	}
	return { exact, nearest, ...(inexact === undefined ? {} : { inexact }) };
}
