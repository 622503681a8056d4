import { makeData, Timestamp, TimeUnit, Duration, type Data } from "apache-arrow";
import { multiplySecondsToMillis } from "../../convert/seconds-as-millis.js";
import { ConversionError } from "../../convert/to-arrow-timestamps.js";
import type { TimeType } from "./schema.js";

/**
 * Int64 second counts times 1000, for a batch given to the writer in seconds (the export pipeline converts to
 * milliseconds itself; a library user's batch may not): exact (see multiplySecondsToMillis), and a value whose
 * milliseconds overflow int64 is refused. Null slots are written as 0.
 * Arrow buffers are little-endian, as is every platform Node runs on.
 */
export function secondsToMillis(data: Data<TimeType>, column: string, firstRow: number): Data<TimeType> {
	const { length, offset, nullBitmap } = data;
	const values = data.values as BigInt64Array;
	const result = new BigInt64Array(length);
	const overflow = multiplySecondsToMillis(values.subarray(0, length), result, 0, data.nullCount > 0 ? nullBitmap : null, offset);
	if (overflow < length) {
		const seconds = values[overflow];
		throw new ConversionError(
			"OVERFLOW",
			`column "${column}": ${seconds} s at row ${firstRow + overflow} overflows int64 in milliseconds (${data.type instanceof Timestamp ? "Parquet TIMESTAMP(MILLIS)" : "Parquet durations are written in ms"}, Parquet has no seconds unit)`,
			firstRow + overflow,
			seconds,
			"ms",
		);
	}
	const props = { offset, length, nullCount: data.nullCount, nullBitmap, data: result };
	// Two calls, because makeData's overloads are per type (a union type matches none of them).
	if (data.type instanceof Timestamp) return makeData({ type: new Timestamp(TimeUnit.MILLISECOND, data.type.timezone), ...props });
	return makeData({ type: new Duration(TimeUnit.MILLISECOND), ...props });
}
