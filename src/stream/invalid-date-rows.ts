/**
 * The batcher's side of dropped dates (convert/dropped-dates.ts): the rows of a batch whose time coordinate holds a
 * marked date are left out, and counted.
 */
import { DataType, type RecordBatch } from "apache-arrow";
import { CopiedRows } from "../arrow/copied-rows.js";
import { invalidDatePosition, markedNextMonth } from "../convert/dropped-dates.js";
import type { TimeBounds } from "../select/time-bounds.js";

/**
 * Leaves out the rows of a batch whose row-filter columns (the time coordinates decoded with dropInvalidDates) hold
 * a marked date; counts those whose position is within `bounds` (every one without bounds: a row outside them is
 * left out by the time range anyway).
 */
export class InvalidDateRows {
	readonly #columns: readonly number[];
	readonly #bounds: TimeBounds;
	/** The rows left out so far, within the bounds. */
	dropped = 0;

	constructor(columns: readonly number[], bounds: TimeBounds = {}) {
		this.#columns = columns;
		this.#bounds = bounds;
	}

	#inBounds(nextMonth: bigint): boolean {
		const position = invalidDatePosition(nextMonth);
		const { start, end } = this.#bounds;
		return (start === undefined || position >= start) && (end === undefined || position < end);
	}

	/** The batch without the rows of dates left out: itself when none is, else a copy of the rows kept. */
	keep(batch: RecordBatch): RecordBatch {
		let drop: Uint8Array | undefined;
		for (const c of this.#columns) {
			const column = batch.getChildAt(c)!;
			if (!DataType.isTimestamp(column.type)) continue;
			let row = 0;
			for (const data of column.data) {
				if (data.nullCount > 0 && data.nullBitmap !== undefined) {
					const values = data.values as BigInt64Array;
					const bits = data.nullBitmap;
					for (let i = 0; i < data.length; i++) {
						const bit = data.offset + i;
						if ((bits[bit >> 3] & (1 << (bit & 7))) !== 0) continue;
						const nextMonth = markedNextMonth(values[i]);
						if (nextMonth === undefined) continue;
						drop ??= new Uint8Array(batch.numRows);
						if (drop[row + i] === 0 && this.#inBounds(nextMonth)) this.dropped++;
						drop[row + i] = 1;
					}
				}
				row += data.length;
			}
		}
		if (drop === undefined) return batch;
		const kept = new CopiedRows(batch.schema);
		let from = -1;
		for (let row = 0; row <= batch.numRows; row++) {
			const keepRow = row < batch.numRows && drop[row] === 0;
			if (keepRow && from < 0) from = row;
			if (!keepRow && from >= 0) {
				kept.append(batch, from, row);
				from = -1;
			}
		}
		return kept.toBatch();
	}
}
