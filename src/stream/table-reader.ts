import { GeneratorReadable } from "./generator-readable.js";
import { bandRowsOf, clippedChunk, streamedChunkBands, type ChunkOrderBox } from "./streamed-chunk-bands.js";
import { checkOptionNamesOf, describeArgument, optionsArgument } from "../call-arguments.js";
import { isOwnSettings, ownSettings } from "../own-settings.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import { broadcastValues } from "../table/broadcast.js";
import type { RowRegion } from "../table/row-index.js";
import { MAX_CHUNK_VALUES, type ChunkSource } from "../zarr/chunk-source.js";
import { allocateLike, copyValues, sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { cOrderCoordinates, cStrides, product } from "../zarr/grid.js";
import type { RowRange } from "../select/time-search.js";
import { BATCH_ROWS, joinSmallBands } from "./band-joiner.js";
import { chunkRowsOf } from "../zarr/chunk-box.js";
import { READ_AHEAD_BYTES, ReadAheadBudget, type ReadAheadShare } from "./read-ahead-budget.js";
import { checkBandSize, chunksOfRows, countingHandedOn, readBands, readChunksInOrder, type ReadAheadControl, type ReadLimits, type ValueBand } from "./chunk-bands.js";

/** `c`: numpy `ravel()` order; `chunk`: chunk by chunk (C order inside each chunk, chunks in C order of the grid). */
export type RowOrder = "c" | "chunk";

/**
 * The same rows of every column: `columns[k]` holds the values of column k for the rows of `region`, over the
 * column's own axes, cut to the region's box along them (the batcher repeats them along the others); a column the
 * box covers whole is the same array in every band.
 */
export interface TableBand {
	readonly columns: readonly ChunkValues[];
	readonly length: number;
	readonly region: RowRegion;
}

/** The reader's options a caller may give (README, Library): the others are the package's own (TableReaderSettings). */
export interface TableReaderOptions {
	order?: RowOrder;
	/** Chunks fetched and decoded at once per column; order is preserved whatever finishes first. */
	concurrency?: number;
	/** Called after each chunk of any column is decoded, for progress. */
	onChunk?: (chunkIndex: number, totalChunks: number) => void;
	/** Bytes of one row of the batches made from the bands, about (default: the columns' `valueBytes`); see BATCH_BYTES. */
	rowBytes?: number;
	/**
	 * Decoded bytes the chunks read ahead hold at most, all columns together (default READ_AHEAD_BYTES), or the
	 * concurrency times the largest chunk's, if more (see ReadAheadBudget).
	 */
	readAheadBytes?: number;
}

/** The reader's settings of the package's own stages (createTableReader): a caller's options and the pipeline's. */
export interface TableReaderSettings extends TableReaderOptions {
	/**
	 * Chunks in flight per column at most (default: `concurrency`), when more than `concurrency`: `concurrency` then
	 * counts requests, and the chunks one request reads together (a shard's inner chunks) are in flight with it up to
	 * this many (see ReadLimits).
	 */
	chunksInFlight?: number;
	/** Only these rows along the first axis (a time range, a part): chunks outside them are never read. */
	rows?: RowRange;
	/**
	 * N-d bands are assembled in its buffers, and chunks copied into them go back to it (see readBands): only for
	 * exports whose output hands written buffers back to the same pool.
	 */
	bufferPool?: BufferPool;
}

/** Every option a caller may give TableReader: another name is refused (an internal one too, see TableReaderSettings). */
const TABLE_READER_OPTION_NAMES: readonly string[] = Object.keys({ order: 0, concurrency: 0, onChunk: 0, rowBytes: 0, readAheadBytes: 0 } satisfies Record<keyof TableReaderOptions, 0>);

/** A reader with the pipeline's settings (the package's own stages, and its tests). */
export function tableReaderWith(columns: readonly (ChunkSource<ChunkValues> | BroadcastSource)[], shape: readonly number[], settings: TableReaderSettings): TableReader {
	return new TableReader(columns, shape, ownSettings(settings));
}

/**
 * A column read over some of the table's axes: `axes[k]` is the table axis of the source's axis k (increasing).
 * A bare ChunkSource is a column over every axis of the table.
 */
export interface BroadcastSource {
	readonly source: ChunkSource<ChunkValues>;
	/** The array's name, for the messages that name a column. */
	readonly name?: string;
	readonly shape: readonly number[];
	readonly axes: readonly number[];
	/** Bytes of one value of its decoded chunks, for the read-ahead budget (default 8). */
	readonly valueBytes?: number;
}

/**
 * Values of one band at most when it is cut (an N-d table, or columns repeated over it): a quarter million rows,
 * 2 MiB per int64 column. Batches in the pipeline (a few, between its stages) hold this much of each column,
 * index columns included: a million rows measured 55 MiB more peak RSS on a 3-D zstd store with `--index`.
 */
const BAND_VALUES = 1 << 18;

/**
 * Values of one band at most in chunk order, where a band's values are views of its chunks and what each batch
 * adds is the index columns of the dimensions whose box changes from band to band. Half of BAND_VALUES measured
 * 117 -> 105 MiB peak RSS on the bench's 3-D zstd store with `--index --order chunk`, no slower. In C order the row
 * of chunks held sets the peak: bands of one row (100k values) instead of two saved 2 MiB there and took 4% longer.
 */
const CHUNK_ORDER_BAND_VALUES = 1 << 17;

/**
 * Bytes of values of one band at most, all of its columns together (as a batch holds them: index columns, values
 * and repeated columns), unless one row along the first axis is more: the rows of a band are also fewer than
 * BAND_VALUES, CHUNK_ORDER_BAND_VALUES and BATCH_ROWS. Those bound each column; this bounds a wide table's batches,
 * several of which are in flight between the stages (30 float32 variables and 3 index columns at a quarter million
 * rows made batches of 35 MB).
 */
export const BATCH_BYTES = 16 * 2 ** 20;

/** The rows of a band at most: `rows`, fewer when BATCH_BYTES of rows of `rowBytes` are fewer. */
const rowsWithinBytes = (rows: number, rowBytes: number) => Math.max(1, Math.min(rows, Math.floor(BATCH_BYTES / Math.max(1, rowBytes))));

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
 * chunk order the bands are the boxes of the chunks of the columns over every axis (which must share one chunk
 * shape), read chunk by chunk; a column over fewer axes is held as in C order and cut to each box. Either way,
 * consecutive small bands (small chunks) are gathered into bands of up to BATCH_ROWS rows (see joinSmallBands).
 *
 * Memory is bounded in bytes whatever the table's width: a band holds at most BATCH_BYTES of values of all its
 * columns, and the columns' chunks read ahead share one budget (ReadAheadBudget), the chunks of the rows needed
 * soonest read first; what remains is the chunk of each column its bands are cut from.
 */
export class TableReader extends GeneratorReadable<TableBand> {
	readonly totalChunks: number;
	readonly totalRows: number;
	#holdReadAhead: () => boolean = () => false;

	constructor(columns: readonly (ChunkSource<ChunkValues> | BroadcastSource)[], shape: readonly number[], options: TableReaderOptions = {}) {
		super();
		// Made by createTableExportStages; from JavaScript, a wrong argument was a TypeError (columns.map is not a function).
		if (!Array.isArray(columns) || columns.length === 0) {
			throw new UsageError(`TableReader: columns must be a table's column sources, at least one (createTableExportStages makes the stages), got ${describeArgument(columns)}`, { option: "columns" });
		}
		if (!Array.isArray(shape) || !shape.every((length) => Number.isSafeInteger(length) && length >= 0)) {
			throw new UsageError(`TableReader: shape must be the table's shape, an array of lengths, got ${describeArgument(shape)}`, { option: "shape" });
		}
		const own = isOwnSettings(options);
		const settings: TableReaderSettings = optionsArgument(options);
		if (!own) checkOptionNamesOf("TableReader", settings, TABLE_READER_OPTION_NAMES);
		const broadcast = columns.map((column) => asBroadcastSource(column, shape));
		const rows = settings.rows;
		// A column without the first axis is read whole, whatever the rows.
		const chunksOf = (column: BroadcastSource) => (rows === undefined || column.axes[0] !== 0 ? product(column.source.gridShape) : chunksOfRows(column.source, rows));
		this.totalChunks = broadcast.reduce((sum, column) => sum + chunksOf(column), 0);
		this.totalRows = rows === undefined ? product(shape) : (rows.end - rows.start) * product(shape.slice(1));
		const requests = Math.max(1, settings.concurrency ?? 4);
		const concurrency: ReadLimits = { requests, chunks: Math.max(requests, settings.chunksInFlight ?? requests) };
		let decoded = 0;
		const onChunk = settings.onChunk === undefined ? undefined : () => settings.onChunk!(++decoded, this.totalChunks);
		const mayReadAhead = () => !this.#holdReadAhead();
		// Small bands (small chunks) are gathered into batches of a sensible size; see joinSmallBands.
		const alongRows = broadcast.map((column) => shape.length > 0 && column.axes[0] === 0);
		const rowBytes = settings.rowBytes ?? broadcast.reduce((sum, column) => sum + (column.valueBytes ?? 8), 0);
		const chunkBytes = broadcast.map((column) => product(column.source.chunkShape) * (column.valueBytes ?? 8));
		// No less than the column reading the most ahead would alone (see READ_AHEAD_BYTES).
		const budget = new ReadAheadBudget(Math.max(settings.readAheadBytes ?? READ_AHEAD_BYTES, concurrency.chunks * Math.max(...chunkBytes)));
		const readAhead = broadcast.map((_, k): ReadAheadShare => ({ budget, column: k, chunkBytes: chunkBytes[k] }));
		const read: TableRead = { columns: broadcast, shape, concurrency, signal: this.signal, mayReadAhead, onChunk, rows, rowBytes, readAhead };
		const joinedRows = rowsWithinBytes(BATCH_ROWS, rowBytes);
		if ((settings.order ?? "c") === "chunk") {
			const spanning = broadcast.filter((column) => spansTable(column, shape));
			if (spanning.length === 0) {
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `order chunk follows the chunks of a column over all of the table's dimensions ${JSON.stringify(shape)}, and no column spans them`, { option: "order", value: "chunk" });
			}
			const chunkShape = spanning[0].source.chunkShape;
			if (spanning.some((column) => column.source.chunkShape.join() !== chunkShape.join())) {
				const shapes = spanning.map((column) => `${column.name === undefined ? "" : `${column.name} `}${JSON.stringify(column.source.chunkShape)}`).join(", ");
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `order chunk needs every column over all of the table's dimensions read in the same chunk shape, got ${shapes}`, { option: "order", value: "chunk" });
			}
			for (const column of broadcast) if (!spansTable(column, shape)) checkHeldColumn(column, shape, "chunk");
			this.pullFrom(joinSmallBands(chunkOrderBands(read, settings.bufferPool), alongRows, settings.bufferPool, joinedRows));
		} else {
			for (const column of broadcast) checkHeldColumn(column, shape, "c");
			this.pullFrom(joinSmallBands(cOrderBands(read, settings.bufferPool), alongRows, settings.bufferPool, joinedRows));
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

/**
 * Refuses, before any read, a column whose held values would be too large: a row of its chunks (a column over the
 * first axis, assembled band by band), or a column without the first axis, which is read whole and, in C order,
 * repeated over one row of the table. In chunk order it is cut to each box of chunks, never repeated over a row
 * (trial 28, finding 01: a 2 x 12000 x 12000 table with index columns was refused in chunk order too, the way the
 * C-order refusal pointed to): there it is bound by its own values only.
 */
function checkHeldColumn(column: BroadcastSource, shape: readonly number[], order: RowOrder): void {
	if (column.axes[0] === 0) {
		checkBandSize(column.source, column.shape);
		return;
	}
	if (shape.length === 0) return;
	const ownValues = product(column.shape);
	if (order === "chunk") {
		if (ownValues > MAX_CHUNK_VALUES) {
			throw new Dt64ExportError("TOO_LARGE", `a column of shape ${JSON.stringify(column.shape)} holds ${ownValues} values, too many to hold whole beside the table's chunks (at most ${MAX_CHUNK_VALUES})`);
		}
		return;
	}
	const rowValues = product(shape.slice(1));
	if (rowValues > MAX_CHUNK_VALUES) {
		throw new Dt64ExportError("BAND_TOO_LARGE", `table shape ${JSON.stringify(shape)}: one row along its first dimension holds ${rowValues} values, too many to repeat a column along it (at most ${MAX_CHUNK_VALUES}, 1 GiB of int64)`, { value: rowValues });
	}
}

/** Every value of a column, in C order: a column without the table's first axis, read once. */
async function readWhole(column: BroadcastSource, concurrency: ReadLimits, signal: AbortSignal, onChunk?: () => void): Promise<ChunkValues> {
	let whole: ChunkValues | undefined;
	for await (const band of readBands(column.source, column.shape, concurrency, signal, onChunk)) {
		if (band.offset === 0 && band.values.length === product(column.shape)) return band.values;
		whole ??= allocateLike(band.values, product(column.shape));
		copyValues(band.values, 0, band.values.length, whole, band.offset);
	}
	// An empty column: no band at all.
	return whole ?? [];
}

/** What a table's bands are read from, in either order: its columns over its shape, the rows asked for, and how. */
interface TableRead {
	readonly columns: readonly BroadcastSource[];
	readonly shape: readonly number[];
	readonly concurrency: ReadLimits;
	readonly signal: AbortSignal;
	/** Whether the chunk reads may go on ahead of the bands taken (see holdReadAheadWhile). */
	readonly mayReadAhead: () => boolean;
	readonly onChunk?: () => void;
	readonly rows?: RowRange;
	/** Bytes of one row of a band's batch, about: bands hold at most BATCH_BYTES of them. */
	readonly rowBytes: number;
	/** Each column's share of the table's read-ahead budget. */
	readonly readAhead: readonly ReadAheadShare[];
}

/** C order: bands of whole rows along the first axis, assembled in buffers from `bufferPool` when there is one. */
async function* cOrderBands(read: TableRead, bufferPool?: BufferPool): AsyncGenerator<TableBand> {
	const { columns, shape, concurrency, signal, mayReadAhead, onChunk, rows, rowBytes, readAhead } = read;
	if (product(shape) === 0) return;
	const rowValues = product(shape.slice(1));
	// A 1-D chunk passes through whole; N-d bands and columns repeated over the band are cut into batches of about
	// BAND_VALUES values: each batch's index columns and repeated values are then that size, not a row of chunks'
	// (tens of megabytes), and a written batch's buffers come back for the next while a row of chunks is copied. A
	// wide table's are cut to BATCH_BYTES of all its columns.
	const capped = shape.length > 1 || columns.some((column) => column.axes.length !== shape.length);
	const maxRows = capped ? Math.max(1, Math.floor(rowsWithinBytes(BAND_VALUES, rowBytes) / rowValues)) : Number.MAX_SAFE_INTEGER;
	const streams =
		shape.length === 0
			? []
			: columns.map((column, k) =>
					column.axes[0] === 0 ? readBands(column.source, column.shape, concurrency, signal, onChunk, mayReadAhead, rows, { bufferPool, maxRows, readAhead: readAhead[k], countHandedOn: columns.length === 1, shards: true }) : undefined,
				);
	// Every column's first band is asked for at once, so that their reads start together: asked for in turn, each
	// column's requests started only once the column before had its first band (trial 20: 100 columns of one chunk
	// over a store at 100 ms, one request in flight, 11.5 s). Rejections are observed when their turn comes.
	const first = streams.map((stream) => {
		const next = stream?.next();
		next?.catch(() => undefined);
		return next;
	});
	const held = await Promise.all(columns.map((column) => (column.axes[0] === 0 ? undefined : readWhole(column, concurrency, signal, onChunk))));
	if (shape.length === 0) {
		yield { columns: held as ChunkValues[], length: 1, region: { kind: "box", origin: [], extent: [] } };
		return;
	}
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
				const next = await (first[k] ?? stream.next());
				first[k] = undefined;
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

/**
 * The values of a column over its own axes (`values` of `ownShape`, on the table axes `axes`) inside a box of the
 * table: the values themselves when the box covers them, else a copy of the sub-box.
 */
function valuesInBox(values: ChunkValues, ownShape: readonly number[], axes: readonly number[], origin: readonly number[], extent: readonly number[]): ChunkValues {
	const boxExtent = axes.map((axis) => extent[axis]);
	if (boxExtent.every((length, j) => length === ownShape[j])) return values;
	const strides = cStrides(ownShape);
	const first = axes.reduce((at, axis, j) => at + origin[axis] * strides[j], 0);
	return broadcastValues(values, strides, boxExtent, first);
}

/**
 * The rows of a column along the table's first axis, from its bands, for boxes asked for in increasing rows: what
 * it holds starts at the first row asked for last and ends at the end of a band, so at most the box's rows and one
 * band (its bands are joined when its chunks along the first axis end elsewhere than the table's).
 */
function rowWindow(bands: AsyncGenerator<ValueBand<ChunkValues>>, shape: readonly number[]): (from: number, to: number) => Promise<{ values: ChunkValues; firstRow: number }> {
	const rowValues = product(shape.slice(1));
	let values: ChunkValues | undefined;
	let firstRow = 0;
	return async (from, to) => {
		if (values !== undefined && firstRow < from) {
			const drop = Math.min(from - firstRow, values.length / rowValues);
			values = sliceValues(values, drop * rowValues, values.length);
			firstRow += drop;
		}
		while (values === undefined || firstRow + values.length / rowValues < to) {
			const next = await bands.next();
			if (next.done) throw new Dt64ExportError("INTERNAL", `a column ended before row ${to}`);
			const band = next.value;
			if (values === undefined || values.length === 0) {
				values = band.values;
				firstRow = band.firstRow;
				continue;
			}
			const joined = allocateLike(values, values.length + band.values.length);
			copyValues(values, 0, values.length, joined, 0);
			copyValues(band.values, 0, band.values.length, joined, values.length);
			values = joined;
		}
		return { values, firstRow };
	};
}

/**
 * Chunk order: the boxes of the chunks of the columns over every axis of the table (one chunk shape), in C order
 * of their grid, each cut into bands of whole rows along the first axis of about CHUNK_ORDER_BAND_VALUES values.
 * Each box's values of a column over fewer axes come from what it holds as in C order (a window of its bands if it
 * has the first axis, else all of it), cut to the box.
 */
async function* chunkOrderBands(read: TableRead, bufferPool?: BufferPool): AsyncGenerator<TableBand> {
	// An array alone: its chunks pass on whole (in slices), counted as chunks in flight until they come back (see
	// countingHandedOn); a table's other columns may convert a chunk into other memory, never handed back.
	// A column streamed band by band (see streamed-chunk-bands.ts) reads no chunk ahead whole: nothing to count.
	const counting = read.columns.length === 1 && bufferPool !== undefined && read.columns[0].source.streamedChunk === undefined ? countingHandedOn(bufferPool, read.concurrency) : undefined;
	try {
		yield* chunkOrderBoxes(read, counting, bufferPool);
	} finally {
		counting?.close();
	}
}

/** The bands of chunkOrderBands, its columns over the whole table read under `counting` when given. */
async function* chunkOrderBoxes(read: TableRead, counting: ReadAheadControl | undefined, bufferPool?: BufferPool): AsyncGenerator<TableBand> {
	const { columns, shape, concurrency, signal, mayReadAhead, onChunk, rows, rowBytes, readAhead } = read;
	if (product(shape) === 0) return;
	const spans = columns.map((column) => spansTable(column, shape));
	const { chunkShape, gridShape } = columns[spans.indexOf(true)].source;
	const chunkRange = rows === undefined ? { start: 0, end: gridShape[0] } : chunkRowsOf(chunkShape[0], rows);
	const held = await Promise.all(columns.map((column, k) => (spans[k] || column.axes[0] === 0 ? undefined : readWhole(column, concurrency, signal, onChunk))));
	// The boxes in C order of the chunk grid, each keeping only the rows in range: whole rows of it along the first
	// axis, contiguous in C order, cut into bands of about CHUNK_ORDER_BAND_VALUES values.
	const boxes = function* (): Generator<ChunkOrderBox> {
		for (const coords of cOrderCoordinates([chunkRange.end - chunkRange.start, ...gridShape.slice(1)])) {
			coords[0] += chunkRange.start;
			const chunkOrigin = coords.map((c, axis) => c * chunkShape[axis]);
			const chunkExtent = chunkOrigin.map((start, axis) => Math.min(chunkShape[axis], shape[axis] - start));
			const from = rows === undefined ? chunkOrigin[0] : Math.max(chunkOrigin[0], rows.start);
			const to = rows === undefined ? chunkOrigin[0] + chunkExtent[0] : Math.min(chunkOrigin[0] + chunkExtent[0], rows.end);
			const step = Math.max(1, Math.floor(rowsWithinBytes(CHUNK_ORDER_BAND_VALUES, rowBytes) / product(chunkExtent.slice(1))));
			yield { coords, chunkOrigin, chunkExtent, from, to, step };
		}
	};
	// A column over every axis whose chunks the source streams is decoded band by band (see streamed-chunk-bands.ts).
	const streamed = columns.map((column, k) =>
		spans[k] && bufferPool !== undefined && column.source.streamedChunk !== undefined ? streamedChunkBands(column.source, shape, boxes(), bufferPool, signal, onChunk) : undefined,
	);
	const chunks = columns.map((column, k) => (spans[k] && streamed[k] === undefined ? readChunksInOrder(column.source, concurrency, signal, mayReadAhead, chunkRange, counting, readAhead[k]) : undefined));
	const windows = columns.map((column, k) =>
		!spans[k] && column.axes[0] === 0 ? rowWindow(readBands(column.source, column.shape, concurrency, signal, onChunk, mayReadAhead, rows, { readAhead: readAhead[k] }), column.shape) : undefined,
	);
	try {
		for (const box of boxes()) {
			const { coords, chunkOrigin, chunkExtent, from, to } = box;
			const origin = [from, ...chunkOrigin.slice(1)];
			const extent = [to - from, ...chunkExtent.slice(1)];
			const values: ChunkValues[] = [];
			for (const [k, column] of columns.entries()) {
				const stream = chunks[k];
				const window = windows[k];
				if (streamed[k] !== undefined) {
					// Its values come band by band (below).
					values.push([]);
				} else if (stream !== undefined) {
					const { data } = (await stream.next()).value as { data: ChunkValues };
					onChunk?.();
					const rest = product(chunkExtent.slice(1));
					const clipped = clippedChunk(data, column.source, coords, shape, bufferPool);
					values.push(sliceValues(clipped, (from - chunkOrigin[0]) * rest, (to - chunkOrigin[0]) * rest));
				} else if (window !== undefined) {
					const rowsHeld = await window(from, to);
					const ownShape = [rowsHeld.values.length / product(column.shape.slice(1)), ...column.shape.slice(1)];
					values.push(valuesInBox(rowsHeld.values, ownShape, column.axes, [from - rowsHeld.firstRow, ...origin.slice(1)], extent));
				} else {
					values.push(valuesInBox(held[k]!, column.shape, column.axes, origin, extent));
				}
			}
			// Values over the first axis are C order over the box's rows: a band's rows are a contiguous run of them.
			for (const { start, end } of bandRowsOf(box)) {
				const band: ChunkValues[] = [];
				for (const [k, v] of values.entries()) {
					const stream = streamed[k];
					if (stream !== undefined) {
						const next = await stream.next();
						if (next.done) throw new Dt64ExportError("INTERNAL", `column ${k} ended before row ${end} of chunk ${JSON.stringify(coords)}`);
						band.push(next.value);
					} else band.push(columns[k].axes[0] === 0 ? sliceValues(v, ((start - from) * v.length) / extent[0], ((end - from) * v.length) / extent[0]) : v);
				}
				const bandExtent = [end - start, ...extent.slice(1)];
				yield { columns: band, length: product(bandExtent), region: { kind: "box", origin: [start, ...origin.slice(1)], extent: bandExtent } };
			}
		}
	} finally {
		// A streamed column left mid-chunk closes its chunk's file once the band it asked for ahead is answered.
		for (const stream of streamed) void stream?.return(undefined);
	}
}
