/**
 * Which rows of chunks an export streams instead of reading each chunk whole (codecs/wasm/streamed-row.ts), and the
 * files and frames of one such row. An N-d export in C order needs a whole row of chunks along the first axis for
 * each band of rows: read whole, the row is held whole (the bench's 3-D zstd store: five chunks of 8 MB). Streamed,
 * each chunk is decoded a window at a time into the bands as they are asked for.
 *
 * An array is streamed when all of these hold, and read chunk by chunk as before otherwise:
 * - a datetime64/timedelta64 array (int64 counts), N-d (2 or more axes), in C order: its codecs exactly `bytes`
 *   (little endian) then `zstd` (a v2 array: no filters, compressor zstd, order C, `<` byte order);
 * - two or more chunks along the second axis (an edge chunk along it is cut), chunks whole along every later axis
 *   (chunk_shape[k] == shape[k] for k >= 2), so that each chunk's part of an array row is one run of the band;
 * - chunks of at least STREAM_MIN_CHUNK_BYTES decoded (smaller rows cost little held whole);
 * - a store whose chunks are files read at positions (a folder: AsyncReadable.openFile); zip, HTTP and object stores
 *   read whole chunks.
 * And a row is streamed when, besides, the export wants all of its rows (a row cut by a time range is read whole)
 * and each of its chunks is there and is one zstd frame that declares the chunk's exact size, without a dictionary,
 * with a window of at most STREAM_MAX_WINDOW_BYTES (after any skippable frames): otherwise that row is read chunk by
 * chunk, which fills a missing chunk and says why another does not decode, as always.
 */
import type { AbsolutePath, AsyncReadable, PositionedFile } from "../store/readable.js";
import type { ValueBound } from "../store/value-bound.js";
import type { ArrayLayout } from "./array-metadata.js";
import type { DecodedAs } from "./chunk-decoder.js";
import type { StreamedChunk, StreamedRowSpec } from "./codecs/wasm/streamed-row.js";
import { contentSizeAt, contentSizeBytesOf, isSkippableMagic, windowBytesOf, ZSTD_MAGIC } from "./codecs/zstd-frame.js";
import { chunksPerAxis, product } from "./grid.js";

/** Chunks smaller than this decoded are read whole: 2 MiB, the size from which a chunk is decoded in steps. */
export const STREAM_MIN_CHUNK_BYTES = 2 * 2 ** 20;

/** The largest zstd window a streamed chunk may declare: each stream holds its window (zarr-python's: 512 KiB). */
const STREAM_MAX_WINDOW_BYTES = 2 ** 20;

/** Skippable frames looked past before a chunk's frame, at most: more, and the chunk is read whole. */
const MAX_LEADING_SKIPPABLE = 8;

/**
 * A row of chunks opened to be streamed: its spec for the decoder, and its files, closed by `close` once nothing
 * reads them. `here`: decoded on the calling thread (a small array's, see ChunkSpec.decodeHere); `path`: the
 * array's, for the errors of its chunks.
 */
export interface StreamedRowFiles {
	readonly spec: StreamedRowSpec;
	readonly here: boolean;
	readonly path: string;
	close(): void;
}

/** How an array's rows of chunks are streamed: the geometry of every row's chunks. */
export interface StreamedRowLayout {
	readonly chunkBytes: number;
	readonly rowBytes: number;
	/** Per chunk along the second axis: bytes of a row of it, kept of them, and where they go in a band row. */
	readonly parts: readonly { readonly partBytes: number; readonly keptBytes: number; readonly offsetBytes: number }[];
}

/**
 * Whether an array's chunks may be streamed, whatever the order: datetime64/timedelta64 counts, N-d, its codecs
 * exactly `bytes` (little endian) then `zstd`, in a store whose chunks are files read at positions.
 */
export function streamsZstdChunks(store: AsyncReadable, meta: ArrayLayout, decodedAs: DecodedAs): boolean {
	if (store.openFile === undefined || decodedAs.dataType !== "int64" || decodedAs.scanNaT !== true || decodedAs.valuesOf !== undefined) return false;
	const { shape, codecs } = meta;
	if (shape.length < 2 || codecs.length !== 2) return false;
	const [bytes, zstd] = codecs;
	if (bytes.name !== "bytes" || ((bytes.configuration?.endian as string | undefined) ?? "little") !== "little") return false;
	return zstd.name === "zstd" || zstd.name === "numcodecs.zstd";
}

