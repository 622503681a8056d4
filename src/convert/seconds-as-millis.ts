/**
 * Parquet has no seconds unit, so time data in seconds is written as milliseconds. The values are first converted
 * to seconds under the seconds' rules (a value that is not a whole number of seconds is refused unless truncation
 * is allowed, and then floored to the second), exactly as an Arrow output would hold them; only then are they
 * multiplied by 1000. The output format never changes which values are accepted.
 */
import type { OverflowPolicy } from "./options.js";
import { multiplyWords, words } from "./int64-words.js";
import { ConversionError, type TimestampValues } from "./to-arrow-timestamps.js";

const MILLIS_PER_SECOND = 1000;

/** What a refusal of seconds past int64 in milliseconds says of them: the CLI's advice for it is Arrow IPC, not a coarser unit. */
export const PARQUET_SECONDS_NOTE = "Parquet has no seconds unit: seconds are written as milliseconds";

/**
 * An OVERFLOW of seconds converted straight to the milliseconds Parquet writes them as (datetime64 of a second or
 * coarser), said as such: it read as a value outside ms alone, and the CLI then advised the seconds it was already
 * in (trial 28, finding 03). Other errors are returned as they are.
 */
export function asParquetSecondsRefusal(error: unknown): unknown {
	if (!(error instanceof ConversionError) || error.code !== "OVERFLOW" || error.unit !== "ms" || error.message.includes(PARQUET_SECONDS_NOTE)) return error;
	return new ConversionError("OVERFLOW", `${error.message} (${PARQUET_SECONDS_NOTE})`, error.index, error.count, "ms", error.coarserUnitHolds);
}

/**
 * Writes `source[i] × 1000` to `target[i]` from `start` on, exactly (the conversion core's word arithmetic, no BigInt
 * per value), skipping null slots (bit `offset + i` of `validity` clear). Stops at the first value whose
 * milliseconds leave int64 and returns its index (the length when there is none); `target` may be `source`.
 */
export function multiplySecondsToMillis(source: BigInt64Array, target: BigInt64Array, start: number, validity: Uint8Array | null, offset = 0): number {
	const length = source.length;
	const from32 = new Int32Array(source.buffer, source.byteOffset, length * 2);
	const to32 = new Int32Array(target.buffer, target.byteOffset, length * 2);
	for (let i = start; i < length; i++) {
		if (validity !== null) {
			const bit = offset + i;
			if ((validity[bit >> 3] & (1 << (bit & 7))) === 0) continue;
		}
		words.hi = from32[2 * i + 1];
		words.lo = from32[2 * i] >>> 0;
		if (!multiplyWords(MILLIS_PER_SECOND)) return i;
		to32[2 * i] = words.lo;
		to32[2 * i + 1] = words.hi;
	}
	return length;
}

export interface SecondsAsMillisOptions {
	readonly onOverflow: OverflowPolicy;
	/** Describes the position of the i-th value in messages; defaults to `index i`. */
	readonly describePosition?: (index: number) => string;
	/** Where a validity bitmap's memory comes from (its content is set here): by default a new Uint8Array. */
	readonly allocateBitmap?: (bytes: number) => Uint8Array;
}

/**
 * Second values (a conversion's result in unit `s`) as milliseconds, in place: a value whose milliseconds leave
 * int64 is refused (code OVERFLOW), or null with `onOverflow: "null"`.
 */
export function secondsAsMillis(converted: TimestampValues, options: SecondsAsMillisOptions): TimestampValues {
	const { values } = converted;
	const length = values.length;
	let validity = converted.validity;
	let nullCount = converted.nullCount;
	const overflowed = [...(converted.overflowed ?? [])];
	for (let i = multiplySecondsToMillis(values, values, 0, validity); i < length; i = multiplySecondsToMillis(values, values, i + 1, validity)) {
		if (options.onOverflow === "error") {
			const seconds = values[i];
			const position = options.describePosition?.(i) ?? `index ${i}`;
			throw new ConversionError("OVERFLOW", `value ${seconds} s at ${position} is outside the int64 range in unit ms (${PARQUET_SECONDS_NOTE})`, i, seconds, "ms");
		}
		if (validity === null) {
			validity = (options.allocateBitmap?.((length + 7) >> 3) ?? new Uint8Array((length + 7) >> 3)).fill(0xff);
			// Arrow requires nothing of the bits past the end, but clean zeros make the output byte-reproducible.
			if (length & 7) validity[length >> 3] &= (1 << (length & 7)) - 1;
		}
		validity[i >> 3] &= ~(1 << (i & 7));
		nullCount++;
		overflowed.push(i);
	}
	// In order of position, as the conversion's own.
	if (overflowed.length > (converted.overflowed?.length ?? 0)) overflowed.sort((a, b) => a - b);
	return { unit: "ms", values, validity, nullCount, ...(overflowed.length > 0 && { overflowed }) };
}
