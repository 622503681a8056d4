import { product } from "../grid.js";

/** Bytes a decompressed chunk may exceed its int64 payload by: room for checksums (crc32c) after the payload. */
export const DECODED_SLACK_BYTES = 64;

/**
 * The most bytes a bytes-to-bytes codec may decode one chunk to: its int64 payload and a little slack. Every
 * decompressor is held to this before it allocates, so a small chunk that claims gigabytes is refused cheaply.
 */
export function maxDecodedBytes(chunkShape: readonly number[]): number {
	return product(chunkShape) * 8 + DECODED_SLACK_BYTES;
}