/** Whether an array is streamed (see the rules above): its layout, or undefined. */
export function streamedRowLayout(store: AsyncReadable, meta: ArrayLayout, decodedAs: DecodedAs): StreamedRowLayout | undefined {
	if (!streamsZstdChunks(store, meta, decodedAs)) return undefined;
	const { shape, chunkShape } = meta;
	if (shape.some((length, axis) => axis >= 2 && chunkShape[axis] !== length)) return undefined;
	const grid = chunksPerAxis(shape, chunkShape);
	const chunkBytes = product(chunkShape) * 8;
	if (grid[1] < 2 || chunkBytes < STREAM_MIN_CHUNK_BYTES || product(shape) === 0) return undefined;
	const inner = product(shape.slice(2)) * 8;
	const parts = Array.from({ length: grid[1] }, (_, j) => ({
		partBytes: chunkShape[1] * inner,
		keptBytes: Math.min(chunkShape[1], shape[1] - j * chunkShape[1]) * inner,
		offsetBytes: j * chunkShape[1] * inner,
	}));
	return { chunkBytes, rowBytes: shape[1] * inner, parts };
}

/**
 * Opens the files of a row of chunks to stream (`keyOf`: a chunk's store key; `nameOf`: its name in messages):
 * undefined, with nothing left open, when one is missing or its frame is not one to stream (the row is then read
 * chunk by chunk). A failure to open or read one (READ_FAILED, a link out of the store) is thrown, as reading it
 * whole would.
 */
export function openStreamedRow(
	store: AsyncReadable,
	layout: StreamedRowLayout,
	chunkRow: number,
	rank: number,
	keyOf: (coords: readonly number[]) => AbsolutePath,
	nameOf: (coords: readonly number[]) => string,
	bound: ValueBound | undefined,
	here: boolean,
	path: string,
	signal?: AbortSignal,
): StreamedRowFiles | undefined {
	const files: PositionedFile[] = [];
	const chunks: StreamedChunk[] = [];
	const closeAll = () => {
		for (const file of files.splice(0)) file.close();
	};
	try {
		for (let j = 0; j < layout.parts.length; j++) {
			const coords = [chunkRow, j, ...Array.from({ length: rank - 2 }, () => 0)];
			const key = keyOf(coords);
			const file = store.openFile!(key, { signal, bound });
			if (file === undefined) {
				closeAll();
				return undefined;
			}
			files.push(file);
			const head = zstdStreamHead(file, layout.chunkBytes);
			if (head === undefined) {
				closeAll();
				return undefined;
			}
			chunks.push({ fd: file.fd, size: file.size, ...head, name: nameOf(coords), key: key.slice(1), file: file.name, chunkBytes: layout.chunkBytes, ...layout.parts[j] });
		}
	} catch (error) {
		closeAll();
		throw error;
	}
	return { spec: { chunks, rowBytes: layout.rowBytes }, here, path, close: closeAll };
}

/**
 * Where a chunk's zstd frame starts and the window log to decode it with, read from its header: undefined unless it
 * is a zstd frame (after at most MAX_LEADING_SKIPPABLE skippable frames) that declares `chunkBytes` of content, no
 * dictionary, and a window of at most STREAM_MAX_WINDOW_BYTES. Only the headers are read.
 */
export function zstdStreamHead(file: Pick<PositionedFile, "readAt" | "size">, chunkBytes: number): { frameStart: number; windowLog: number } | undefined {
	const head = new Uint8Array(14);
	const view = new DataView(head.buffer);
	let position = 0;
	for (let skipped = 0; skipped <= MAX_LEADING_SKIPPABLE; skipped++) {
		const read = file.readAt(head, position);
		if (read < 4) return undefined;
		const magic = view.getUint32(0, true);
		if (isSkippableMagic(magic)) {
			if (read < 8) return undefined;
			position += 8 + view.getUint32(4, true);
			if (position >= file.size) return undefined;
			continue;
		}
		if (magic !== ZSTD_MAGIC || read < 6) return undefined;
		const descriptor = head[4];
		const fcsBytes = contentSizeBytesOf(descriptor);
		// Single segment: the window is the whole content. Reserved bit, dictionary: read whole, which says why.
		if ((descriptor & 0x20) !== 0 || (descriptor & 0x08) !== 0 || (descriptor & 0x03) !== 0 || fcsBytes === 0) return undefined;
		const windowBytes = windowBytesOf(head[5]);
		if (read < 6 + fcsBytes) return undefined;
		const content = contentSizeAt(view, 6, fcsBytes);
		if (content !== chunkBytes || windowBytes > STREAM_MAX_WINDOW_BYTES) return undefined;
		return { frameStart: position, windowLog: Math.max(10, Math.ceil(Math.log2(windowBytes))) };
	}
	return undefined;
}
