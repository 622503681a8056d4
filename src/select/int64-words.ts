/**
 * An int64 as the two 32-bit words it is stored as (little endian): the scans of int64 times (the range search's
 * blocks, the time filter's rows) compare these words, where indexing a BigInt64Array makes a BigInt per value.
 */

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** `high` signed, `low` unsigned: (high, low) order as the int64 does. */
export interface Int64Words {
	readonly high: number;
	readonly low: number;
}

/** The words of an int64 (a bigint within int64's range). */
export function wordsOf(value: bigint): Int64Words {
	return { high: Number(BigInt.asIntN(32, value >> 32n)), low: Number(BigInt.asUintN(32, value)) };
}

/** The int64 of two words. */
export function int64Of(words: Int64Words): bigint {
	return BigInt.asIntN(64, (BigInt(words.high) << 32n) | BigInt(words.low));
}
