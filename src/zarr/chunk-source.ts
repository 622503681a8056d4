import { encodedChunkBound, largestEncodedChunk } from "./encoded-chunk-bound.js";
import type { AbsolutePath, AsyncReadable } from "../store/readable.js";
import { throwIfAborted } from "../abort.js";
import { EventLoopTurns } from "../event-loop-turns.js";
import { Dt64ExportError, withErrorFields } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { ForbiddenChunks } from "../store/forbidden-chunks.js";
import { storeReadFailure } from "../store/read-failure.js";
import { isRefusedKey, refusedChunkError } from "../store/refused-key.js";
import { inArrayDocument, type ArrayLayout, type CodecMetadata, type PlainArrayMetadata, type TimeArrayMetadata } from "./array-metadata.js";
import { ChunkDecoder, type DecodedAs } from "./chunk-decoder.js";
import type { ChunkValues } from "./chunk-values.js";
import type { ChunkBox } from "./chunk-box.js";
import { chunkKeyEncoder, type ChunkKeyEncoder } from "./chunk-key.js";
import { chunksPerAxis, cOrderCoordinates, product } from "./grid.js";
import { SHARD_DATA_LIMIT, ShardIndexReader, WHOLE_SHARD_BYTES, type ReadInto } from "./shard-index.js";
import { shardReadBox } from "./shard-read-box.js";
import { decodesHere, SMALL_CHUNK_BYTES } from "./small-array.js";
import { checkCodecs, SHARDING, shardingInChain, shardingLayout } from "./codec-chain.js";
import { chunkDecoding } from "./nested-shard.js";
import { openStreamedRow, streamedRowLayout, type StreamedRowFiles } from "./streamed-rows.js";
import { openStreamedChunk, streamedChunkLayout } from "./streamed-chunks.js";
import { shardBandsOf, type OpenedShard } from "./shard-bands.js";

/**
 * The decoded chunks of one array by chunk coordinates, whatever the layout: plain chunks, or inner chunks of
 * `sharding_indexed` shards. A missing chunk is the fill value, exactly. This is the read grid of the array:
 * `chunkShape` is the inner chunk shape for sharded arrays.
 */
export interface ChunkSource<V extends ChunkValues = BigInt64Array> {
	readonly chunkShape: number[];
	readonly gridShape: number[];
	/**
	 * `within`: the chunks of the pass this read belongs to (default: every chunk). A sharded array reads at once
	 * only those of a shard's inner chunks, so that a read of a few chunks does not read whole shards.
	 */
	read(coords: readonly number[], signal?: AbortSignal, within?: ChunkBox): Promise<V>;
	/**
	 * The chunks one request reads together, along each axis: the inner chunks of a shard, which a pass reads in one
	 * request once the shard's index is known (see shard-index.ts). Absent: each chunk is a request of its own. A
	 * reader counts its requests in flight by it (readChunksInOrder), not its chunks.
	 */
	readonly chunksPerRequest?: readonly number[];
	/** The store key of a chunk, for messages. */
	describe(coords: readonly number[]): string;
	/**
	 * The reads that kept chunks to be read again (a range search's probes, see KeptInnerChunks) are over, and those
	 * after them read each chunk of the chunk rows `chunkRows` (along the first axis) once: what the source kept of
	 * those is kept for that one read, the rest forgotten now. Absent: a source that keeps nothing.
	 */
	lastReads?(chunkRows: { readonly start: number; readonly end: number }): void;
	/**
	 * An array of a store that knows its missing keys without reading them (AsyncReadable.isAbsent): how many chunks
	 * from `coords` on are missing now, 0 when the first is there, or may be. 1-D: at most `limit` chunks. N-d: whole
	 * rows of chunks along the first axis only, `coords` the first chunk of a row, at most `limit` rows, as their count
	 * of chunks (rows × chunks per row). Its chunks of at most MISSING_RUN_VALUES values together. Absent: each chunk is read.
	 */
	missingRun?(coords: readonly number[], limit: number): number;
	/**
	 * The values of the `count` chunks from `coords` on that missingRun found missing, as one chunk: the fill value,
	 * `count` chunks' worth (a band of their rows is a prefix of it).
	 */
	readMissingRun?(coords: readonly number[], count: number, signal?: AbortSignal): Promise<V>;
	/**
	 * A row of chunks along the first axis (`chunkRow`) opened to be streamed into bands (see streamed-rows.ts): its
	 * files, or undefined when that row is read chunk by chunk. Absent: an array whose rows are never streamed.
	 */
	streamedRow?(chunkRow: number, signal?: AbortSignal): StreamedRowFiles | undefined;
	/**
	 * The chunk at `coords` opened to be streamed into the bands of its box in chunk order (see streamed-chunks.ts): a
	 * row of that one chunk, or undefined when it is read whole. Absent: an array whose chunks are never streamed.
	 */
	streamedChunk?(coords: readonly number[], signal?: AbortSignal): StreamedRowFiles | undefined;
	/**
	 * A 1-D sharded array whose shards are each read as one chunk (see ShardBands). Absent: its inner chunks are
	 * read one by one, each a band of its own.
	 */
	readonly shardBands?: ShardBands<V>;
}

