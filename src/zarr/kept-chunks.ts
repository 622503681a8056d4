/**
 * Decoded chunks of one array kept in memory, within a byte bound, for a second read of the same chunk by the same
 * operation: the range search reads a short time coordinate whole (each chunk a request over an object store), then
 * the export reads the range's chunks of it for the index column; inspect reads a float CF time array for its unit,
 * then its first and last chunks for its first and last values. Each read of a kept chunk gets a copy of it: a
 * reader may convert values where they are, or hand a chunk's buffer back to a pool, and what is kept stays as read.
 */
import { natPositionsOf, recordNatPositions } from "../convert/nat-positions.js";
import type { ChunkSource } from "./chunk-source.js";
import type { ChunkValues, NumericValues } from "./chunk-values.js";

export interface KeptChunks<V extends ChunkValues> extends ChunkSource<V> {
	/** Keeps no chunk read from now on (those kept are still served): the reads that read them again are the next ones. */
	stopKeeping(): void;
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

function copyOf<V extends ChunkValues>(values: V): V {
	if (Array.isArray(values)) return values.slice() as V;
	const copy = (values as NumericValues).slice();
	// What the decoder found of its NaT stays true of the same values elsewhere (see nat-positions.ts).
	const positions = natPositionsOf(values as NumericValues);
	if (positions !== undefined) recordNatPositions(copy, positions);
	return copy as V;
}

/**
 * `source`, keeping a copy of each chunk read (those `keeps` takes, while they fit in `maxBytes` together) and serving
 * later reads of it from memory. A chunk that would pass the bound is not kept: nothing kept is ever dropped, so the
 * memory held is at most `maxBytes` for as long as the source is.
 */
export function keepingChunks<V extends ChunkValues>(source: ChunkSource<V>, maxBytes: number, keeps: (coords: readonly number[]) => boolean = () => true): KeptChunks<V> {
	const kept = new Map<string, V>();
	let bytes = 0;
	let keeping = true;
	return {
		chunkShape: source.chunkShape,
		gridShape: source.gridShape,
		...(source.chunksPerRequest === undefined ? {} : { chunksPerRequest: source.chunksPerRequest }),
		// A shard read as one chunk is read from the store (its inner chunks the search kept are kept by the shard index).
		...(source.shardBands === undefined ? {} : { shardBands: source.shardBands }),
		describe: (coords) => source.describe(coords),
		async read(coords, signal, within) {
			const key = coords.join(",");
			const held = kept.get(key);
			if (held !== undefined) return copyOf(held);
			const values = await source.read(coords, signal, within);
			if (keeping && keeps(coords) && !kept.has(key)) {
				const size = bytesOf(values);
				if (bytes + size <= maxBytes) {
					kept.set(key, copyOf(values));
					bytes += size;
				}
			}
			return values;
		},
		stopKeeping() {
			keeping = false;
		},
	};
}
