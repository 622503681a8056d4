/**
 * `--unit auto` when values may move (`--allow-truncate`, `--round`): the unit it gives a float CF time array is its
 * exact unit (or, rounding, its nearest: cf-target-unit.ts) when that unit holds every value's date, else the finest
 * unit that does. A count no unit holds exactly asks for ns, whose int64 range ends before 1678 and after 2262: hourly
 * float `days since` before 1678 are floored in us rather than refused as an overflow in ns, whose advice (a coarser
 * unit) was a second step to the same export. Every value is exact, or moved by at most the unit asked for (floored or
 * rounded in it), never by more; the CLI says which unit it took (cf-auto-unit-notice.ts).
 *
 * The date of a count is the decoder's own (decodeCfCounts, the same calendar rules and rounding), of the earliest and
 * latest counts (count-extremes.ts): each extreme needs the finest unit that holds it, and the array the coarser of
 * the two. An extreme no unit holds (1e300 days) asks for nothing: it overflows whatever the unit (refused, or null
 * with `--on-overflow null`).
 */
import type { Rounding } from "../convert/options.js";
import type { TargetUnit } from "../dtype/units.js";
import type { CfTimeCoding } from "./cf-time-coding.js";
import type { CountExtremes } from "./count-extremes.js";
import { decodeCfCounts } from "./decode-cf-times.js";
import type { MissingValueMarkers } from "./missing-value.js";

const FINER_TO_COARSER: readonly TargetUnit[] = ["ns", "us", "ms", "s"];

/**
 * The unit that holds both extremes, from `unit` (auto's unit for the values' fractions) toward s: `unit` itself when
 * it holds them, or when no unit holds either.
 */
export function unitHoldingExtremes(extremes: CountExtremes, coding: CfTimeCoding, markers: MissingValueMarkers, unit: TargetUnit, rounding: Exclude<Rounding, "error">, dataType: string): TargetUnit {
	const candidates = FINER_TO_COARSER.slice(FINER_TO_COARSER.indexOf(unit));
	const needed: (TargetUnit | undefined)[] = [undefined, undefined];
	for (const candidate of candidates) {
		// A date the proleptic Gregorian calendar lacks is a refusal of its own, when the export meets it; here, a date.
		const { overflowed = [] } = decodeCfCounts(extremes.stored, coding, markers, { unit: candidate, rounding, onOverflow: "null", dataType, invalidDates: "drop" });
		for (const extreme of [0, 1]) if (needed[extreme] === undefined && !overflowed.includes(extreme)) needed[extreme] = candidate;
		if (needed[0] !== undefined && needed[1] !== undefined) break;
	}
	const units = needed.filter((found): found is TargetUnit => found !== undefined);
	if (units.length === 0) return unit;
	return units.reduce((coarser, found) => (FINER_TO_COARSER.indexOf(found) > FINER_TO_COARSER.indexOf(coarser) ? found : coarser));
}
