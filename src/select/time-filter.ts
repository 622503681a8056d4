/**
 * Keeps the rows of RecordBatches whose time is in [start, end), comparing the converted Arrow timestamps with
 * the bounds in the same unit. When the rows come from a binary search that found the time sorted, it checks that
 * they still are (a block the search never read could hide an unsorted stretch): rows out of order there would mean
 * rows in range outside the rows read, so the export fails rather than miss them.
 */
import { Transform, type TransformCallback } from "node:stream";
import type { RecordBatch } from "apache-arrow";
import { CopiedRows } from "../arrow/copied-rows.js";
import { OverflowNullCounter } from "../convert/overflow-nulls.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import { formatIsoTimestamp } from "../convert/iso8601.js";
import type { TimeBounds } from "./time-bounds.js";
import { ATTOSECONDS_PER_TARGET_UNIT } from "./time-instants.js";
import { ceilDiv } from "../convert/bigint-division.js";

export interface TimeFilterOptions {
	readonly timeColumn: string;
	readonly unit: TargetUnit;
	readonly bounds: TimeBounds;
	/** The rows are the result of a sorted search: check their order instead of trusting it. */
	readonly checkSorted: boolean;
	/** Values were floored to the unit (--allow-truncate): only bounds that are whole units compare exactly. */
	readonly truncated: boolean;
	/** Count the values of the rows kept written as null because they overflowed, in `overflowNulls`. */
	readonly countOverflowNulls?: boolean;
}

/** The bounds in `unit`: a value v (exact) is in range when low <= v < high. */
export function boundsInUnit(bounds: TimeBounds, unit: TargetUnit, truncated: boolean): { low?: bigint; high?: bigint } {
	const size = ATTOSECONDS_PER_TARGET_UNIT[unit];
	for (const [option, bound] of [["start", bounds.start], ["end", bounds.end]] as const) {
		// A floored value v stands for times in [v, v + 1): against a bound inside that unit, the side is unknown.
		if (truncated && bound !== undefined && bound % size !== 0n) {
			throw new UsageError(`${option} is finer than the output unit (${unit}) and \`allowTruncate\` floors the times: write the bound in whole ${unit}, or choose a finer \`unit\``, { option });
		}
	}
	return {
		low: bounds.start === undefined ? undefined : ceilDiv(bounds.start, size),
		high: bounds.end === undefined ? undefined : ceilDiv(bounds.end, size),
	};
}

/**
 * The rows of `runs` ([from, to) of `batch`, in order) as one batch: a slice for one run, a copy for several. One
 * batch in, at most one out: a dataset writer judges whether the time is sorted a batch at a time, and rows of
 * unsorted time cut into runs of a row or two would look sorted for a run or two, long enough for the writer to
 * write the first partition seen to a file and close it once the time passed it, its later rows going to a second
 * file (trial 16).
 */
function keptRows(batch: RecordBatch, runs: readonly (readonly [number, number])[]): RecordBatch | undefined {
	if (runs.length === 0) return undefined;
	if (runs.length === 1) {
		const [from, to] = runs[0];
		return from === 0 && to === batch.numRows ? batch : batch.slice(from, to);
	}
	const rows = new CopiedRows(batch.schema);
	for (const [from, to] of runs) rows.append(batch, from, to);
	return rows.toBatch();
}

export class TimeFilter extends Transform {
	readonly #options: TimeFilterOptions;
	readonly #low: bigint | undefined;
	readonly #high: bigint | undefined;
	#previous: bigint | undefined;
	#timeIndex = -1;
	rowsIn = 0;
	rowsOut = 0;
	/** The overflowed nulls of the rows kept so far, when asked to count them. */
	readonly overflowNulls: OverflowNullCounter | undefined;

	constructor(options: TimeFilterOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.overflowNulls = options.countOverflowNulls === true ? new OverflowNullCounter() : undefined;
		({ low: this.#low, high: this.#high } = boundsInUnit(options.bounds, options.unit, options.truncated));
	}

	#inRange(value: bigint): boolean {
		return (this.#low === undefined || value >= this.#low) && (this.#high === undefined || value < this.#high);
	}

	#filter(batch: RecordBatch): RecordBatch | undefined {
		if (this.#timeIndex < 0) {
			this.#timeIndex = batch.schema.fields.findIndex((field) => field.name === this.#options.timeColumn);
			if (this.#timeIndex < 0) throw new Dt64ExportError("INTERNAL", `the time column ${JSON.stringify(this.#options.timeColumn)} is not among the exported columns`);
		}
		const data = batch.getChildAt(this.#timeIndex)!.data[0];
		const values = data.values as BigInt64Array;
		const checkSorted = this.#options.checkSorted;
		const runs: [number, number][] = [];
		let runStart = -1;
		for (let row = 0; row < batch.numRows; row++) {
			const valid = data.nullCount === 0 || data.getValid(row);
			const value = values[row];
			// Missing times are in no range: the order that matters is that of the others.
			if (checkSorted && valid) {
				if (this.#previous !== undefined && value < this.#previous) {
					const what = `${formatIsoTimestamp(value, this.#options.unit)} after ${formatIsoTimestamp(this.#previous, this.#options.unit)}`;
					throw new Dt64ExportError("TIME_NOT_SORTED", `the time column is not sorted after all (row ${this.rowsIn + row} of the rows read holds ${what}), though the chunks the range search read were: rows in range may lie in chunks it skipped`);
				}
				this.#previous = value;
			}
			const keep = valid && this.#inRange(value);
			if (keep && runStart < 0) runStart = row;
			if (!keep && runStart >= 0) {
				runs.push([runStart, row]);
				runStart = -1;
			}
		}
		if (runStart >= 0) runs.push([runStart, batch.numRows]);
		this.rowsIn += batch.numRows;
		return keptRows(batch, runs);
	}

	override _transform(batch: RecordBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
		let kept: RecordBatch | undefined;
		try {
			kept = this.#filter(batch);
		} catch (error) {
			callback(error as Error);
			return;
		}
		if (kept !== undefined) {
			this.rowsOut += kept.numRows;
			this.overflowNulls?.add(kept);
			this.push(kept);
		}
		// The first batch carries the schema to a writer that takes it from there, even when no row of it is kept.
		else if (this.rowsIn === batch.numRows) this.push(batch.slice(0, 0));
		callback();
	}
}
