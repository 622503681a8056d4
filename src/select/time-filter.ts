/**
 * Keeps the rows of RecordBatches whose time is in [start, end), comparing the converted Arrow timestamps with
 * the bounds in the same unit. When the rows come from a binary search that found the time sorted, it checks that
 * they still are (a block the search never read could hide an unsorted stretch): rows out of order there would mean
 * rows in range outside the rows read, so the export fails rather than miss them.
 */
import { Transform, type TransformCallback } from "node:stream";
import type { RecordBatch } from "apache-arrow";
import { CopiedRows } from "../arrow/copied-rows.js";
import { compactedInPlace } from "../arrow/compacted-rows.js";
import { OverflowNullCounter } from "../convert/overflow-nulls.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import { formatIsoTimestamp } from "../convert/iso8601.js";
import type { TimeBounds } from "./time-bounds.js";
import { ATTOSECONDS_PER_TARGET_UNIT } from "./time-instants.js";
import { ceilDiv } from "../convert/bigint-division.js";
import { releaseBatchBuffers, releaseRowsOutside } from "../memory/batch-buffers.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import { INT64_MAX, INT64_MIN, int64Of, wordsOf, type Int64Words } from "./int64-words.js";

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
	/**
	 * The pool the batches' chunk buffers come from, when the output hands written buffers back to it: the filter
	 * says dead the bytes of the rows it leaves out (see TimeFilter's #filter).
	 */
	readonly bufferPool?: BufferPool;
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
 * A bound on int64 values as the scan compares it: `low` kept from it on (v >= low), `high` kept before it (v < high).
 * `pass` when every int64 is on the kept side of it (a bound past int64's range), `never` when none is.
 */
type WordBound = Int64Words | "pass" | "never";

function lowBound(low: bigint | undefined): WordBound {
	if (low === undefined || low <= INT64_MIN) return "pass";
	return low > INT64_MAX ? "never" : wordsOf(low);
}

function highBound(high: bigint | undefined): WordBound {
	if (high === undefined || high > INT64_MAX) return "pass";
	return high <= INT64_MIN ? "never" : wordsOf(high);
}

/** Below any int64's high word: the order check's "no time seen yet". */
const NONE_SEEN: Int64Words = { high: -(2 ** 31) - 1, low: 0 };

export class TimeFilter extends Transform {
	readonly #options: TimeFilterOptions;
	readonly #low: WordBound;
	readonly #high: WordBound;
	/** The last time kept or not (in order), for the order check. */
	#previous: Int64Words = NONE_SEEN;
	#timeIndex = -1;
	rowsIn = 0;
	rowsOut = 0;
	/** The overflowed nulls of the rows kept so far, when asked to count them. */
	readonly overflowNulls: OverflowNullCounter | undefined;

	constructor(options: TimeFilterOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.overflowNulls = options.countOverflowNulls === true ? new OverflowNullCounter() : undefined;
		const { low, high } = boundsInUnit(options.bounds, options.unit, options.truncated);
		this.#low = lowBound(low);
		this.#high = highBound(high);
	}

	/**
	 * The runs [from, to) of the batch's rows whose time is in range, in order. The times are compared by their two
	 * 32-bit words, as the range search scans them (time-selection.ts): a BigInt per row (and apache-arrow's getValid)
	 * took 0.7 s of the 1.5 s an export of 18M rows of 20M took.
	 */
	#runsOf(batch: RecordBatch): [number, number][] {
		if (this.#timeIndex < 0) {
			this.#timeIndex = batch.schema.fields.findIndex((field) => field.name === this.#options.timeColumn);
			if (this.#timeIndex < 0) throw new Dt64ExportError("INTERNAL", `the time column ${JSON.stringify(this.#options.timeColumn)} is not among the exported columns`);
		}
		const data = batch.getChildAt(this.#timeIndex)!.data[0];
		const rows = batch.numRows;
		// A slice's value buffer starts at its first row (apache-arrow slices it); its validity bitmap does not.
		const values = data.values as BigInt64Array;
		const words = new Int32Array(values.buffer, values.byteOffset, 2 * rows);
		const bits = data.nullCount === 0 ? undefined : data.nullBitmap;
		const bitOffset = data.offset;
		const checkSorted = this.#options.checkSorted;
		const low = this.#low;
		const high = this.#high;
		const lowPass = low === "pass";
		const highPass = high === "pass";
		const never = low === "never" || high === "never";
		const lowHigh = typeof low === "object" ? low.high : 0;
		const lowLow = typeof low === "object" ? low.low : 0;
		const highHigh = typeof high === "object" ? high.high : 0;
		const highLow = typeof high === "object" ? high.low : 0;
		let previousHigh = this.#previous.high;
		let previousLow = this.#previous.low;
		const runs: [number, number][] = [];
		let runStart = -1;
		for (let row = 0; row < rows; row++) {
			let keep = false;
			// Missing times are in no range: the order that matters is that of the others.
			if (bits === undefined || (bits[(bitOffset + row) >> 3] >> ((bitOffset + row) & 7)) & 1) {
				const h = words[2 * row + 1];
				const l = words[2 * row] >>> 0;
				if (checkSorted) {
					if (h < previousHigh || (h === previousHigh && l < previousLow)) this.#refuseUnsorted(values[row], { high: previousHigh, low: previousLow }, row);
					previousHigh = h;
					previousLow = l;
				}
				keep = !never && (lowPass || h > lowHigh || (h === lowHigh && l >= lowLow)) && (highPass || h < highHigh || (h === highHigh && l < highLow));
			}
			if (keep && runStart < 0) runStart = row;
			if (!keep && runStart >= 0) {
				runs.push([runStart, row]);
				runStart = -1;
			}
		}
		if (runStart >= 0) runs.push([runStart, rows]);
		this.#previous = { high: previousHigh, low: previousLow };
		return runs;
	}

	#refuseUnsorted(value: bigint, previous: Int64Words, row: number): never {
		const what = `${formatIsoTimestamp(value, this.#options.unit)} after ${formatIsoTimestamp(int64Of(previous), this.#options.unit)}`;
		throw new Dt64ExportError("TIME_NOT_SORTED", `the time column is not sorted after all (row ${this.rowsIn + row} of the rows read holds ${what}), though the chunks the range search read were: rows in range may lie in chunks it skipped`);
	}

	/**
	 * The rows of `batch` in range as one batch (undefined: none): the batch itself, a slice for one run, for several
	 * the batch's own rows moved to its front where its columns are provably its own (compactedInPlace), else a copy. One batch in, at most one out: a dataset writer judges whether the time is sorted a batch at a time, and
	 * rows of unsorted time cut into runs of a row or two would look sorted for a run or two, long enough for the
	 * writer to write the first partition seen to a file and close it once the time passed it, its later rows going to
	 * a second file (trial 16). With a pool, the bytes of the rows left out (all of them, once copied) are said dead
	 * here, as the output says those it writes: the chunk buffers then come back whole for the next chunks.
	 */
	#filter(batch: RecordBatch): RecordBatch | undefined {
		const runs = this.#runsOf(batch);
		this.rowsIn += batch.numRows;
		const pool = this.#options.bufferPool;
		if (runs.length === 1) {
			const [from, to] = runs[0];
			if (from === 0 && to === batch.numRows) return batch;
			if (pool !== undefined) releaseRowsOutside(pool, batch, from, to);
			return batch.slice(from, to);
		}
		let kept: RecordBatch | undefined;
		if (runs.length > 1 && pool !== undefined) {
			// A batch whose columns are its own (see compactedInPlace) keeps its rows where they are, and says dead itself
			// the bytes of those left out.
			kept = compactedInPlace(batch, runs, pool);
			if (kept !== undefined) return kept;
		}
		if (runs.length > 1) {
			const copied = new CopiedRows(batch.schema, pool);
			copied.appendRuns(batch, runs);
			kept = copied.toBatch();
		}
		if (pool !== undefined) releaseBatchBuffers(pool, batch);
		return kept;
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
