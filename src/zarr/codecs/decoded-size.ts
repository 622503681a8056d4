import { product } from "../grid.js";

/** Bytes a decompressed chunk may exceed its payload by: room for checksums (crc32c) after the payload. */
export const DECODED_SLACK_BYTES = 64;

/** The most bytes a chunk of variable-length strings may decode to: the 1 GiB every chunk is held to. */
const MAX_VARIABLE_WIDTH_CHUNK_BYTES = 2 ** 30;

/**
 * The most bytes a bytes-to-bytes codec may decode one chunk of `shape` to: its payload and a little slack.
 * Every decompressor is held to this before it allocates, so a small chunk that claims gigabytes is refused
 * cheaply. `valueBytes`: bytes per value, or `variable` for strings.
 */
export function maxDecodedBytes(shape: readonly number[], valueBytes: number | "variable"): number {
	if (valueBytes === "variable") return MAX_VARIABLE_WIDTH_CHUNK_BYTES;
	return product(shape) * valueBytes + DECODED_SLACK_BYTES;
}
