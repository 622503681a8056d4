/**
 * Values written as null because they overflowed (`onOverflow: "null"`), counted where the rows are written. A
 * decoded column's rows may be repeated (a broadcast variable, an index coordinate), cut by a time range or routed
 * to a dataset's files: so the overflowed slots are marked in the values themselves, which travel with them. Under
 * its null bit, an overflowed value's slot holds OVERFLOW_NULL_SLOT, every other null slot of that batch 0 (no reader
 * looks under a null bit); a count of the null rows holding it, in the batches written, is then exact.
 */
import { DataType, type RecordBatch } from "apache-arrow";
import type { TimestampValues } from "./to-arrow-timestamps.js";

/** int64's largest value: what an overflowed value's slot holds under its null bit. */
const OVERFLOW_NULL_SLOT = 2n ** 63n - 1n;

/** Marks the values `converted` made null by overflow (see above); a conversion without any is left as it is. */
export function markOverflowNulls(converted: TimestampValues): void {
	const { values, validity, overflowed } = converted;
	if (overflowed === undefined || overflowed.length === 0 || validity === null) return;
	for (let i = 0; i < values.length; i++) if ((validity[i >> 3] & (1 << (i & 7))) === 0) values[i] = 0n;
	for (const i of overflowed) values[i] = OVERFLOW_NULL_SLOT;
}

/** Per column (by output name): the values written as null because they overflowed; only columns with some. */
export type OverflowNulls = Readonly<Record<string, number>>;

/** Counts the overflowed nulls of the time columns (Timestamp, Duration) of the batches given. */
export class OverflowNullCounter {
	readonly #counts = new Map<string, number>();

	add(batch: RecordBatch): void {
		const fields = batch.schema.fields;
		for (let c = 0; c < fields.length; c++) {
			if (!DataType.isTimestamp(fields[c].type) && !DataType.isDuration(fields[c].type)) continue;
			let count = 0;
			for (const data of batch.getChildAt(c)!.data) {
				if (data.nullCount === 0 || data.nullBitmap === undefined) continue;
				const values = data.values as BigInt64Array;
				const bits = data.nullBitmap;
				for (let row = 0; row < data.length; row++) {
					const bit = data.offset + row;
					if ((bits[bit >> 3] & (1 << (bit & 7))) === 0 && values[row] === OVERFLOW_NULL_SLOT) count++;
				}
			}
			if (count > 0) this.#counts.set(fields[c].name, (this.#counts.get(fields[c].name) ?? 0) + count);
		}
	}

	get counts(): OverflowNulls {
		return Object.fromEntries(this.#counts);
	}
}

/** The counts of several parts, summed per column. */
export function sumOverflowNulls(parts: readonly (OverflowNulls | undefined)[]): OverflowNulls {
	const sum: Record<string, number> = {};
	for (const part of parts) for (const [column, count] of Object.entries(part ?? {})) sum[column] = (sum[column] ?? 0) + count;
	return sum;
}
