import type { Data, Field } from "apache-arrow";
import type { ColumnsPlan } from "../export-plan.js";
import type { ChunkValues } from "../zarr/chunk-values.js";

/** How one value column of a table becomes Arrow data: what TableBatcher asks of every column kind. */
export interface ColumnPlan {
	readonly field: Field;
	/** Arrow data of one band's values of this column; `describePosition(i)` names its i-th value in messages. */
	toData(values: ChunkValues, describePosition: (i: number) => string): Data;
	/** The values of no rows: an empty table still gives one (empty) batch, for its schema. */
	empty(): ChunkValues;
}

/** What a column kind plans a column with, beside the column itself. */
export interface ColumnContext {
	/** The column's name in the output. */
	readonly name: string;
	readonly plan: ColumnsPlan;
	/**
	 * The bands' values are the reader's own decoded chunks, read by no one else (TableReader's): a kind may
	 * convert them where they are instead of into a new buffer per batch.
	 */
	readonly convertInPlace: boolean;
	/** Where validity bitmaps' memory comes from (a BufferPool's, when the output hands buffers back); default new. */
	readonly allocateBitmap?: (bytes: number) => Uint8Array;
}