/**
 * The shards of a 1-D sharded datetime64 array read as chunks of their own: a shard's inner chunks decoded into one
 * pooled buffer, each at its offset (on a decode thread, a SharedArrayBuffer it writes where it is), so that the
 * export makes one band, and one record batch, of a shard instead of one of each inner chunk (20M values in shards
 * of ten inner chunks: 20 batches instead of 200). Each inner chunk is still read, checked, decoded and named in
 * errors as alone; a missing one is the fill value. Only where a shard's values take at most SHARD_BAND_BYTES.
 */
export interface ShardBands<V extends ChunkValues> {
	/** Inner chunks along the axis per shard. */
	readonly innerPerShard: number;
	/**
	 * The values of inner chunks [start, end) of shard `shard` (counted within the shard, end at most the array's),
	 * in one buffer of the pool, placed as in the shard from its first inner chunk on: the values before `start` are
	 * left undefined, their bytes said dead to the pool, for a caller that takes only those of [start, end). Where
	 * NaT may be is recorded for them (nat-positions.ts) when every inner chunk said so.
	 */
	read(shard: number, start: number, end: number, signal?: AbortSignal): Promise<V>;
	/**
	 * As `read`, the inner chunks' reads started, without waiting for them: each inner chunk's values can be taken
	 * as soon as it is decoded (see OpenedShard), in order, without the rest of the shard.
	 */
	open(shard: number, start: number, end: number, signal?: AbortSignal): OpenedShard<V>;
	/** Values of an inner chunk. */
	readonly innerValues: number;
	/** The shard's key, for messages. */
	describe(shard: number): string;
}

/**
 * The most bytes of values a shard read as one chunk holds (ShardBands): a chunk of the size a 1-D export holds two
 * of within 100 MiB (the bench's plain zstd chunks of 1M values). A larger shard is read inner chunk by inner chunk.
 */
const SHARD_BAND_BYTES = 8 * 2 ** 20;

/**
 * The most values a run of missing chunks read as one holds (ChunkSource.missingRun): a batch's rows, so that a
 * sparse array of tiny chunks (zarr-python 3 writes no chunk that is all fill) costs a band per batch, not per chunk.
 */
const MISSING_RUN_VALUES = 1 << 16;

function joinKey(arrayPath: string, key: string): AbsolutePath {
	return `/${[arrayPath, key].filter((part) => part.length > 0).join("/")}` as AbsolutePath;
}

/**
 * The most values one decoded chunk (or shard index) may hold: 1 GiB of int64. Larger chunks are refused when
 * the array is opened, instead of failing to allocate in the middle of an export.
 */
export const MAX_CHUNK_VALUES = 2 ** 27;

function checkChunkSize(shape: readonly number[], what: string, where: string): void {
	const values = product(shape);
	if (values > MAX_CHUNK_VALUES) {
		throw new Dt64ExportError("TOO_LARGE", `${where}: ${what} ${JSON.stringify(shape)} holds ${values} values, too large to read (at most ${MAX_CHUNK_VALUES}, 1 GiB of int64)`);
	}
}

/** How the values of one data type are decoded, and what a missing chunk (named by `chunk` in messages) holds. */
export interface ChunkElements<V extends ChunkValues> {
	readonly decodedAs: DecodedAs;
	/**
	 * `pool`: the fill is made in a buffer of it where the data type's values are fixed-size, for a run of missing
	 * chunks (up to MISSING_RUN_VALUES values): the output hands it back once written, as a chunk read, where a new
	 * buffer of that size would wait for the collector (20 MiB more at the peak of a 2-D array written a tenth ahead).
	 */
	fillChunk(size: number, chunk: string, pool?: BufferPool): V;
}

