import { inheritNatPositions } from "../convert/nat-positions.js";

/**
 * The decoded values of a chunk, a band or a column, whatever the data type: a typed array for fixed-size types
 * (int64 counts for datetime64, bytes 0/1 for bool), a JS array for variable-length strings. The grid code
 * copies and slices them through these helpers, so that one implementation serves every type.
 */
export type NumericValues =
	| BigInt64Array
	| BigUint64Array
	| Int8Array
	| Int16Array
	| Int32Array
	| Uint8Array
	| Uint16Array
	| Uint32Array
	| Float32Array
	| Float64Array;

/**
 * Strings are a JS array; a slot of a missing chunk of a v2 object-string array without a fill value holds no value
 * (undefined), which a column makes null (see table/missing-strings.ts).
 */
export type ChunkValues = NumericValues | string[];

/** A new, zeroed (or empty-string) array of the same kind as `like`. */
export function allocateLike<V extends ChunkValues>(like: V, length: number): V {
	if (Array.isArray(like)) return new Array<string>(length).fill("") as V;
	const Ctor = like.constructor as new (length: number) => V;
	return new Ctor(length);
}

/** `to[at .. at + (end - start)) = from[start .. end)`: one memcpy for typed arrays. */
export function copyValues<V extends ChunkValues>(from: V, start: number, end: number, to: V, at: number): void {
	if (Array.isArray(from)) {
		const target = to as string[];
		for (let i = start; i < end; i++) target[at + i - start] = from[i];
		return;
	}
	(to as NumericValues).set((from as NumericValues).subarray(start, end) as never, at);
}

/** Values [start, end): a view for typed arrays (no copy), a shallow copy for strings. */
export function sliceValues<V extends ChunkValues>(values: V, start: number, end: number): V {
	if (start === 0 && end === values.length) return values;
	if (Array.isArray(values)) return values.slice(start, end) as V;
	const part = (values as NumericValues).subarray(start, end);
	inheritNatPositions(values as NumericValues, part, start, end);
	return part as V;
}
