import { Dt64ExportError } from "../../errors.js";
import { parseNumpyPlainDtype } from "../../dtype/numpy-plain-dtype.js";
import type { NumericValues } from "../chunk-values.js";
import type { ArrayToArrayCodec, CodecFactory } from "./codec.js";

/** The data types numcodecs' Delta is read for: integers, whose differences wrap in their width. */
const INTEGER_TYPES: ReadonlySet<string> = new Set(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]);

/**
 * Why numcodecs' Delta with this configuration is not read for chunks of `dataType`, or undefined when it is: its
 * `dtype` must be the integer type of the stored values (what numcodecs views the bytes as), and `astype`, when
 * given, the same (another type stores the differences narrower and widens them on decode: not read).
 */
export function deltaRefusal(configuration: Readonly<Record<string, unknown>>, dataType: string): string | undefined {
	const typeOf = (value: unknown) => {
		// numcodecs' dtype string (`<i8`), or the type's name (`int64`).
		if (typeof value === "string" && INTEGER_TYPES.has(value)) return value;
		try {
			return parseNumpyPlainDtype(value).dataType;
		} catch {
			return undefined;
		}
	};
	const dtype = typeOf(configuration.dtype);
	if (typeof dtype !== "string" || !INTEGER_TYPES.has(dtype)) return `delta dtype ${JSON.stringify(configuration.dtype)} is not an integer type: only integer arrays are read with delta`;
	if (dtype !== dataType) return `delta dtype ${JSON.stringify(configuration.dtype)} is not the array's ${dataType}`;
	const astype = configuration.astype ?? null;
	if (astype !== null && typeOf(astype) !== dtype) return `delta stores ${JSON.stringify(astype)} and decodes it to ${JSON.stringify(configuration.dtype)}: a conversion, where only astype equal to dtype is read`;
	return undefined;
}

/**
 * numcodecs' Delta filter (zarr-python 3's `numcodecs.delta`): each stored value is the difference from the one before
 * it in the chunk's stored order (the first is itself), computed in the integer type, wrapping. Decoding is the
 * running sum, wrapping in that type as numpy's cumsum does; into new values, as the stored ones may be a view of
 * bytes another read shares. The new values carry none of the NaT positions a decoder found among the differences
 * (nat-positions.ts): the conversion looks at every one.
 */
export const deltaCodec: CodecFactory = (configuration, spec): ArrayToArrayCodec => {
	const refusal = deltaRefusal(configuration, spec.dataType);
	if (refusal !== undefined) throw new Dt64ExportError("UNSUPPORTED", refusal, { field: "delta" });
	return {
		kind: "array_to_array",
		encodedShape: spec.shape,
		decode(chunk) {
			// The differences run in stored order: after an array-to-array codec that moved the values, they would not.
			if (!isCOrder(chunk.shape, chunk.stride)) throw new Dt64ExportError("UNSUPPORTED", "delta after a codec that reorders the values is not read (only next to the array-to-bytes codec)", { field: "delta" });
			const stored = chunk.data as NumericValues;
			const values = new (stored.constructor as new (length: number) => NumericValues)(stored.length);
			if (stored instanceof BigInt64Array || stored instanceof BigUint64Array) {
				const sums = values as BigInt64Array | BigUint64Array;
				// A typed array stores a bigint modulo 2^64: the running sum wraps as numpy's does.
				for (let i = 0; i < stored.length; i++) sums[i] = (i === 0 ? 0n : sums[i - 1]) + stored[i];
			} else {
				const sums = values as Exclude<NumericValues, BigInt64Array | BigUint64Array>;
				// The sum of two values of at most 32 bits is exact as a double; storing it wraps it to the type.
				for (let i = 0; i < stored.length; i++) sums[i] = (i === 0 ? 0 : sums[i - 1]) + (stored[i] as number);
			}
			return { ...chunk, data: values };
		},
	};
};

function isCOrder(shape: readonly number[], stride: readonly number[]): boolean {
	let expected = 1;
	for (let axis = shape.length - 1; axis >= 0; axis--) {
		if (shape[axis] > 1 && stride[axis] !== expected) return false;
		expected *= shape[axis];
	}
	return true;
}
