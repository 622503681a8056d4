/**
 * Decoded chunks of one array kept in memory, within a byte bound, for a second read of the same chunk by the same
 * operation: the range search reads a short time coordinate whole (each chunk a request over an object store), then
 * the export reads the range's chunks of it for the index column; inspect reads a float CF time array for its unit,
 * then its first and last chunks for its first and last values. Each read of a kept chunk gets a copy of it: a
 * reader may convert values where they are, or hand a chunk's buffer back to a pool, and what is kept stays as read.
 */
import { natPositionsOf, recordNatPositions } from "../convert/nat-positions.js";
import { chunkRowsOf } from "./chunk-box.js";
import type { ChunkSource } from "./chunk-source.js";
import type { ChunkValues, NumericValues } from "./chunk-values.js";
import type { BufferPool } from "../memory/buffer-pool.js";

export interface KeptChunks<V extends ChunkValues> extends ChunkSource<V> {
	/**
	 * Keeps no chunk read from now on: the reads that read them again are the next ones. With `rows` (along the first
	 * axis), those reads read each chunk of those rows once: a chunk kept is served once more, if it holds any of
	 * them, and forgotten; those that hold none are forgotten now, as is what the source kept (ChunkSource.lastReads).
	 * Without, those kept are still served.
	 */
	stopKeeping(rows?: { readonly start: number; readonly end: number }): void;
	/** Bytes of the chunks kept, as counted against the bound. */
	readonly keptBytes: number;
}

/**
 * Bytes a kept chunk costs beside its values: its typed array and buffer, its key, its entry in the map. Counted so
 * that chunks of one value each are bounded too: a time column of 10^6 one-value inner chunks, read whole to check it
 * sorted, was kept whole within 8 MiB of values and held 500 MB (trial 28, finding 05).
 */
export const KEPT_CHUNK_OVERHEAD_BYTES = 256;

/** Bytes a chunk's values hold in memory, near enough for a bound (strings: their UTF-16 code units and a slot each). */
function bytesOf(values: ChunkValues): number {
	if (!Array.isArray(values)) return KEPT_CHUNK_OVERHEAD_BYTES + values.byteLength;
	let bytes = KEPT_CHUNK_OVERHEAD_BYTES + 8 * values.length;
	for (const text of values) bytes += 2 * (text?.length ?? 0);
	return bytes;
}

/**
 * A copy of `values`: into a buffer of `pool` when one is given (its holder hands it back as a chunk read into the
 * pool: the export's writer once written, the range search once done with it), else into new memory.
 */
function copyOf<V extends ChunkValues>(values: V, pool?: BufferPool): V {
	if (Array.isArray(values)) return values.slice() as V;
	const numeric = values as NumericValues;
	let copy: NumericValues;
	if (pool === undefined || numeric.byteLength === 0) copy = numeric.slice();
	else {
		const bytes = pool.acquire(numeric.byteLength);
		copy = new (numeric.constructor as new (buffer: ArrayBufferLike, byteOffset: number, length: number) => NumericValues)(bytes.buffer, bytes.byteOffset, numeric.length);
		copy.set(numeric as never);
	}
	// What the decoder found of its NaT stays true of the same values elsewhere (see nat-positions.ts).
	const positions = natPositionsOf(values as NumericValues);
	if (positions !== undefined) recordNatPositions(copy, positions);
	return copy as V;
}

/**
 * `source`, keeping a copy of each chunk read (those `keeps` takes, while they fit in `maxBytes` together) and serving
 * later reads of it from memory. A chunk that would pass the bound is not kept: nothing kept is dropped while
 * keeping, so the memory held is at most `maxBytes` for as long as the source is. With `pool` (the one the source
 * reads into), the copies are its buffers: a copy served is handed back by its reader as any chunk read into the pool,
 * a copy forgotten unread goes back at once (a time range's chunks of a column read whole to check it sorted: they
 * were never handed back, 13 of the 16 buffers of a small range export of zstd chunks).
 */
export function keepingChunks<V extends ChunkValues>(source: ChunkSource<V>, maxBytes: number, keeps: (coords: readonly number[]) => boolean = () => true, pool?: BufferPool): KeptChunks<V> {
	const kept = new Map<string, { readonly values: V; readonly coords: readonly number[]; readonly size: number; last: boolean }>();
	let bytes = 0;
	let keeping = true;
	/** Forgets a kept chunk; `unread`: no read takes its values, which go back to the pool. */
	const forget = (key: string, unread = true) => {
		const chunk = kept.get(key);
		if (chunk === undefined) return;
		bytes -= chunk.size;
		kept.delete(key);
		if (unread && pool !== undefined && !Array.isArray(chunk.values)) {
			const values = chunk.values as NumericValues;
			pool.release(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
		}
	};
	const forgetAll = () => {
		for (const key of [...kept.keys()]) forget(key);
	};
	const shards = source.shardBands;
	return {
		chunkShape: source.chunkShape,
		gridShape: source.gridShape,
		...(source.chunksPerRequest === undefined ? {} : { chunksPerRequest: source.chunksPerRequest }),
		// A shard read as one chunk is read from the store (its inner chunks the search kept are kept by the shard
		// index): none of the chunks kept here serves it, nor a later read of this array, read by shards from then on.
		...(shards === undefined
			? {}
			: {
					shardBands: {
						...shards,
						open: (...args: Parameters<typeof shards.open>) => {
							forgetAll();
							return shards.open(...args);
						},
						read: (...args: Parameters<typeof shards.read>) => {
							forgetAll();
							return shards.read(...args);
						},
					},
				}),
		describe: (coords) => source.describe(coords),
		...(source.lastReads === undefined ? {} : { lastReads: (chunkRows: { readonly start: number; readonly end: number }) => source.lastReads!(chunkRows) }),
		async read(coords, signal, within) {
			const key = coords.join(",");
			const held = kept.get(key);
			if (held !== undefined) {
				if (!held.last) return copyOf(held.values, pool);
				// Its last read: the values themselves.
				forget(key, false);
				return held.values;
			}
			const values = await source.read(coords, signal, within);
			if (keeping && keeps(coords) && !kept.has(key)) {
				const size = bytesOf(values);
				if (bytes + size <= maxBytes) {
					kept.set(key, { values: copyOf(values, pool), coords: [...coords], size, last: false });
					bytes += size;
				}
			}
			return values;
		},
		stopKeeping(rows) {
			keeping = false;
			if (rows === undefined) return;
			const chunkRows = chunkRowsOf(source.chunkShape[0], rows);
			for (const [key, chunk] of [...kept]) {
				if (chunk.coords[0] >= chunkRows.start && chunk.coords[0] < chunkRows.end) chunk.last = true;
				else forget(key);
			}
			source.lastReads?.(chunkRows);
		},
		get keptBytes() {
			return bytes;
		},
	};
}
