import { GeneratorReadable } from "./generator-readable.js";
import { Dt64ExportError } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { RowRegion } from "../table/row-index.js";
import { MAX_CHUNK_VALUES, type ChunkSource } from "../zarr/chunk-source.js";
import { allocateLike, copyValues, sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { clipChunk, cOrderCoordinates, product } from "../zarr/grid.js";
import type { RowRange } from "../select/time-search.js";
import { checkBandSize, chunkRowsOf, chunksOfRows, readBands, readChunksInOrder, type ValueBand } from "./chunk-bands.js";

/** `c`: numpy `ravel()` order; `chunk`: chunk by chunk (C order inside each chunk, chunks in C order of the grid). */
export type RowOrder = "c" | "chunk";
export const ROW_ORDERS: readonly RowOrder[] = ["c", "chunk"];

/**
 * The same rows of every column: `columns[k]` holds the values of column k for the rows of `region`, over the
 * column's own axes (the batcher repeats them along the others); a column read whole is the same array in every band.
 */
export interface TableBand {
	readonly columns: readonly ChunkValues[];
	readonly length: number;
	readonly region: RowRegion;
}

export interface TableReaderOptions {
	order?: RowOrder;
	/** Chunks fetched and decoded at once per column; order is preserved whatever finishes first. */
	concurrency?: number;
	/** Called after each chunk of any column is decoded, for progress. */
	onChunk?: (chunkIndex: number, totalChunks: number) => void;
	/** Only these rows along the first axis (a time range, a part): chunks outside them are never read. */
	rows?: RowRange;
	/**
	 * N-d bands are assembled in its buffers, and chunks copied into them go back to it (see readBands): only for
	 * exports whose output hands written buffers back to the same pool.
	 */
	bufferPool?: BufferPool;
}

/**
 * A column read over some of the table's axes: `axes[k]` is the table axis of the source's axis k (increasing).
 * A bare ChunkSource is a column over every axis of the table.
 */
export interface BroadcastSource {
	readonly source: ChunkSource<ChunkValues>;
	readonly shape: readonly number[];
	readonly axes: readonly number[];
}

/**
 * Values of one band at most when it is cut (an N-d table, or columns repeated over it): a quarter million rows,
 * 2 MiB per int64 column. Batches in the pipeline (a few, between its stages) hold this much of each column,
 * index columns included: a million rows measured 55 MiB more peak RSS on a 3-D zstd store with `--index`.
 */
export const BAND_VALUES = 1 << 18;

const asBroadcastSource = (column: ChunkSource<ChunkValues> | BroadcastSource, shape: readonly number[]): BroadcastSource =>
	"source" in column ? column : { source: column, shape, axes: shape.map((_, axis) => axis) };

const spansTable = (column: BroadcastSource, shape: readonly number[]) => column.axes.length === shape.length && column.shape.join() === shape.join();

/**
 * Reads several arrays of one table side by side and emits bands holding the same rows of each. Each array is
 * read through its own chunk source, with its own chunking, codecs and sharding. In C order a band is a range of
 * rows along the table's first axis: a column over that axis gives its values for those rows (it keeps one band,
 * a row of its chunks, and its chunks in flight; the bands are cut at the rows they share); a column without it
 * (a static field, a coordinate of another axis) is read once, whole, and given with every band: it holds no more
 * values than one row of the table along the first axis. The batcher broadcasts each column over the band. In
 * chunk order every column must span the table in the same chunk shape, and nothing but the chunks in flight is
 * held.
 */
export class TableReader extends GeneratorReadable<TableBand> {
	readonly totalChunks: number;
	readonly totalRows: number;
	#holdReadAhead: () => boolean = () => false;

	constructor(columns: readonly (ChunkSource<ChunkValues> | BroadcastSource)[], shape: readonly number[], options: TableReaderOptions = {}) {
		super();
		if (columns.length === 0) throw new Dt64ExportError("INTERNAL", "a table needs at least one column");
		const broadcast = columns.map((column) => asBroadcastSource(column, shape));
		const sources = broadcast.map((column) => column.source);
		const rows = options.rows;
		// A column without the first axis is read whole, whatever the rows.
		const chunksOf = (column: BroadcastSource) => (rows === undefined || column.axes[0] !== 0 ? product(column.source.gridShape) : chunksOfRows(column.source, rows));
		this.totalChunks = broadcast.reduce((sum, column) => sum + chunksOf(column), 0);
		this.totalRows = rows === undefined ? product(shape) : (rows.end - rows.start) * product(shape.slice(1));
		const concurrency = Math.max(1, options.concurrency ?? 4);
		let decoded = 0;
		const onChunk = options.onChunk === undefined ? undefined : () => options.onChunk!(++decoded, this.totalChunks);
		const mayReadAhead = () => !this.#holdReadAhead();
		if ((options.order ?? "c") === "chunk") {
			if (broadcast.some((column) => !spansTable(column, shape))) {
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", "order chunk needs every column over all of the table's dimensions (no broadcast variable, no coordinate index)", { option: "order", value: "chunk" });
			}
			const chunkShape = sources[0].chunkShape;
			if (sources.some((source) => source.chunkShape.join() !== chunkShape.join())) {
				const shapes = sources.map((source) => JSON.stringify(source.chunkShape)).join(", ");
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `order chunk needs every column read in the same chunk shape, got ${shapes}`, { option: "order", value: "chunk" });
			}
			this.pullFrom(chunkOrderBands(sources, shape, concurrency, this.signal, mayReadAhead, onChunk, rows));
		} else {
			const rowValues = product(shape.slice(1));
			for (const column of broadcast) {
				if (column.axes[0] === 0) checkBandSize(column.source, column.shape);
				else if (shape.length > 0 && rowValues > MAX_CHUNK_VALUES) {
					throw new Dt64ExportError("TOO_LARGE", `table shape ${JSON.stringify(shape)}: one row along its first dimension holds ${rowValues} values, too many to repeat a column along it (at most ${MAX_CHUNK_VALUES})`);
				}
			}
			this.pullFrom(cOrderBands(broadcast, shape, concurrency, this.signal, mayReadAhead, onChunk, rows, options.bufferPool));
		}
	}

	/**
	 * Reads no further ahead than the chunks waited for while `condition()` holds: chunks read ahead are held in
	 * memory until the stages after them take them, so while those lag (the output is slower than the reads),
	 * reading ahead only holds more (see readChunksInOrder).
	 */
	holdReadAheadWhile(condition: () => boolean): void {
		this.#holdReadAhead = condition;
	}
}

