/**
 * The bands of a column in chunk order whose chunks are streamed (zarr/streamed-chunks.ts says which): each chunk is
 * decoded a band at a time (codecs/wasm/streamed-row.ts, a row of that one chunk), one band asked for ahead of the
 * one handed on, across chunks too, so that the decoder fills the next while the export converts and writes this
 * one. A chunk that is not streamed (its box cut at its start by a time range, missing, not one zstd frame of the
 * chunk's size) is read whole when its first band is asked for, and cut into its bands, as every chunk was before.
 */
import type { BufferPool } from "../memory/buffer-pool.js";
import type { ChunkSource } from "../zarr/chunk-source.js";
import { sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { streamZstdRow } from "../zarr/codecs/off-thread.js";
import { clipChunk, product } from "../zarr/grid.js";
import { streamedChunkError } from "./streamed-bands.js";

/**
 * A box of chunk order: the chunk at `coords`, of `chunkExtent` inside the array from `chunkOrigin`, and its rows
 * [from, to) along the first axis that the export wants, cut into bands of `step` rows.
 */
export interface ChunkOrderBox {
	readonly coords: readonly number[];
	readonly chunkOrigin: readonly number[];
	readonly chunkExtent: readonly number[];
	readonly from: number;
	readonly to: number;
	readonly step: number;
}

/** The row ranges [start, end) of a box's bands. */
export function* bandRowsOf(box: ChunkOrderBox): Generator<{ start: number; end: number }> {
	for (let start = box.from; start < box.to; start += box.step) yield { start, end: Math.min(box.to, start + box.step) };
}

/**
 * A chunk read whole and clipped to the array: its values in C order of its box. An edge chunk clipped into other
 * memory hands its own buffer back to `bufferPool`: it is dead, and back for the next chunks.
 */
export function clippedChunk<V extends ChunkValues>(data: V, source: ChunkSource<V>, coords: readonly number[], shape: readonly number[], bufferPool?: BufferPool): V {
	const clipped = clipChunk(data, source.chunkShape, coords, shape).values;
	if (clipped !== data && bufferPool !== undefined && !Array.isArray(data)) bufferPool.release(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
	return clipped;
}

/**
 * The values of each band of `boxes` in turn (bandRowsOf), of a column over every axis of the table (of `shape`)
 * whose source streams chunks (ChunkSource.streamedChunk). `onChunk` counts a chunk once read whole, or once its
 * last band is decoded.
 */
export async function* streamedChunkBands<V extends ChunkValues>(
	source: ChunkSource<V>,
	shape: readonly number[],
	boxes: Iterable<ChunkOrderBox>,
	bufferPool: BufferPool,
	signal: AbortSignal,
	onChunk?: () => void,
): AsyncGenerator<V> {
	// Each band's values, asked for when the generator is advanced to it; the chunk being streamed closes once the
	// answer of its last band has come, when the generator is advanced past it.
	function* asked(): Generator<Promise<V>> {
		for (const box of boxes) {
			const rest = product(box.chunkExtent.slice(1));
			const whole = box.from === box.chunkOrigin[0];
			const files = whole ? source.streamedChunk!(box.coords, signal) : undefined;
			if (files === undefined) {
				const chunk = source.read(box.coords, signal).then((data) => {
					onChunk?.();
					return clippedChunk(data, source, box.coords, shape, bufferPool);
				});
				for (const { start, end } of bandRowsOf(box)) {
					const values = chunk.then((clipped) => sliceValues(clipped, (start - box.chunkOrigin[0]) * rest, (end - box.chunkOrigin[0]) * rest));
					values.catch(() => undefined);
					yield values;
				}
				continue;
			}
			const row = streamZstdRow(files.spec, bufferPool, files.here);
			try {
				for (const { start, end } of bandRowsOf(box)) {
					const last = end === box.to;
					const band = bufferPool.acquire((end - start) * rest * 8);
					const values = (row.band(band, end - start, last) as Promise<unknown> as Promise<V>).then(
						(decoded) => {
							if (last) onChunk?.();
							return decoded;
						},
						(error: unknown) => {
							throw streamedChunkError(error, signal, files.path);
						},
					);
					values.catch(() => undefined);
					yield values;
				}
			} finally {
				row.close();
				files.close();
			}
		}
	}
	const bands = asked();
	// The band asked for ahead: its answer is awaited before the chunk's file closes, whatever ends the column.
	let next: Promise<V> | undefined;
	try {
		let first = bands.next();
		next = first.done ? undefined : first.value;
		while (next !== undefined) {
			let values: V;
			try {
				values = await next;
			} finally {
				next = undefined;
			}
			if (signal.aborted) return;
			first = bands.next();
			if (!first.done) next = first.value;
			yield values;
		}
	} finally {
		// Left with a band asked for ahead (aborted, or the consumer gone): the file closes once its answer comes, as
		// the decoder may be reading it until then (a descriptor closed early could be another file's by then).
		const end = () => void bands.return(undefined);
		if (next === undefined) end();
		else void next.then(end, end);
	}
}
