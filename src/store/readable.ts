/**
 * The read side of a Zarr store, as this package's stores implement it. These are structurally the types of
 * `@zarrita/storage` (so a store here can be handed to zarrita and back), declared here so that the package's
 * public declarations never import `@zarrita/storage`: its index re-exports its zip store, whose `unzipit`
 * declarations do not type-check in a consumer that sets `skipLibCheck: false` with NodeNext resolution.
 */

import type { ValueBound } from "./value-bound.js";

/** A key inside a store: always absolute, `/` being the store's root. */
export type AbsolutePath<Rest extends string = string> = `/${Rest}`;

/** A byte range of one key: `length` bytes from `offset`, or the last `suffixLength` bytes. */
export type RangeQuery = { offset: number; length: number } | { suffixLength: number };

export interface GetOptions {
	signal?: AbortSignal;
	/**
	 * Bytes the buffer under the value should hold at least: its reader decodes it into that same buffer (see
	 * BytesToBytesCodec.inputRoom). A hint: a store that does not read into pooled buffers ignores it.
	 */
	room?: number;
	/**
	 * Read into a buffer of the store's pool, if it has one: the caller gives each byte of it to one owner, who says
	 * it dead once used (see BufferPool), so that it comes back after its last part.
	 */
	pooled?: boolean;
	/**
	 * The value is expected to be small (a chunk of at most SMALL_CHUNK_BYTES decoded, see zarr/small-array.ts): a
	 * local store may read it on the calling thread, at once, instead of in several round trips through a thread
	 * pool. A hint: stores that cannot, ignore it.
	 */
	small?: boolean;
	/**
	 * The most bytes the value can hold (a chunk of a fixed-size data type, a metadata document): a store that knows a
	 * value's size before reading it (a file's, a zip entry's declared size) refuses a larger one before reading or
	 * inflating it, with `bound`'s code. Stores that cannot know, read and leave the check to the caller.
	 */
	bound?: ValueBound;
	/**
	 * The most bytes the value can hold for its reader (a chunk's largest encoded size, see largestEncodedChunk): a
	 * store over the network refuses a larger answer (TOO_LARGE) as soon as its length, or its body so far, passes it,
	 * instead of holding it. A store that reads local files may ignore it.
	 */
	maxBytes?: number;
	/**
	 * For `getRanges`: where to read each range, by its place among the ranges, when given (exactly its length; a
	 * shard's inner chunk read into its place in the buffer its shard decodes into, see ShardBands); the others as
	 * `pooled` says. A store that cannot read into given memory ignores it.
	 */
	into?: readonly (Uint8Array | undefined)[];
}

/**
 * A key's file opened to be read at positions, piece by piece (AsyncReadable.openFile): `fd` may be read with
 * `readSync` on any thread of the process (a decode thread streams a chunk from it) until `close`, which its opener
 * calls once nothing reads it any more. `size`: its bytes when opened; nothing past them is read.
 */
export interface PositionedFile {
	readonly fd: number;
	readonly size: number;
	/** What messages call it: the file's path. */
	readonly name: string;
	/** Reads into `bytes` from `position`: the bytes read, fewer only at the end of the file. */
	readAt(bytes: Uint8Array, position: number): number;
	close(): void;
}

/** A store read asynchronously: a key's bytes, or `undefined` when the store does not hold the key. */
export interface AsyncReadable {
	get(key: AbsolutePath, options?: GetOptions): Promise<Uint8Array | undefined>;
	getRange?(key: AbsolutePath, range: RangeQuery, options?: GetOptions): Promise<Uint8Array | undefined>;
	/**
	 * Several byte ranges of one key, in increasing order and apart, read in one go, each into a buffer of its own
	 * (the inner chunks of a shard, each then decoded where it was read): with `pooled`, buffers of the store's pool
	 * holding `room` bytes each. A range past the end of the key is an error.
	 */
	getRanges?(key: AbsolutePath, ranges: readonly { offset: number; length: number }[], options?: GetOptions): Promise<Uint8Array[] | undefined>;
	/**
	 * Whether the key is known missing now, without reading it (a local store's listing: a zip's entries, a folder's
	 * names): true only when `get` would answer undefined at this moment; false when it may be there, or cannot be told
	 * without a read, or the read would fail (the read then says why). A sparse array's runs of missing chunks are read
	 * as one fill band from it (ChunkSource.missingRun).
	 */
	isAbsent?(key: AbsolutePath): boolean;
	/**
	 * A local store's key opened as a file to read at positions, with the checks `get` makes of it (inside the store, a
	 * regular file, within `options.bound`): undefined when the key is missing. Stores whose values are not files (a
	 * zip's entries, remote objects) lack it; their chunks are read whole.
	 */
	openFile?(key: AbsolutePath, options?: GetOptions): PositionedFile | undefined;
}
