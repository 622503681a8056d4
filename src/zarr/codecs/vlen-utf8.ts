import { Dt64ExportError } from "../../errors.js";
import { cStrides, product } from "../grid.js";
import type { ArrayToBytesCodec, CodecFactory } from "./codec.js";

/**
 * The `vlen-utf8` codec (numcodecs' layout: a uint32 count, then a uint32 byte length and the UTF-8 bytes of each
 * string). zarrita's decoder reads from the start of the underlying buffer, ignoring the view's offset (wrong for
 * an inner chunk of a shard), and trusts every length; this one reads the view, checks the count against the
 * chunk shape and each length against the bytes left, and refuses invalid UTF-8.
 */
export function decodeVlenUtf8(bytes: Uint8Array, shape: readonly number[]): string[] {
	const expected = product(shape);
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	if (bytes.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `vlen-utf8: ${bytes.byteLength} bytes, shorter than the 4-byte count`);
	const count = view.getUint32(0, true);
	if (count !== expected) throw new Dt64ExportError("CHUNK_CORRUPT", `vlen-utf8: chunk holds ${count} strings, expected ${expected} (chunk shape ${JSON.stringify(shape)})`);
	const decoder = new TextDecoder("utf-8", { fatal: true });
	const strings = new Array<string>(count);
	let position = 4;
	for (let i = 0; i < count; i++) {
		if (position + 4 > bytes.byteLength) throw new Dt64ExportError("CHUNK_CORRUPT", `vlen-utf8: chunk ends inside the length of string ${i}`);
		const length = view.getUint32(position, true);
		position += 4;
		if (position + length > bytes.byteLength) throw new Dt64ExportError("CHUNK_CORRUPT", `vlen-utf8: string ${i} claims ${length} bytes, past the end of the chunk`);
		try {
			strings[i] = decoder.decode(bytes.subarray(position, position + length));
		} catch {
			throw new Dt64ExportError("CHUNK_CORRUPT", `vlen-utf8: string ${i} is not valid UTF-8`);
		}
		position += length;
	}
	return strings;
}

/** The `vlen-utf8` codec, as an array-to-bytes codec (its place in v3, and in v2 as the object codec). */
export const vlenUtf8Codec: CodecFactory = (_configuration, spec): ArrayToBytesCodec => {
	const shape = spec.shape;
	const stride = cStrides(shape);
	return { kind: "array_to_bytes", decode: (bytes) => ({ data: decodeVlenUtf8(bytes, shape), shape, stride }) };
};
