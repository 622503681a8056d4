import { makeData, Timestamp, TimeUnit, Duration, type Data } from "apache-arrow";
import { multiplyWords, words, wordsToBigInt } from "../../convert/int64-words.js";
import { Dt64ExportError } from "../../errors.js";
import type { TimeType } from "./schema.js";

const MILLIS_PER_SECOND = 1000;

/**
 * Int64 second counts times 1000, for a batch given to the writer in seconds (the export pipeline converts to
 * milliseconds itself; a library user's batch may not): exact, with the conversion core's word arithmetic (no
 * BigInt per value), and a value whose milliseconds overflow int64 is refused. Null slots are written as 0.
 * Arrow buffers are little-endian, as is every platform Node runs on.
 */
export function secondsToMillis(data: Data<TimeType>, column: string, firstRow: number): Data<TimeType> {
	const { length, offset, nullBitmap } = data;
	const values = data.values as BigInt64Array;
	const source = new Int32Array(values.buffer, values.byteOffset, length * 2);
	const result = new BigInt64Array(length);
	const target = new Int32Array(result.buffer);
	const validity = data.nullCount > 0 ? nullBitmap : undefined;
	for (let i = 0; i < length; i++) {
		if (validity !== undefined) {
			const bit = offset + i;
			if ((validity[bit >> 3] & (1 << (bit & 7))) === 0) continue;
		}
		words.hi = source[2 * i + 1];
		words.lo = source[2 * i] >>> 0;
		if (!multiplyWords(MILLIS_PER_SECOND)) {
			const seconds = wordsToBigInt(source[2 * i + 1], source[2 * i]);
			throw new Dt64ExportError(
				"OVERFLOW",
				`column "${column}": ${seconds} s at row ${firstRow + i} overflows int64 in milliseconds (${data.type instanceof Timestamp ? "Parquet TIMESTAMP(MILLIS)" : "Parquet durations are written in ms"}, Parquet has no seconds unit)`,
				{ index: firstRow + i, value: seconds, unit: "ms" },
			);
		}
		target[2 * i] = words.lo;
		target[2 * i + 1] = words.hi;
	}
	const props = { offset, length, nullCount: data.nullCount, nullBitmap, data: result };
	// Two calls, because makeData's overloads are per type (a union type matches none of them).
	if (data.type instanceof Timestamp) return makeData({ type: new Timestamp(TimeUnit.MILLISECOND, data.type.timezone), ...props });
	return makeData({ type: new Duration(TimeUnit.MILLISECOND), ...props });
}
