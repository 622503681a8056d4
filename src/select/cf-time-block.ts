/**
 * A block of CF time counts as the range search reads it (see time-search.ts). The instant of a count grows with
 * the count in every calendar the export accepts (a real-world calendar adds count × unit to the reference; a model
 * calendar's labels keep their order once converted), so the block's order is checked on the counts themselves,
 * and instants (cf/decode-cf-times.ts, the decoding's own arithmetic) are computed only where the search looks.
 */
import { isMissingValue, type MissingValueMarkers } from "../cf/missing-value.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import { summarizeInstants, type TimeBlock } from "./time-search.js";

export function cfTimeBlock(values: NumericValues, markers: MissingValueMarkers, instantOf: (value: number | bigint) => bigint | null): TimeBlock {
	// Missing counts, and counts no unit holds (infinite), are in no range: they may sit anywhere.
	const isTime = (i: number): boolean => {
		const value = values[i];
		return !isMissingValue(markers, value) && (typeof value === "bigint" || Number.isFinite(value));
	};
	const instantAt = (i: number): bigint | null => instantOf(values[i]);
	return {
		length: values.length,
		instantAt,
		summarize() {
			let first = -1;
			let last = -1;
			for (let i = 0; i < values.length; i++) {
				if (!isTime(i)) continue;
				if (last >= 0 && values[i] < values[last]) return "unsorted";
				if (first < 0) first = i;
				last = i;
			}
			if (first < 0) return null;
			const firstInstant = instantAt(first);
			const lastInstant = instantAt(last);
			// A count past every unit's range at either end: summarized by the scan of its instants instead.
			if (firstInstant === null || lastInstant === null) return summarizeInstants(values.length, instantAt);
			return { first: firstInstant, last: lastInstant };
		},
		firstAtOrAfter(bound) {
			// A bisection over the sorted block (summarize checked it), stepping over missing counts: every time before
			// the position found is < bound, every time from it on is >= bound.
			let low = 0;
			let high = values.length;
			while (low < high) {
				const middle = (low + high) >>> 1;
				let probe = middle;
				let instant: bigint | null = null;
				while (probe < high && (instant = isTime(probe) ? instantAt(probe) : null) === null) probe++;
				if (instant === null || instant >= bound) high = middle;
				else low = probe + 1;
			}
			return low;
		},
	};
}
