import { natPositionsOf, recordNatPositions } from "../../convert/nat-positions.js";
import { Dt64ExportError } from "../../errors.js";
import { copyOfBytes } from "../../memory/copy-of-bytes.js";
import type { ChunkValues } from "../chunk-values.js";
import { cStrides } from "../grid.js";
import type { ArrayToBytesCodec, CodecFactory } from "./codec.js";

type ValuesConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Exclude<ChunkValues, string[]>;

/** The typed array each fixed-size data type's chunk bytes are read as. */
const VALUE_LAYOUTS: ReadonlyMap<string, ValuesConstructor> = new Map<string, ValuesConstructor>([
	["int8", Int8Array],
	["int16", Int16Array],
	["int32", Int32Array],
	["int64", BigInt64Array],
	["uint8", Uint8Array],
	["uint16", Uint16Array],
	["uint32", Uint32Array],
	["uint64", BigUint64Array],
	["float32", Float32Array],
	["float64", Float64Array],
]);

/** numpy's `<U n` (v3 `fixed_length_utf32`): n UTF-32 code units per value, read as uint32 code units. */
const FIXED_UTF32 = /^v2:U[0-9]+$/;
/** numpy's `|S n` (v3 `null_terminated_bytes`): n bytes per value, read as bytes. */
const FIXED_BYTES = /^v2:S[0-9]+$/;

function layoutOf(dataType: string): ValuesConstructor | undefined {
	if (FIXED_UTF32.test(dataType)) return Uint32Array;
	return FIXED_BYTES.test(dataType) ? Uint8Array : VALUE_LAYOUTS.get(dataType);
}

/**
 * The `bytes` codec: the chunk's bytes as values in C order, swapped from big endian where the metadata says so.
 * The values are a view of the bytes when they are aligned and little endian (no copy), a copy otherwise.
 */
export const bytesCodec: CodecFactory = (configuration, spec): ArrayToBytesCodec => {
	const Values = layoutOf(spec.dataType);
	if (Values === undefined) throw new Dt64ExportError("UNSUPPORTED", `bytes: data type ${spec.dataType} has no byte layout`);
	const width = (Values as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
	const bigEndian = configuration.endian === "big" && width > 1;
	const shape = spec.shape;
	const stride = cStrides(shape);
	return {
		kind: "array_to_bytes",
		decode(bytes) {
			const strayBytes = bytes.byteLength % width;
			let own = bytes.subarray(0, bytes.byteLength - strayBytes);
			if (bigEndian || own.byteOffset % width !== 0) own = copyOfBytes(own);
			if (bigEndian) swapBytes(own, width);
			const data = new Values(own.buffer, own.byteOffset, own.byteLength / width);
			// The same values at the same positions, swapped or not: the decoder looked for NaT in both byte orders.
			const natPositions = strayBytes === 0 ? natPositionsOf(bytes) : undefined;
			if (natPositions !== undefined) recordNatPositions(data, natPositions);
			return { data, shape, stride, strayBytes };
		},
	};
};

function swapBytes(bytes: Uint8Array, width: number): void {
	for (let start = 0; start < bytes.length; start += width) bytes.subarray(start, start + width).reverse();
}
