/**
 * The chunks of one array in the order an export needs them: in C order of the chunk grid with a bounded number in
 * flight (readChunksInOrder), or assembled into bands of rows in C order of the array (readBands). TableReader
 * reads each column through these.
 */
import { Dt64ExportError } from "../errors.js";
import { MAX_CHUNK_VALUES, type ChunkSource } from "../zarr/chunk-source.js";
import { allocateLike, sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { cOrderCoordinates, copyChunkIntoBand, product } from "../zarr/grid.js";
import type { RowRange } from "../select/time-search.js";

/** A run of consecutive values of the array in C order: rows [firstRow, firstRow + rows) along axis 0. */
export interface ValueBand<V extends ChunkValues = BigInt64Array> {
	/** Values (int64 counts for datetime64) in C order of the logical array (numpy `ravel()`). */
	readonly values: V;
	/** Flat C-order index of the first value. */
	readonly offset: number;
	readonly firstRow: number;
}

/** Refuses, before any read, an array whose row of chunks is too large to assemble as one band. */
export function checkBandSize(source: ChunkSource<ChunkValues>, shape: readonly number[]): void {
	const bandValues = shape.length > 1 ? Math.min(source.chunkShape[0], shape[0]) * product(shape.slice(1)) : 0;
	if (bandValues > MAX_CHUNK_VALUES) {
		throw new Dt64ExportError(
			"BAND_TOO_LARGE",
			`array shape ${JSON.stringify(shape)} in chunks of ${JSON.stringify(source.chunkShape)}: one row of chunks holds ${bandValues} values, too large to assemble (at most ${MAX_CHUNK_VALUES}, 1 GiB of int64)`,
			{ value: bandValues },
		);
	}
}

/** The chunks along the first axis that hold rows of `rows`. */
export function chunkRowsOf(chunkRows: number, rows: RowRange): { start: number; end: number } {
	if (rows.end <= rows.start) return { start: 0, end: 0 };
	return { start: Math.floor(rows.start / chunkRows), end: Math.ceil(rows.end / chunkRows) };
}

/** How many chunks of a source hold rows of `rows`. */
export function chunksOfRows(source: ChunkSource<ChunkValues>, rows: RowRange): number {
	const { start, end } = chunkRowsOf(source.chunkShape[0], rows);
	return (end - start) * product(source.gridShape.slice(1));
}

/** C-order coordinates of the grid, limited to chunks [start, end) along the first axis. */
function* coordinatesWithin(grid: readonly number[], chunks?: { start: number; end: number }): Generator<number[]> {
	if (chunks === undefined) {
		yield* cOrderCoordinates(grid);
		return;
	}
	for (const coords of cOrderCoordinates([chunks.end - chunks.start, ...grid.slice(1)])) {
		coords[0] += chunks.start;
		yield coords;
	}
}

/**
 * The chunks of a source in C order of its grid (only those along the first axis in `chunks`, when given), `concurrency` of them fetched and decoded at once; each is
 * yielded in its turn, whichever finishes first. Reads past the chunk the consumer waits for are read-ahead:
 * `mayReadAhead` can hold them back; the chunk waited for is always read, so the export goes on.
 */
export async function* readChunksInOrder<V extends ChunkValues>(
	source: ChunkSource<V>,
	concurrency: number,
	signal: AbortSignal,
	mayReadAhead: () => boolean = () => true,
	chunks?: { start: number; end: number },
): AsyncGenerator<{ coords: number[]; data: V }> {
	const coordinates = coordinatesWithin(source.gridShape, chunks);
	const inFlight: { coords: number[]; data: Promise<V> }[] = [];
	const launch = (): boolean => {
		const next = coordinates.next();
		if (next.done) return false;
		const data = source.read(next.value, signal);
		// Rejections are observed when the chunk's turn comes; this keeps an early one from being unhandled.
		data.catch(() => undefined);
		inFlight.push({ coords: next.value, data });
		return true;
	};
	const readAhead = () => {
		while (inFlight.length < concurrency && mayReadAhead() && launch());
	};
	if (launch()) readAhead();
	while (inFlight.length > 0) {
		const { coords, data } = inFlight.shift()!;
		const decoded = await data;
		// Its slot is free only now: launching before the await would put concurrency + 1 chunks in flight.
		readAhead();
		yield { coords, data: decoded };
		// The consumer asks for the next chunk: it is read, held back or not.
		if (inFlight.length === 0) launch();
	}
}

/**
 * Bands of rows in C order of an array: a 1-D chunk is a band by itself (no copy); for N-d arrays one row of
 * chunks along the first axis is assembled at a time. With `rows`, only the chunks holding those rows are read,
 * and the first and last bands are cut to them.
 */
export async function* readBands<V extends ChunkValues>(
	source: ChunkSource<V>,
	shape: readonly number[],
	concurrency: number,
	signal: AbortSignal,
	onChunk?: (chunkIndex: number, totalChunks: number) => void,
	mayReadAhead?: () => boolean,
	rows?: RowRange,
): AsyncGenerator<ValueBand<V>> {
	if (shape.length === 0) {
		const chunk = await source.read([], signal);
		yield { values: sliceValues(chunk, 0, 1), offset: 0, firstRow: 0 };
		return;
	}
	const grid = source.gridShape;
	const chunkRows = source.chunkShape[0];
	const bandRange = rows === undefined ? { start: 0, end: grid[0] } : chunkRowsOf(chunkRows, rows);
	const total = (bandRange.end - bandRange.start) * product(grid.slice(1));
	if (total === 0 || product(shape) === 0) return;
	const chunks = readChunksInOrder(source, concurrency, signal, mayReadAhead, bandRange);
	const rowSize = product(shape.slice(1));
	const chunksPerBand = product(grid.slice(1));
	let decoded = 0;
	for (let bandIndex = bandRange.start; bandIndex < bandRange.end; bandIndex++) {
		const firstRow = bandIndex * chunkRows;
		const bandRows = Math.min(chunkRows, shape[0] - firstRow);
		const bandShape = [bandRows, ...shape.slice(1)];
		let band: V | undefined;
		for (let k = 0; k < chunksPerBand; k++) {
			const { coords, data: chunk } = (await chunks.next()).value as { coords: number[]; data: V };
			onChunk?.(++decoded, total);
			if (shape.length === 1) {
				band = sliceValues(chunk, 0, bandRows);
				continue;
			}
			band ??= allocateLike(chunk, bandRows * rowSize);
			copyChunkIntoBand(chunk, source.chunkShape, coords, band, bandShape, shape);
		}
		const from = rows === undefined ? firstRow : Math.max(firstRow, rows.start);
		const to = rows === undefined ? firstRow + bandRows : Math.min(firstRow + bandRows, rows.end);
		yield { values: sliceValues(band!, (from - firstRow) * rowSize, (to - firstRow) * rowSize), offset: from * rowSize, firstRow: from };
	}
}
