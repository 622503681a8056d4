import type { BufferPool } from "../../store/buffer-pool.js";
import { product } from "../grid.js";

/** Bytes a decompressed chunk may exceed its int64 payload by: room for checksums (crc32c) after the payload. */
export const DECODED_SLACK_BYTES = 64;

/** The most bytes a chunk of variable-length strings may decode to: the 1 GiB every chunk is held to. */
export const MAX_VARIABLE_WIDTH_CHUNK_BYTES = 2 ** 30;

/** What a codec is told about the chunks it decodes, beyond their shape. */
interface ChunkContext {
	/** Bytes per value, or `variable` for strings. */
	readonly valueBytes: number | "variable";
	/** Where decompressors take their output buffers from (see BufferPool), if anywhere. */
	readonly bufferPool?: BufferPool;
}

/**
 * What the decoder says of the chunk shapes it hands to zarrita. zarrita gives a codec nothing but that shape
 * array (the same object) to size itself, so the rest travels with it; unmarked shapes are int64, without a pool.
 */
const contextByShape = new WeakMap<readonly number[], ChunkContext>();

/** Records the value width (a byte count, or `variable` for strings) and buffer pool of chunks of this shape object. */
export function markChunkShape(shape: readonly number[], valueBytes: number | "variable", bufferPool?: BufferPool): void {
	contextByShape.set(shape, { valueBytes, bufferPool });
}

/** The buffer pool decompressors of chunks of this shape object write into, if any. */
export function bufferPoolFor(chunkShape: readonly number[]): BufferPool | undefined {
	return contextByShape.get(chunkShape)?.bufferPool;
}

/**
 * The most bytes a bytes-to-bytes codec may decode one chunk to: its payload and a little slack. Every
 * decompressor is held to this before it allocates, so a small chunk that claims gigabytes is refused cheaply.
 */
export function maxDecodedBytes(chunkShape: readonly number[]): number {
	const valueBytes = contextByShape.get(chunkShape)?.valueBytes ?? 8;
	if (valueBytes === "variable") return MAX_VARIABLE_WIDTH_CHUNK_BYTES;
	return product(chunkShape) * valueBytes + DECODED_SLACK_BYTES;
}
