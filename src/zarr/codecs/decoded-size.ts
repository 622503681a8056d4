import { product } from "../grid.js";

/** Bytes a decompressed chunk may exceed its int64 payload by: room for checksums (crc32c) after the payload. */
export const DECODED_SLACK_BYTES = 64;

/** The most bytes a chunk of variable-length strings may decode to: the 1 GiB every chunk is held to. */
export const MAX_VARIABLE_WIDTH_CHUNK_BYTES = 2 ** 30;

/**
 * Bytes per value of the chunk shapes the decoder hands to zarrita. zarrita gives a codec nothing but that shape
 * array (the same object) to size itself, so the value width travels with it; unmarked shapes are int64.
 */
const valueBytesByShape = new WeakMap<readonly number[], number | "variable">();

/** Records the value width of chunks of this shape object: a byte count, or `variable` for strings. */
export function markChunkShape(shape: readonly number[], valueBytes: number | "variable"): void {
	valueBytesByShape.set(shape, valueBytes);
}

/**
 * The most bytes a bytes-to-bytes codec may decode one chunk to: its payload and a little slack. Every
 * decompressor is held to this before it allocates, so a small chunk that claims gigabytes is refused cheaply.
 */
export function maxDecodedBytes(chunkShape: readonly number[]): number {
	const valueBytes = valueBytesByShape.get(chunkShape) ?? 8;
	if (valueBytes === "variable") return MAX_VARIABLE_WIDTH_CHUNK_BYTES;
	return product(chunkShape) * valueBytes + DECODED_SLACK_BYTES;
}
