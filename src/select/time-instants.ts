/**
 * Exact instants (attoseconds since 1970-01-01T00:00:00, see time-bounds.ts) of stored time values, to compare
 * them with `--start` / `--end` whatever their unit, and of Arrow timestamp values, to filter converted batches.
 */
import { roundHalfEvenDiv } from "../convert/bigint-division.js";
import { daysFromMonthsBig } from "../convert/calendar.js";
import type { Datetime64Type } from "../dtype/datetime64.js";
import { NAT } from "../dtype/fill-value.js";
import { ATTOSECONDS_PER_UNIT, type TargetUnit } from "../dtype/units.js";
import { Dt64ExportError } from "../errors.js";

const ATTOSECONDS_PER_DAY = ATTOSECONDS_PER_UNIT.D;

/** The instant of a stored value, or null for NaT (or a missing value), which no range holds. */
export type InstantOf = (value: bigint) => bigint | null;

/**
 * Instants of a numpy.datetime64 (or v2 `M8`) array's int64 counts; `Y` and `M` are calendar units. With
 * `nearestIn`, each instant rounded to the nearest of that unit (ties to even), as an export that rounds writes it.
 */
export function datetime64Instants(type: Datetime64Type, nearestIn?: TargetUnit): InstantOf {
	const exact = exactDatetime64Instants(type);
	if (nearestIn === undefined) return exact;
	const size = ATTOSECONDS_PER_UNIT[nearestIn];
	return (count) => {
		const instant = exact(count);
		return instant === null ? null : roundHalfEvenDiv(instant, size) * size;
	};
}

function exactDatetime64Instants(type: Datetime64Type): InstantOf {
	if (type.kind !== "datetime64") throw new Dt64ExportError("UNSUPPORTED", `a ${type.kind} array holds durations, not times: it cannot select a time range`);
	const scale = BigInt(type.scaleFactor);
	switch (type.unit) {
		case "generic":
			return (count) => (count === NAT ? null : invalidGeneric(count));
		case "Y":
			return (count) => (count === NAT ? null : daysFromMonthsBig(count * scale * 12n) * ATTOSECONDS_PER_DAY);
		case "M":
			return (count) => (count === NAT ? null : daysFromMonthsBig(count * scale) * ATTOSECONDS_PER_DAY);
		default: {
			const size = ATTOSECONDS_PER_UNIT[type.unit] * scale;
			return (count) => (count === NAT ? null : count * size);
		}
	}
}

function invalidGeneric(count: bigint): never {
	throw new Dt64ExportError("VALUE_INVALID", `a generic-unit datetime64 value ${count} is not NaT: it names no instant`);
}

export const ATTOSECONDS_PER_TARGET_UNIT: Readonly<Record<TargetUnit, bigint>> = {
	s: ATTOSECONDS_PER_UNIT.s,
	ms: ATTOSECONDS_PER_UNIT.ms,
	us: ATTOSECONDS_PER_UNIT.us,
	ns: ATTOSECONDS_PER_UNIT.ns,
};
