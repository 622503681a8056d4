import { Transform, type TransformCallback } from "node:stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { checkObjectArgument, checkOptionNamesOf } from "../call-arguments.js";
import { isOwnSettings, ownSettings } from "../own-settings.js";
import type { Validity } from "../cf/masking.js";
import { broadcastStrides, broadcastValues } from "../table/broadcast.js";
import { OverflowNullCounter } from "../convert/overflow-nulls.js";
import { arrowDataOf, type ColumnPlan, type DecodedValues } from "../table/column-plan.js";
import { BandIndexColumns, type AllocateInt64, type RowRegion } from "../table/row-index.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import { cStrides, product } from "../zarr/grid.js";
import type { TableBand } from "./table-reader.js";
import type { TimeBounds } from "../select/time-bounds.js";
import { InvalidDateRows } from "./invalid-date-rows.js";

/**
 * One output column of a table: the positions along one axis (an index column without a coordinate), or the
 * values of the reader's column `band`, an array of `shape` over the table axes `axes`, decoded by its kind's plan
 * and repeated along the axes it lacks.
 */
export type TableColumnPlan =
	| { readonly kind: "positions"; readonly field: Field; readonly axis: number }
	| { readonly kind: "values"; readonly plan: ColumnPlan; readonly band: number; readonly name: string; readonly shape: readonly number[]; readonly axes: readonly number[] };

/** The batcher's options (README, Library): a table's, as createTableExportStages gives them; the others are the package's own (TableBatcherSettings). */
export interface TableBatcherOptions {
	/** In output order: index columns first, then the value columns (see src/table/column-kinds.ts). */
	columns: readonly TableColumnPlan[];
	/** The table's shape, to lay the columns out and to name N-d positions in messages. */
	shape: readonly number[];
}

/** The batcher's settings of the package's own stages (createStagesAround): the table's and the pipeline's. */
export interface TableBatcherSettings extends TableBatcherOptions {
	/**
	 * Where position index columns' memory comes from (a BufferPool's, when the output hands written buffers back:
	 * each batch's columns are then the buffers of batches already written); default new. A column kept for every
	 * band (see BandIndexColumns) is never taken from it.
	 */
	allocateIndex?: AllocateInt64;
	/** Count the values written as null because they overflowed (`onOverflow: "null"`), in `overflowNulls`. */
	countOverflowNulls?: boolean;
	/**
	 * The time range of the export, if any: the rows of dates left out (columns planned with `dropsInvalidDates`) are
	 * counted in `droppedInvalidDates` when they lie in it (see dropped-dates.ts).
	 */
	invalidDateBounds?: TimeBounds;
}

/** Every option a caller may give TableBatcher: another name is refused (an internal one too, see TableBatcherSettings). */
const TABLE_BATCHER_OPTION_NAMES: readonly string[] = Object.keys({ columns: 0, shape: 0 } satisfies Record<keyof TableBatcherOptions, 0>);

/** A batcher with the pipeline's settings (the package's own stages, and its tests). */
export function tableBatcherWith(settings: TableBatcherSettings): TableBatcher {
	return new TableBatcher(ownSettings(settings));
}

const fieldOf = (column: TableColumnPlan) => (column.kind === "positions" ? column.field : column.plan.field);

/** The box of table positions a band covers (a flat region is a run of whole rows along the first axis). */
function boxOf(region: RowRegion, length: number, shape: readonly number[]): { origin: readonly number[]; extent: readonly number[] } {
	if (region.kind === "box") return region;
	if (shape.length === 0) return { origin: [], extent: [] };
	const rowValues = product(shape.slice(1));
	return { origin: shape.map((_, axis) => (axis === 0 ? region.offset / rowValues : 0)), extent: [length / rowValues, ...shape.slice(1)] };
}

function bytesOfBits(validity: Validity, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	for (let i = 0; i < length; i++) bytes[i] = (validity.bitmap[i >> 3] >> (i & 7)) & 1;
	return bytes;
}

function bitsOfBytes(bytes: Uint8Array): Validity {
	const bitmap = new Uint8Array(Math.ceil(bytes.length / 8));
	let nullCount = 0;
	for (let i = 0; i < bytes.length; i++) {
		if (bytes[i] !== 0) bitmap[i >> 3] |= 1 << (i & 7);
		else nullCount++;
	}
	return { bitmap, nullCount };
}

/**
 * Turns table bands into Arrow RecordBatches: each column's own values are decoded by its kind's plan (once for a
 * column the reader gives whole, such as a coordinate or a static field), then repeated over the band's rows.
 * Batches may share memory: the position columns of the dimensions after the first are one column for every band
 * whose box along them is the same (see BandIndexColumns), so a batch is to be read, never written into.
 */
export class TableBatcher extends Transform {
	readonly schema: Schema;
	readonly #options: TableBatcherSettings;
	readonly #strides: number[];
	/** Per column, the last values decoded and their result: a column the reader gives whole is decoded once. */
	readonly #decoded: ({ raw: ChunkValues; decoded: DecodedValues } | undefined)[];
	readonly #indexColumns: BandIndexColumns;
	/** The rows of the bands batched so far (the rows read, before any is left out): message positions count them. */
	#rows = 0;
	#batches = 0;
	/** The overflowed nulls of the batches made so far, when asked to count them. */
	readonly overflowNulls: OverflowNullCounter | undefined;
	/** Leaves out the rows of time coordinates' dates the proleptic Gregorian calendar lacks (`dropInvalidDates`). */
	readonly #invalidDates: InvalidDateRows | undefined;
	/** The rows of the batches made so far. */
	rowsOut = 0;

