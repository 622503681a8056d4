/**
 * Which chunks an export in chunk order streams instead of reading each whole, and the file and frame of one such
 * chunk. In chunk order each chunk's box is cut into bands of whole rows along the first axis, and a band's values
 * are a run of the chunk's own C order: read whole, each chunk is held whole while its bands are converted and
 * written, with the next one read ahead (the bench's 3-D zstd store: two chunks of 8 MB). Streamed, a chunk is
 * decoded a band at a time (codecs/wasm/streamed-row.ts, as a row of one chunk), each band into a buffer of its own.
 *
 * An array's chunks are streamed when the rules of a row streamed in C order hold for the array (streamed-rows.ts:
 * datetime64/timedelta64 counts, N-d, `bytes` then `zstd`, a store of files read at positions, chunks of at least
 * STREAM_MIN_CHUNK_BYTES), and no chunk is cut along an axis after the second (each shape[k] a multiple of
 * chunk_shape[k] for k >= 2), so that each band row of a box is one run of the chunk's row: an edge chunk along the
 * second axis keeps the first part of each of its rows. And a chunk is streamed when, besides, the export wants its
 * first row (a box cut at its start by a time range is read whole) and it is there and is one zstd frame of the
 * chunk's exact size, as for a row (otherwise it is read whole, which fills a missing chunk and says why another
 * does not decode).
 */
import type { AbsolutePath, AsyncReadable } from "../store/readable.js";
import type { ValueBound } from "../store/value-bound.js";
import type { ArrayLayout } from "./array-metadata.js";
import type { DecodedAs } from "./chunk-decoder.js";
import { product } from "./grid.js";
import { STREAM_MIN_CHUNK_BYTES, streamsZstdChunks, zstdStreamHead, type StreamedRowFiles } from "./streamed-rows.js";

/** How an array's chunks are streamed in chunk order: the decoded bytes of a chunk, of a row of it along the first axis, and of that row's part along the axes after the second. */
export interface StreamedChunkLayout {
	readonly chunkBytes: number;
	readonly partBytes: number;
	readonly innerBytes: number;
}

/** Whether an array's chunks are streamed in chunk order (see the rules above): its layout, or undefined. */
export function streamedChunkLayout(store: AsyncReadable, meta: ArrayLayout, decodedAs: DecodedAs): StreamedChunkLayout | undefined {
	if (!streamsZstdChunks(store, meta, decodedAs)) return undefined;
	const { shape, chunkShape } = meta;
	if (shape.some((length, axis) => axis >= 2 && length % chunkShape[axis] !== 0)) return undefined;
	const chunkBytes = product(chunkShape) * 8;
	if (chunkBytes < STREAM_MIN_CHUNK_BYTES || product(shape) === 0) return undefined;
	const innerBytes = product(chunkShape.slice(2)) * 8;
	return { chunkBytes, partBytes: chunkShape[1] * innerBytes, innerBytes };
}

/**
 * Opens the file of the chunk at `coords` to stream, as a row of that one chunk whose band rows are the rows of its
 * box (`keyOf`: its store key; `nameOf`: its name in messages): undefined, with nothing left open, when it is missing
 * or its frame is not one to stream. A failure to open or read it is thrown, as reading it whole would.
 */
export function openStreamedChunk(
	store: AsyncReadable,
	layout: StreamedChunkLayout,
	meta: ArrayLayout,
	coords: readonly number[],
	keyOf: (coords: readonly number[]) => AbsolutePath,
	nameOf: (coords: readonly number[]) => string,
	bound: ValueBound | undefined,
	here: boolean,
	signal?: AbortSignal,
): StreamedRowFiles | undefined {
	const key = keyOf(coords);
	const file = store.openFile!(key, { signal, bound });
	if (file === undefined) return undefined;
	try {
		const head = zstdStreamHead(file, layout.chunkBytes);
		if (head === undefined) {
			file.close();
			return undefined;
		}
		// An edge chunk along the second axis: the first rows along it of each of its rows are the box's.
		const kept = Math.min(meta.chunkShape[1], meta.shape[1] - coords[1] * meta.chunkShape[1]);
		const keptBytes = kept * layout.innerBytes;
		const chunk = { fd: file.fd, size: file.size, ...head, name: nameOf(coords), key: key.slice(1), file: file.name, chunkBytes: layout.chunkBytes, partBytes: layout.partBytes, keptBytes, offsetBytes: 0 };
		return { spec: { chunks: [chunk], rowBytes: keptBytes }, here, path: meta.path, close: () => file.close() };
	} catch (error) {
		file.close();
		throw error;
	}
}
