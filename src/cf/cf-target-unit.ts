/**
 * The Arrow unit `--unit auto` gives a CF time variable: the coarsest of s, ms, us, ns that holds the reference and
 * every value exactly, never coarser than the units (`days since` -> s, `milliseconds since` -> ms). Integer counts
 * need only the units and the reference; float counts may hold fractions, which `refineTargetUnit` reads.
 */
import type { TargetUnit } from "../dtype/units.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { CfTimeCoding } from "./cf-time-coding.js";
import { exactDyadic } from "./exact-double.js";
import { isMissingValue, type MissingValueMarkers } from "./missing-value.js";

const NANOSECONDS_PER_TARGET: readonly (readonly [TargetUnit, bigint])[] = [
	["s", 1_000_000_000n],
	["ms", 1_000_000n],
	["us", 1_000n],
	["ns", 1n],
];

const FINENESS: Readonly<Record<TargetUnit, number>> = { s: 0, ms: 1, us: 2, ns: 3 };

/** The coarsest unit that divides `nanoseconds`; ns when nothing coarser does. */
function coarsestDividing(nanoseconds: bigint): TargetUnit {
	for (const [unit, size] of NANOSECONDS_PER_TARGET) if (nanoseconds % size === 0n) return unit;
	return "ns";
}

export function finerUnit(a: TargetUnit, b: TargetUnit): TargetUnit {
	return FINENESS[a] >= FINENESS[b] ? a : b;
}

/** The unit that integer counts need: the units' own and the reference's. */
export function baseCfTargetUnit(coding: CfTimeCoding): TargetUnit {
	return finerUnit(coarsestDividing(coding.unitNanoseconds), coarsestDividing(coding.referenceNanoseconds));
}

/**
 * The unit a batch of float counts needs, at least `unit`: a fractional count m/2^k of units of u ns is a whole
 * number of t ns when t·2^k divides m·u. A fraction finer than a nanosecond asks for ns (and is then truncated or
 * refused as any other value).
 */
export function refineTargetUnit(values: NumericValues, coding: CfTimeCoding, markers: MissingValueMarkers, unit: TargetUnit): TargetUnit {
	if (!(values instanceof Float64Array || values instanceof Float32Array) || unit === "ns") return unit;
	let finest: TargetUnit = unit;
	for (let i = 0; i < values.length; i++) {
		const value = values[i];
		if (Number.isInteger(value) || !Number.isFinite(value) || isMissingValue(markers, value)) continue;
		const { numerator, shift } = exactDyadic(value);
		const fraction = numerator * coding.unitNanoseconds;
		for (const [candidate, size] of NANOSECONDS_PER_TARGET) {
			if (FINENESS[candidate] < FINENESS[finest]) continue;
			if (fraction % (size << shift) === 0n || candidate === "ns") {
				finest = candidate;
				break;
			}
		}
		if (finest === "ns") break;
	}
	return finest;
}