/** Every value of a column, in C order: a column without the table's first axis, read once. */
async function readWhole(column: BroadcastSource, concurrency: number, signal: AbortSignal, onChunk?: () => void): Promise<ChunkValues> {
	let whole: ChunkValues | undefined;
	for await (const band of readBands(column.source, column.shape, concurrency, signal, onChunk)) {
		if (band.offset === 0 && band.values.length === product(column.shape)) return band.values;
		whole ??= allocateLike(band.values, product(column.shape));
		copyValues(band.values, 0, band.values.length, whole, band.offset);
	}
	// An empty column: no band at all.
	return whole ?? [];
}

async function* cOrderBands(
	columns: readonly BroadcastSource[],
	shape: readonly number[],
	concurrency: number,
	signal: AbortSignal,
	mayReadAhead: () => boolean,
	onChunk?: () => void,
	rows?: RowRange,
	bufferPool?: BufferPool,
): AsyncGenerator<TableBand> {
	if (product(shape) === 0) return;
	const held = await Promise.all(columns.map((column) => (column.axes[0] === 0 ? undefined : readWhole(column, concurrency, signal, onChunk))));
	if (shape.length === 0) {
		yield { columns: held as ChunkValues[], length: 1, region: { kind: "box", origin: [], extent: [] } };
		return;
	}
	const rowValues = product(shape.slice(1));
	// A 1-D chunk passes through whole; N-d bands and columns repeated over the band are cut into batches of about
	// BAND_VALUES values: each batch's index columns and repeated values are then that size, not a row of chunks'
	// (tens of megabytes), and a written batch's buffers come back for the next while a row of chunks is copied.
	const capped = shape.length > 1 || columns.some((column) => column.axes.length !== shape.length);
	const maxRows = capped ? Math.max(1, Math.floor(BAND_VALUES / rowValues)) : Number.MAX_SAFE_INTEGER;
	const streams = columns.map((column) => (column.axes[0] === 0 ? readBands(column.source, column.shape, concurrency, signal, onChunk, mayReadAhead, rows, { bufferPool, maxRows }) : undefined));
	const ownRowValues = columns.map((column) => product(column.shape.slice(1)));
	const current: (ValueBand<ChunkValues> | undefined)[] = columns.map(() => undefined);
	const rowsOf = (k: number) => current[k]!.firstRow + current[k]!.values.length / ownRowValues[k];
	const lastRow = rows === undefined ? shape[0] : rows.end;
	for (let row = rows === undefined ? 0 : rows.start; row < lastRow; ) {
		let end = Math.min(lastRow, row + maxRows);
		for (let k = 0; k < columns.length; k++) {
			const stream = streams[k];
			if (stream === undefined) continue;
			while (current[k] === undefined || rowsOf(k) <= row) {
				const next = await stream.next();
				if (next.done) throw new Dt64ExportError("INTERNAL", `column ${k} ended at row ${row} of ${lastRow}`);
				current[k] = next.value;
			}
			end = Math.min(end, rowsOf(k));
		}
		const values = columns.map((_, k) => {
			const band = current[k];
			if (band === undefined) return held[k]!;
			return sliceValues(band.values, (row - band.firstRow) * ownRowValues[k], (end - band.firstRow) * ownRowValues[k]);
		});
		yield { columns: values, length: (end - row) * rowValues, region: { kind: "box", origin: shape.map((_, axis) => (axis === 0 ? row : 0)), extent: [end - row, ...shape.slice(1)] } };
		row = end;
	}
}
async function* chunkOrderBands(
	sources: readonly ChunkSource<ChunkValues>[],
	shape: readonly number[],
	concurrency: number,
	signal: AbortSignal,
	mayReadAhead: () => boolean,
	onChunk?: () => void,
	rows?: RowRange,
): AsyncGenerator<TableBand> {
	const { chunkShape, gridShape } = sources[0];
	if (product(shape) === 0) return;
	const chunkRange = rows === undefined ? { start: 0, end: gridShape[0] } : chunkRowsOf(chunkShape[0], rows);
	const streams = sources.map((source) => readChunksInOrder(source, concurrency, signal, mayReadAhead, chunkRange));
	for (const coords of cOrderCoordinates([chunkRange.end - chunkRange.start, ...gridShape.slice(1)])) {
		coords[0] += chunkRange.start;
		const columns: ChunkValues[] = [];
		let extent: number[] = [];
		for (const stream of streams) {
			const { data } = (await stream.next()).value as { data: ChunkValues };
			onChunk?.();
			const clipped = clipChunk(data, chunkShape, coords, shape);
			columns.push(clipped.values);
			extent = clipped.extent;
		}
		const origin = coords.map((c, axis) => c * chunkShape[axis]);
		// The box's rows in range (all without `rows`), in bands of at most BAND_VALUES values as in C order:
		// whole rows of the box along its first axis, contiguous in C order.
		const from = rows === undefined ? origin[0] : Math.max(origin[0], rows.start);
		const to = rows === undefined ? origin[0] + extent[0] : Math.min(origin[0] + extent[0], rows.end);
		const rest = product(extent.slice(1));
		const step = Math.max(1, Math.floor(BAND_VALUES / rest));
		for (let start = from; start < to; start += step) {
			const end = Math.min(to, start + step);
			const band = columns.map((values) => sliceValues(values, (start - origin[0]) * rest, (end - origin[0]) * rest));
			const bandExtent = [end - start, ...extent.slice(1)];
			yield { columns: band, length: product(bandExtent), region: { kind: "box", origin: [start, ...origin.slice(1)], extent: bandExtent } };
		}
	}
}