/**
 * A v2 array without a fill value (`fill_value: null`) leaves nothing to stand for a missing chunk: reading on
 * would invent data, so the export stops and names the chunk.
 */
function missingWithoutFill(chunk: string, strings = false): Dt64ExportError {
	// zarr-python 2's object arrays have fill_value 0 by default, read back as the integer 0 among the strings.
	const which = strings ? "no string fill value (zarr-python 2's default fill_value 0, which it reads as the integer 0)" : "no fill value (fill_value is null)";
	return new Dt64ExportError("CHUNK_MISSING", `chunk ${chunk}: missing, and the array has ${which} to stand for it`);
}

/** The errors of a chunk read that name the chunk: its `key` and array (`path`) are set where it is read. */
export const CHUNK_ERRORS = ["CHUNK_CORRUPT", "CHUNK_MISSING", "READ_FAILED"] as const;

/**
 * Reads the chunk at `key` (a store key, without its leading `/`: the shard's, for an inner chunk) of the array at
 * `arrayPath`: a corrupt, missing or unreadable chunk's error carries both, whichever step raised it (the store, the
 * shard index, a codec here or on a decode thread), over what the store said of the file or URL it read.
 */
async function readingChunk<T>(arrayPath: string, key: string, read: () => Promise<T>): Promise<T> {
	try {
		return await read();
	} catch (error) {
		throw withErrorFields(error, CHUNK_ERRORS, { path: arrayPath, key }, "replace");
	}
}

export interface ChunkSourceOptions {
	/**
	 * Chunks are decompressed into this pool's buffers, and encoded bytes the store read from it are handed back
	 * once decoded (see BufferPool). Only for exports whose output hands written buffers back to the same pool.
	 */
	readonly bufferPool?: BufferPool;
	/**
	 * A chunk (or shard) key answered 403 AccessDenied by S3 is a missing chunk, the fill value, as a 404 is: what a
	 * bucket that the caller may not list answers for a chunk never written (see RefusedKeyError), counted there.
	 * Absent: an error.
	 */
	readonly forbiddenAsMissing?: ForbiddenChunks;
	/**
	 * Whether an inner chunk read on its own (a range search's probe) is kept for a second read (KeptInnerChunks):
	 * where a read is a request, or inflates a whole zip entry. False for a folder, whose second read is a read of
	 * the page cache: the copies kept cost the export's memory (4 MB of a two-sided range over the bench's sharded
	 * store). Default true.
	 */
	readonly keepsReadsAlone?: boolean;
}

/** The chunks of a datetime64 array, as int64 counts. */
export function createChunkSource(store: AsyncReadable, meta: TimeArrayMetadata, where: string, options: ChunkSourceOptions = {}): ChunkSource {
	const elements: ChunkElements<BigInt64Array> = {
		decodedAs: { dataType: "int64", valueBytes: 8, scanNaT: true },
		fillChunk: (size, key, pool) => {
			if (meta.fillValue === null) throw missingWithoutFill(key);
			if (pool === undefined) return new BigInt64Array(size).fill(meta.fillValue);
			const bytes = pool.acquire(size * 8);
			return new BigInt64Array(bytes.buffer, bytes.byteOffset, size).fill(meta.fillValue);
		},
	};
	return chunkSourceOf(store, meta, elements, where, options);
}

/** The chunks of a plain array (bool as bytes 0/1, integers, floats, strings), in their own data type. */
export function createPlainChunkSource(store: AsyncReadable, meta: PlainArrayMetadata, where: string, options: ChunkSourceOptions = {}): ChunkSource<ChunkValues> {
	const { dataType, fillValue } = meta;
	const elements: ChunkElements<ChunkValues> = {
		decodedAs: { dataType: dataType.zarritaType, valueBytes: dataType.itemBytes ?? "variable", valuesOf: dataType.valuesOf },
		fillChunk: (size, key) => {
			// No value in any slot: the column makes them null (table/missing-strings.ts).
			if (meta.missingChunksAreNull === true) return new Array<string>(size);
			if (fillValue === null) throw missingWithoutFill(key, dataType.zarritaType === "string");
			return dataType.fillChunk(size, fillValue);
		},
	};
	return chunkSourceOf(store, meta, elements, where, options);
}

