import { GeneratorReadable } from "./generator-readable.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { RowRegion } from "../table/row-index.js";
import type { ChunkSource } from "../zarr/chunk-source.js";
import { sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { clipChunk, cOrderCoordinates, product } from "../zarr/grid.js";
import type { RowRange } from "../select/time-search.js";
import { checkBandSize, chunkRowsOf, chunksOfRows, readBands, readChunksInOrder, type ValueBand } from "./chunk-bands.js";

/** `c`: numpy `ravel()` order; `chunk`: chunk by chunk (C order inside each chunk, chunks in C order of the grid). */
export type RowOrder = "c" | "chunk";
export const ROW_ORDERS: readonly RowOrder[] = ["c", "chunk"];

/** The same rows of every column: `columns[k]` holds the values of column k for the rows of `region`. */
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
}

/**
 * Reads several arrays of one shape side by side and emits bands holding the same rows of each. Each array is
 * read through its own chunk source, with its own chunking, codecs and sharding. In C order each column keeps one
 * band (a row of its chunks) and its chunks in flight; the bands are cut at the row ranges they share. In chunk
 * order every column must have the same chunk shape, and nothing but the chunks in flight is held.
 */
export class TableReader extends GeneratorReadable<TableBand> {
	readonly totalChunks: number;
	readonly totalRows: number;
	#holdReadAhead: () => boolean = () => false;

	constructor(sources: readonly ChunkSource<ChunkValues>[], shape: readonly number[], options: TableReaderOptions = {}) {
		super();
		if (sources.length === 0) throw new Dt64ExportError("INTERNAL", "a table needs at least one column");
		const rows = options.rows;
		this.totalChunks = sources.reduce((sum, source) => sum + (rows === undefined ? product(source.gridShape) : chunksOfRows(source, rows)), 0);
		this.totalRows = rows === undefined ? product(shape) : (rows.end - rows.start) * product(shape.slice(1));
		const concurrency = Math.max(1, options.concurrency ?? 4);
		let decoded = 0;
		const onChunk = options.onChunk === undefined ? undefined : () => options.onChunk!(++decoded, this.totalChunks);
		const mayReadAhead = () => !this.#holdReadAhead();
		if ((options.order ?? "c") === "chunk") {
			const chunkShape = sources[0].chunkShape;
			if (sources.some((source) => source.chunkShape.join() !== chunkShape.join())) {
				const shapes = sources.map((source) => JSON.stringify(source.chunkShape)).join(", ");
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `order chunk needs every column read in the same chunk shape, got ${shapes}`, { option: "order", value: "chunk" });
			}
			this.pullFrom(chunkOrderBands(sources, shape, concurrency, this.signal, mayReadAhead, onChunk, rows));
		} else {
			for (const source of sources) checkBandSize(source, shape);
			this.pullFrom(cOrderBands(sources, shape, concurrency, this.signal, mayReadAhead, onChunk, rows));
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

async function* cOrderBands(
	sources: readonly ChunkSource<ChunkValues>[],
	shape: readonly number[],
	concurrency: number,
	signal: AbortSignal,
	mayReadAhead: () => boolean,
	onChunk?: () => void,
	rows?: RowRange,
): AsyncGenerator<TableBand> {
	const streams = sources.map((source) => readBands(source, shape, concurrency, signal, onChunk, mayReadAhead, rows));
	const current: (ValueBand<ChunkValues> | undefined)[] = sources.map(() => undefined);
	const rowSize = product(shape.slice(1));
	const total = rows === undefined ? product(shape) : rows.end * rowSize;
	for (let position = rows === undefined ? 0 : rows.start * rowSize; position < total; ) {
		for (let k = 0; k < streams.length; k++) {
			while (current[k] === undefined || current[k]!.offset + current[k]!.values.length <= position) {
				const next = await streams[k].next();
				if (next.done) throw new Dt64ExportError("INTERNAL", `column ${k} ended at row ${position} of ${total}`);
				current[k] = next.value;
			}
		}
		const end = Math.min(...current.map((band) => band!.offset + band!.values.length));
		const columns = current.map((band) => sliceValues(band!.values, position - band!.offset, end - band!.offset));
		yield { columns, length: end - position, region: { kind: "flat", offset: position } };
		position = end;
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
		if (rows !== undefined) {
			// The box keeps only the rows in range: whole rows of it along the first axis, contiguous in C order.
			const from = Math.max(origin[0], rows.start);
			const to = Math.min(origin[0] + extent[0], rows.end);
			const rest = product(extent.slice(1));
			for (let k = 0; k < columns.length; k++) columns[k] = sliceValues(columns[k], (from - origin[0]) * rest, (to - origin[0]) * rest);
			origin[0] = from;
			extent = [to - from, ...extent.slice(1)];
		}
		yield { columns, length: product(extent), region: { kind: "box", origin, extent } };
	}
}
