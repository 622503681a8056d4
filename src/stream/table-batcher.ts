import { Transform, type TransformCallback } from "node:stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { plainArrowData } from "../arrow/column-types.js";
import type { ColumnPlan } from "../table/column-plan.js";
import { rowIndexColumns, rowPosition } from "../table/row-index.js";
import { cStrides } from "../zarr/grid.js";
import type { TableBand } from "./table-reader.js";

export interface TableBatcherOptions {
	/** One int64 field per dimension, written before the value columns; empty for no index. */
	indexFields: readonly Field[];
	/** The value columns, each made Arrow data by its kind's plan (see src/table/column-kinds.ts). */
	columns: readonly ColumnPlan[];
	/** The arrays' shape, for index columns and to name N-d positions in messages. */
	shape: readonly number[];
}

/** Turns table bands into Arrow RecordBatches: index columns first, then each value column through its plan. */
export class TableBatcher extends Transform {
	readonly schema: Schema;
	readonly #options: TableBatcherOptions;
	readonly #strides: number[];
	#rows = 0;
	#batches = 0;

	constructor(options: TableBatcherOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.schema = new Schema([...options.indexFields, ...options.columns.map((column) => column.field)]);
		this.#strides = cStrides(options.shape);
	}

	/**
	 * Names a value in messages: a single array's by its flat index in the array (numpy's), a table's by its row of
	 * the output and its column. N-d positions add the coordinates.
	 */
	#describe(band: TableBand, i: number, column: ColumnPlan): string {
		const { shape, columns } = this.#options;
		const coords = rowPosition(shape, band.region, i);
		const at = shape.length <= 1 ? "" : ` (position [${coords.join(", ")}])`;
		if (columns.length === 1) return `index ${coords.reduce((flat, c, axis) => flat + c * this.#strides[axis], 0)}${at}`;
		return `row ${this.#rows + i}${at} of column "${column.field.name}"`;
	}

	#batch(band: TableBand): RecordBatch {
		const { shape, indexFields, columns } = this.#options;
		const children: Data[] = indexFields.length === 0 ? [] : rowIndexColumns(shape, band.region, band.length).map((values, axis) => plainArrowData(indexFields[axis], values));
		columns.forEach((column, k) => children.push(column.toData(band.columns[k], (i) => this.#describe(band, i, column))));
		return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: band.length, nullCount: 0, children }));
	}

	override _transform(band: TableBand, _encoding: BufferEncoding, callback: TransformCallback): void {
		let batch: RecordBatch;
		try {
			batch = this.#batch(band);
		} catch (error) {
			callback(error as Error);
			return;
		}
		this.#rows += band.length;
		this.#batches++;
		callback(null, batch);
	}

	/** An empty array still gives one (empty) batch: a Parquet file takes its schema from the first batch. */
	override _flush(callback: TransformCallback): void {
		if (this.#batches > 0) {
			callback();
			return;
		}
		const columns = this.#options.columns.map((column) => column.empty());
		try {
			callback(null, this.#batch({ columns, length: 0, region: { kind: "flat", offset: 0 } }));
		} catch (error) {
			callback(error as Error);
		}
	}
}