function chunkSourceOf<V extends ChunkValues>(
	store: AsyncReadable,
	meta: ArrayLayout,
	elements: ChunkElements<V>,
	where: string,
	options: ChunkSourceOptions = {},
): ChunkSource<V> {
	try {
		checkCodecs(meta.codecs, "codecs", meta.shape.length, where);
		const encodeKey = chunkKeyEncoder(meta.chunkKeyEncoding, where);
		const inChain = shardingInChain(meta.codecs, where);
		if (inChain === undefined) {
			checkChunkSize(meta.chunkShape, "chunk_shape", where);
			return plainChunks(store, meta, elements, encodeKey, options);
		}
		if (inChain.after.length > 0) {
			// Bytes -> bytes codecs over a whole shard: its index could only be read once the whole shard is decoded.
			const chain = JSON.stringify(meta.codecs.map((codec) => codec.name));
			throw new Dt64ExportError("UNSUPPORTED", `${where}: codecs after ${SHARDING} are not supported (codecs ${chain}): the shard's index must be readable by ranges of the stored shard`, { field: SHARDING });
		}
		return shardedChunks(store, meta, elements, encodeKey, inChain.sharding, inChain.before, where, options);
	} catch (error) {
		throw inArrayDocument(error, meta);
	}
}

function plainChunks<V extends ChunkValues>(
	store: AsyncReadable,
	meta: ArrayLayout,
	elements: ChunkElements<V>,
	encodeKey: ChunkKeyEncoder,
	options: ChunkSourceOptions,
): ChunkSource<V> {
	const here = decodesHere(meta.shape, elements.decodedAs.valueBytes, meta.chunkShape);
	const decoder = new ChunkDecoder<V>(meta.chunkShape, meta.codecs, elements.decodedAs, options.bufferPool, here);
	const streamed = options.bufferPool === undefined ? undefined : streamedRowLayout(store, meta, elements.decodedAs);
	const streamedChunks = options.bufferPool === undefined ? undefined : streamedChunkLayout(store, meta, elements.decodedAs);
	const size = product(meta.chunkShape);
	const { valueBytes } = elements.decodedAs;
	// A chunk file no larger than this decoded (nor, then, encoded, but for a codec that grows it) is read at once.
	const small = valueBytes !== "variable" && size * valueBytes <= SMALL_CHUNK_BYTES;
	const bound = encodedChunkBound(size, valueBytes);
	// Over the network, an answer is cut past the largest encoded size (strings: the store's own cap).
	const maxBytes = valueBytes === "variable" ? undefined : largestEncodedChunk(size * valueBytes);
	const describe = (coords: readonly number[]) => joinKey(meta.path, encodeKey(coords)).slice(1);
	const turns = new EventLoopTurns();
	const gridShape = chunksPerAxis(meta.shape, meta.chunkShape);
	const isAbsent = store.isAbsent?.bind(store);
	// Chunks along the other axes than the first: an N-d run is whole rows of them.
	const chunksPerRow = product(gridShape.slice(1));
	const runs = isAbsent !== undefined && gridShape.length > 0 && size * chunksPerRow * (gridShape.length === 1 ? 2 : 1) <= MISSING_RUN_VALUES;
	const isAbsentChunk = (coords: readonly number[]) => isAbsent!(joinKey(meta.path, encodeKey(coords)));
	// The coordinates of a row's chunks past the first axis, made once (a run's rows are each checked chunk by chunk).
	const rowCoordinates = runs && gridShape.length > 1 ? [...cOrderCoordinates(gridShape.slice(1))] : [];
	return {
		chunkShape: meta.chunkShape,
		gridShape,
		describe,
		...(runs && {
			missingRun(coords: readonly number[], limit: number) {
				if (gridShape.length === 1) {
					const most = Math.min(limit, Math.floor(MISSING_RUN_VALUES / size), gridShape[0] - coords[0]);
					let count = 0;
					while (count < most && isAbsentChunk([coords[0] + count])) count++;
					return count;
				}
				if (coords.some((c, axis) => axis > 0 && c !== 0)) return 0;
				const most = Math.min(limit, Math.floor(MISSING_RUN_VALUES / (size * chunksPerRow)), gridShape[0] - coords[0]);
				let rows = 0;
				for (; rows < most; rows++) {
					for (const rest of rowCoordinates) if (!isAbsentChunk([coords[0] + rows, ...rest])) return rows * chunksPerRow;
				}
				return rows * chunksPerRow;
			},
			readMissingRun(coords: readonly number[], count: number, signal?: AbortSignal) {
				return readingChunk(meta.path, describe(coords), async () => {
					throwIfAborted(signal);
					// Resolved at once: the event loop turns now and then, as for a missing chunk read alone.
					await turns.turn();
					throwIfAborted(signal);
					return elements.fillChunk(size * count, describe(coords), options.bufferPool);
				});
			},
		}),
		...(streamed && {
			streamedRow(chunkRow: number, signal?: AbortSignal) {
				const keyOf = (coords: readonly number[]) => joinKey(meta.path, encodeKey(coords));
				try {
					return openStreamedRow(store, streamed, chunkRow, meta.shape.length, keyOf, describe, bound, here, meta.path, signal);
				} catch (error) {
					throw withErrorFields(error, CHUNK_ERRORS, { path: meta.path }, "fill");
				}
			},
		}),
		...(streamedChunks && {
			streamedChunk(coords: readonly number[], signal?: AbortSignal) {
				const keyOf = (at: readonly number[]) => joinKey(meta.path, encodeKey(at));
				try {
					return openStreamedChunk(store, streamedChunks, meta, coords, keyOf, describe, bound, here, signal);
				} catch (error) {
					throw withErrorFields(error, CHUNK_ERRORS, { path: meta.path, key: describe(coords) }, "fill");
				}
			},
		}),
		read(coords, signal) {
			const key = joinKey(meta.path, encodeKey(coords));
			return readingChunk(meta.path, key.slice(1), async () => {
				throwIfAborted(signal);
				const bytes = await store.get(key, { signal, room: decoder.inputRoom, small, bound, maxBytes }).catch((error: unknown) => {
					if (!isRefusedKey(error)) throw storeReadFailure(`chunk ${describe(coords)}`, error, key.slice(1), signal);
					if (options.forbiddenAsMissing !== undefined) {
						options.forbiddenAsMissing.add(key.slice(1));
						return undefined;
					}
					throw refusedChunkError(error, `chunk ${describe(coords)}`);
				});
				// A missing chunk, or a small file read at once, waits for no I/O: the event loop turns now and then.
				await turns.turn();
				// Read before the abort, decoded after it would be work nobody waits for (a local read ignores the signal).
				throwIfAborted(signal);
				if (bytes === undefined) return elements.fillChunk(size, describe(coords));
				return decoder.decode(bytes, describe(coords), signal);
			});
		},
	};
}