	constructor(options: TableBatcherOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		// Made by createTableExportStages; from JavaScript, null or {} was a TypeError.
		checkObjectArgument("TableBatcher", "options", options, "{ columns, shape } of a table (createTableExportStages makes the stages)", (given) => Array.isArray(given.columns) && Array.isArray(given.shape));
		if (!isOwnSettings(options)) checkOptionNamesOf("TableBatcher", options, TABLE_BATCHER_OPTION_NAMES);
		const settings: TableBatcherSettings = options;
		this.#options = settings;
		this.overflowNulls = settings.countOverflowNulls === true ? new OverflowNullCounter() : undefined;
		this.schema = new Schema(options.columns.map(fieldOf));
		this.#strides = cStrides(options.shape);
		this.#decoded = options.columns.map(() => undefined);
		this.#indexColumns = new BandIndexColumns(settings.allocateIndex);
		const filters = options.columns.flatMap((column, k) => (column.kind === "values" && column.plan.dropsInvalidDates === true ? [k] : []));
		this.#invalidDates = filters.length === 0 ? undefined : new InvalidDateRows(filters, settings.invalidDateBounds);
	}

	/**
	 * The rows left out because their time coordinate's date does not exist in the proleptic Gregorian calendar
	 * (within the export's time range), so far; undefined when the export does not drop them.
	 */
	get droppedInvalidDates(): number | undefined {
		return this.#invalidDates?.dropped;
	}

	/**
	 * Names a value in messages: a single array's by its flat index in the array (numpy's), a table's by its row of
	 * the output and its column, a repeated column's by its position in its own array. N-d positions add the
	 * coordinates.
	 */
	#describe(plan: Extract<TableColumnPlan, { kind: "values" }>, spans: boolean, position: readonly number[], row: number): string {
		const { columns } = this.#options;
		const at = position.length <= 1 ? "" : ` (position [${position.join(", ")}])`;
		if (!spans) return `position [${position.join(", ")}] of column "${plan.plan.field.name}" (array ${plan.name})`;
		if (columns.length === 1) return `index ${position.reduce((flat, c, axis) => flat + c * this.#strides[axis], 0)}${at}`;
		return `row ${row}${at} of column "${plan.plan.field.name}"`;
	}

	#column(k: number, column: TableColumnPlan, band: TableBand, origin: readonly number[], extent: readonly number[], positions: () => BigInt64Array[]): Data {
		const rank = extent.length;
		if (column.kind === "positions") return arrowDataOf(column.field, { values: positions()[column.axis] });
		const raw = band.columns[column.band];
		// Every column holds the band's box along its own axes (see TableBand).
		const spans = column.axes.length === rank;
		const ownShape = column.axes.map((axis) => extent[axis]);
		const ownOrigin = column.axes.map((axis) => origin[axis]);
		let decoded: DecodedValues;
		const cached = this.#decoded[k];
		if (cached !== undefined && cached.raw === raw) decoded = cached.decoded;
		else {
			const strides = cStrides(ownShape);
			const rows = this.#rows;
			const describe = (i: number) => this.#describe(column, spans, ownShape.map((length, axis) => ownOrigin[axis] + (Math.floor(i / strides[axis]) % length)), rows + i);
			decoded = column.plan.decode(raw, describe);
			this.#decoded[k] = { raw, decoded };
		}
		if (spans) return arrowDataOf(column.plan.field, decoded);
		const strides = broadcastStrides(ownShape, column.axes, rank);
		const values = broadcastValues(decoded.values, strides, extent);
		const validity = decoded.validity === undefined ? undefined : bitsOfBytes(broadcastValues(bytesOfBits(decoded.validity, decoded.values.length), strides, extent));
		return arrowDataOf(column.plan.field, { values, validity });
	}

	#batch(band: TableBand): RecordBatch {
		const { shape, columns } = this.#options;
		const { origin, extent } = boxOf(band.region, band.length, shape);
		// The positions of the band's rows along every axis, made once (by runs) if an index column asks for them.
		let positions: BigInt64Array[] | undefined;
		const positionsOf = () => (positions ??= this.#indexColumns.of(origin, extent, band.length));
		const children = columns.map((column, k) => this.#column(k, column, band, origin, extent, positionsOf));
		return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: band.length, nullCount: 0, children }));
	}

	override _transform(band: TableBand, _encoding: BufferEncoding, callback: TransformCallback): void {
		let batch: RecordBatch;
		try {
			batch = this.#batch(band);
			if (this.#invalidDates !== undefined) batch = this.#invalidDates.keep(batch);
		} catch (error) {
			callback(error as Error);
			return;
		}
		this.#rows += band.length;
		// A batch whose rows were all left out goes on only as the first: a writer takes the schema from it.
		if (this.#invalidDates !== undefined && batch.numRows === 0 && this.#batches > 0) {
			callback();
			return;
		}
		this.#batches++;
		this.rowsOut += batch.numRows;
		this.overflowNulls?.add(batch);
		callback(null, batch);
	}

	/** An empty table still gives one (empty) batch: a Parquet file takes its schema from the first batch. */
	override _flush(callback: TransformCallback): void {
		if (this.#batches > 0) {
			callback();
			return;
		}
		try {
			const children = this.#options.columns.map((column) =>
				column.kind === "positions" ? arrowDataOf(column.field, { values: new BigInt64Array(0) }) : arrowDataOf(column.plan.field, { values: column.plan.empty() }),
			);
			callback(null, new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: 0, nullCount: 0, children })));
		} catch (error) {
			callback(error as Error);
		}
	}
}
