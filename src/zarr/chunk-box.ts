/**
 * The chunks one pass of reads covers, told to the chunk source with each read: a sharded array reads at once only
 * the inner chunks of a shard that the pass needs (all of them for a whole read, one for a probe of the range
 * search), where the inner chunk asked for alone could not say whether its neighbours follow.
 */
import type { ChunkSource } from "./chunk-source.js";
import type { ChunkValues } from "./chunk-values.js";

/** Chunks [start[axis], end[axis]) of the chunk grid along each axis. */
export interface ChunkBox {
	readonly start: readonly number[];
	readonly end: readonly number[];
}

/** The chunks along the first axis in `chunks`, and all of them along the others. */
export function chunkRowsBox(gridShape: readonly number[], chunks: { readonly start: number; readonly end: number }): ChunkBox {
	return { start: gridShape.map((_, axis) => (axis === 0 ? chunks.start : 0)), end: gridShape.map((n, axis) => (axis === 0 ? chunks.end : n)) };
}

/**
 * `source` read as part of a pass over `box`, whatever box its reader tells: for a reader that asks for one chunk
 * row at a time (the range search's blocks) within a run of them it reads one after another.
 */
export function readingWithin<V extends ChunkValues>(source: ChunkSource<V>, box: ChunkBox): ChunkSource<V> {
	return {
		chunkShape: source.chunkShape,
		gridShape: source.gridShape,
		...(source.chunksPerRequest === undefined ? {} : { chunksPerRequest: source.chunksPerRequest }),
		read: (coords, signal) => source.read(coords, signal, box),
		describe: (coords) => source.describe(coords),
	};
}

/** The chunks along the first axis (of `chunkRows` rows each) that hold rows of `rows` ([start, end) along it). */
export function chunkRowsOf(chunkRows: number, rows: { readonly start: number; readonly end: number }): { start: number; end: number } {
	if (rows.end <= rows.start) return { start: 0, end: 0 };
	return { start: Math.floor(rows.start / chunkRows), end: Math.ceil(rows.end / chunkRows) };
}