/**
 * The inner chunks of `sharding_indexed` shards, by inner chunk coordinates of the array. Transposes before the
 * sharding codec (`before`) transpose the whole shard before it is cut: its `chunk_shape`, its index and its inner
 * chunks are in the transposed axes (the spec's codec chain: sharding receives the array the transposes encoded).
 * So an inner chunk of the array is found at its coordinates transposed, and decodes through the transposes, then
 * the inner codecs, as if they were one chain (the inner codecs may transpose again).
 */
function shardedChunks<V extends ChunkValues>(
	store: AsyncReadable,
	meta: ArrayLayout,
	elements: ChunkElements<V>,
	encodeKey: ChunkKeyEncoder,
	sharding: CodecMetadata,
	before: readonly CodecMetadata[],
	where: string,
	options: ChunkSourceOptions,
): ChunkSource<V> {
	const { stored, innerShape, perShard, storedPerShard, innerCodecs, indexCodecs, location } = shardingLayout(sharding, before, meta.chunkShape, where);
	checkChunkSize(innerShape, `${SHARDING}.chunk_shape`, where);
	checkChunkSize([...perShard, 2], "shard index of chunks per shard", where);
	const size = product(innerShape);
	// An inner chunk that is a shard itself (nested sharding) is decoded whole (nested-shard.ts).
	const { decoder, bound } = chunkDecoding<V>(innerShape, [...before, ...innerCodecs], elements, where, options.bufferPool, decodesHere(meta.shape, elements.decodedAs.valueBytes, innerShape));
	const index = new ShardIndexReader(store, storedPerShard, indexCodecs, location, options.forbiddenAsMissing, bound);
	const keepsAlone = options.keepsReadsAlone !== false;
	const gridShape = chunksPerAxis(meta.shape, innerShape);
	// Coordinates of the array's axes in the order the shard stores them.
	const toStored = (coords: readonly number[]) => stored.map((axis) => coords[axis]);
	const shardKey = (coords: readonly number[]) => joinKey(meta.path, encodeKey(coords.map((c, axis) => Math.floor(c / perShard[axis]))));
	const describe = (coords: readonly number[]) => `${shardKey(coords).slice(1)} (inner chunk ${JSON.stringify(toStored(coords.map((c, axis) => c % perShard[axis])))})`;
	// A shard is read in one request when its bytes are at most WHOLE_SHARD_BYTES; those of a shard whose values
	// are more than that decoded are counted inner chunk by inner chunk, as they may be read so.
	const { valueBytes } = elements.decodedAs;
	const oneRequest = valueBytes !== "variable" && product(meta.chunkShape) * valueBytes <= WHOLE_SHARD_BYTES;
	const turns = new EventLoopTurns();
	/**
	 * Reads the inner chunk at `coords` and gives its bytes to `decode`, or says it is missing. `room`: what a pooled
	 * buffer it is read into holds (GetOptions.room).
	 */
	const readInner = <T>(
		coords: readonly number[],
		signal: AbortSignal | undefined,
		within: ChunkBox | undefined,
		room: number | undefined,
		decode: (bytes: Uint8Array) => Promise<T>,
		missing: () => T,
		into?: ReadInto,
	): Promise<T> => {
		const key = shardKey(coords);
		return readingChunk(meta.path, key.slice(1), async () => {
			throwIfAborted(signal);
			const inner = toStored(coords.map((c, axis) => c % perShard[axis]));
			// The inner chunks of the shard read at once: those of the pass, or of the part of it read before the
			// next part of the shard when the pass reads more shards at once than are held (see shard-read-box.ts).
			const { box, narrowed } = shardReadBox(within, coords, perShard, gridShape, SHARD_DATA_LIMIT);
			const storedBox = box === undefined ? undefined : { start: toStored(box.start), end: toStored(box.end) };
			// A read into a shard's buffer (ShardBands) reads each of its inner chunks once: none alone is kept for another.
			const bytes = await index.readInnerChunk(key, inner, signal, room, storedBox, keepsAlone && !narrowed && into === undefined, into, coords);
			// An empty inner chunk, or one of a shard already read, waits for no I/O: the event loop turns now and then.
			await turns.turn();
			throwIfAborted(signal);
			return bytes === undefined ? missing() : decode(bytes);
		});
	};
	// A shard read as one chunk: its 1-D inner chunks decoded into their places of one buffer (see ShardBands), each
	// read into its place there (or, not fitting, into a pooled buffer of its encoded size: no room, it does not
	// decode there).
	const intoOne =
		meta.shape.length === 1 && elements.decodedAs.scanNaT === true && decoder instanceof ChunkDecoder && decoder.decodesInto && typeof valueBytes === "number" && size * perShard[0] * valueBytes <= SHARD_BAND_BYTES;
	const bands = !intoOne
		? undefined
		: shardBandsOf<V>({
				pool: options.bufferPool,
				shared: (decoder as ChunkDecoder<V>).sharedTarget,
				innerPerShard: perShard[0],
				innerValues: size,
				valueBytes: valueBytes as number,
				innerChunks: gridShape[0],
				describe: (shard) => shardKey([shard * perShard[0]]).slice(1),
				readInto: (coords, target, signal, within, placeOf) =>
					readInner(
						coords,
						signal,
						within,
						1,
						(bytes) => (decoder as ChunkDecoder<V>).decodeInto(bytes, target, describe(coords), signal),
						() => {
							const fill = elements.fillChunk(size, describe(coords)) as unknown as BigInt64Array;
							target.set(new Uint8Array(fill.buffer, fill.byteOffset, fill.byteLength));
							return null;
						},
						// 1-D: a slot is the inner chunk's place in its shard. Encoded bytes that fit its decoded place go there.
						(slot, length) => placeOf(coords[0] - (coords[0] % perShard[0]) + slot)?.subarray(0, length),
					),
			});
	return {
		chunkShape: innerShape,
		gridShape,
		...(oneRequest ? { chunksPerRequest: perShard } : {}),
		...(bands && { shardBands: bands }),
		describe,
		lastReads: (chunkRows) => index.lastReads((coords) => coords[0] >= chunkRows.start && coords[0] < chunkRows.end),
		read(coords, signal, within) {
			return readInner(
				coords,
				signal,
				within,
				decoder.inputRoom,
				(bytes) => decoder.decode(bytes, describe(coords), signal),
				() => elements.fillChunk(size, describe(coords)),
			);
		},
	};
}
