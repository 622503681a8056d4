/**
 * The earliest and latest counts of a float CF time array: what `--unit auto` reads, when values may be floored or
 * rounded, to choose a unit that holds every value's date (auto-unit-range.ts). Kept as stored (the packed count, in
 * its own type) beside the count they unpack to, which orders them: a negative `scale_factor` reverses the stored order.
 * Missing values and infinite counts (which no unit holds) are left out.
 */
import type { NumericValues } from "../zarr/chunk-values.js";
import { allocateLike } from "../zarr/chunk-values.js";
import type { CfTimeCoding } from "./cf-time-coding.js";
import { isMissingValue, type MissingValueMarkers } from "./missing-value.js";
import { exactUnpacker } from "./packing.js";

export interface CountExtremes {
	/** The earliest and latest counts as stored, in the array's own type: [earliest, latest]. */
	readonly stored: NumericValues;
	/** The counts they unpack to (the stored counts themselves when unpacked). */
	readonly earliest: number | bigint;
	readonly latest: number | bigint;
}

/** `extremes` widened by the counts of `values` (a chunk); undefined while no count has been seen. */
export function widenExtremes(values: NumericValues, coding: CfTimeCoding, markers: MissingValueMarkers, extremes: CountExtremes | undefined): CountExtremes | undefined {
	const unpack = coding.packing === null ? null : exactUnpacker(coding.packing);
	let earliest = extremes?.earliest;
	let latest = extremes?.latest;
	let earliestStored = extremes?.stored[0];
	let latestStored = extremes?.stored[1];
	for (let i = 0; i < values.length; i++) {
		const stored = values[i];
		if (isMissingValue(markers, stored)) continue;
		const value = unpack === null ? stored : unpack(stored);
		if (typeof value === "number" && !Number.isFinite(value)) continue;
		if (earliest === undefined || value < earliest) {
			earliest = value;
			earliestStored = stored;
		}
		if (latest === undefined || value > latest) {
			latest = value;
			latestStored = stored;
		}
	}
	if (earliest === undefined || latest === undefined) return undefined;
	if (extremes !== undefined && earliest === extremes.earliest && latest === extremes.latest) return extremes;
	const stored = allocateLike(values, 2);
	(stored as unknown as (number | bigint)[])[0] = earliestStored as number | bigint;
	(stored as unknown as (number | bigint)[])[1] = latestStored as number | bigint;
	return { stored, earliest, latest };
}
