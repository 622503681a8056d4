/**
 * The bytes a table's columns take per value, for the budgets of a table export (see BATCH_BYTES and
 * ReadAheadBudget in src/stream/): estimates from the metadata, made before any chunk is read.
 */
import type { TableColumn } from "../open-table.js";

/** Bytes a string value is counted at: its offset and a short text (as for Parquet row groups). */
const STRING_BYTES = 16;

/** Bytes of one value of a column's decoded chunks (half floats are held widened to float32). */
export function chunkValueBytes(column: TableColumn): number {
	if (column.kind === "time") return 8;
	if (column.metadata.dataType.name === "float16") return 4;
	return column.metadata.dataType.itemBytes ?? STRING_BYTES;
}

/**
 * Bytes of one value of a column in a batch, at most: 8 for a CF time column (a Timestamp) and for one with CF
 * unpacking attributes (which may widen it to Float64), else what its chunks hold.
 */
export function batchValueBytes(column: TableColumn): number {
	if (column.kind === "plain" && (column.cfTime !== undefined || column.metadata.attributes.scale_factor != null || column.metadata.attributes.add_offset != null)) return 8;
	return chunkValueBytes(column);
}
