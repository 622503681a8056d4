/**
 * The bands of an array whose rows of chunks are streamed (zarr/streamed-rows.ts says which): each row's chunks are
 * decoded together a band at a time (codecs/wasm/streamed-row.ts), one band asked for ahead of the one handed on, so
 * that the decoder fills the next while the export converts and writes this one. A row that is not streamed (cut by
 * a time range, a chunk missing or not one zstd frame of the chunk's size) is read chunk by chunk by `readWhole`,
 * as every row was before.
 */
import { abortError } from "../abort.js";
import { withErrorFields } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { RowRange } from "../select/time-search.js";
import { CHUNK_ERRORS, type ChunkSource } from "../zarr/chunk-source.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import { streamZstdRow, type StreamingRow } from "../zarr/codecs/off-thread.js";
import { product } from "../zarr/grid.js";
import type { ValueBand } from "./chunk-bands.js";

/**
 * What a streamed band's failure is reported as: the abort, if the export was aborted; else the error, a streamed
 * chunk's given its array's `path` as a chunk read whole gets it.
 */
export function streamedChunkError(error: unknown, signal: AbortSignal, path: string): unknown {
	if (signal.aborted) return abortError(signal);
	return withErrorFields(error, CHUNK_ERRORS, { path }, "fill");
}

/**
 * Bands of at most `step` rows of the rows of chunks [chunkRows.start, chunkRows.end) of `source` (cut to `rows`),
 * each row streamed where the source opens it so, read by `readWhole` (over the array rows of that row of chunks)
 * otherwise. `onChunk` counts a streamed row's chunks once its last band is decoded.
 */
export async function* streamedBands<V extends ChunkValues>(
	source: ChunkSource<V>,
	shape: readonly number[],
	step: number,
	chunkRows: { start: number; end: number },
	rows: RowRange | undefined,
	bufferPool: BufferPool,
	signal: AbortSignal,
	onChunk: ((chunkIndex: number, totalChunks: number) => void) | undefined,
	readWhole: (rows: RowRange, onChunk: (chunkIndex: number) => void) => AsyncGenerator<ValueBand<V>>,
): AsyncGenerator<ValueBand<V>> {
	const rowsPerChunk = source.chunkShape[0];
	const rowSize = product(shape.slice(1));
	const chunksPerRow = product(source.gridShape.slice(1));
	const total = (chunkRows.end - chunkRows.start) * chunksPerRow;
	let counted = 0;
	for (let chunkRow = chunkRows.start; chunkRow < chunkRows.end; chunkRow++) {
		if (signal.aborted) return;
		const firstRow = chunkRow * rowsPerChunk;
		const rowsHere = Math.min(rowsPerChunk, shape[0] - firstRow);
		const from = rows === undefined ? firstRow : Math.max(firstRow, rows.start);
		const to = rows === undefined ? firstRow + rowsHere : Math.min(firstRow + rowsHere, rows.end);
		const files = from === firstRow && to === firstRow + rowsHere ? source.streamedRow!(chunkRow, signal) : undefined;
		if (files === undefined) {
			const before = counted;
			yield* readWhole({ start: from, end: to }, (index) => onChunk?.(before + index, total));
			counted += chunksPerRow;
			continue;
		}
		let row: StreamingRow | undefined;
		// The band asked for ahead: its answer is awaited before the files close, whatever ends the row.
		let next: Promise<V> | undefined;
		try {
			row = streamZstdRow(files.spec, bufferPool, files.here);
			const ask = (start: number): Promise<V> => {
				const end = Math.min(to, start + step);
				const band = bufferPool.acquire((end - start) * rowSize * 8);
				const values = row!.band(band, end - start, end === to) as Promise<unknown> as Promise<V>;
				values.catch(() => undefined);
				return values;
			};
			next = ask(from);
			for (let start = from; start < to; start += step) {
				const end = Math.min(to, start + step);
				let values: V;
				try {
					values = await next!;
				} catch (error) {
					throw streamedChunkError(error, signal, files.path);
				} finally {
					next = undefined;
				}
				if (signal.aborted) return;
				if (end < to) next = ask(end);
				else for (let k = 0; k < chunksPerRow; k++) onChunk?.(++counted, total);
				yield { values, offset: start * rowSize, firstRow: start };
			}
		} finally {
			// Left with a band asked for ahead (aborted, or the consumer gone): the files close once its answer comes,
			// as the decoder may be reading them until then (a descriptor closed early could be another file's by then).
			const end = () => {
				row?.close();
				files.close();
			};
			if (next === undefined) end();
			else void next.then(end, end);
		}
	}
}
