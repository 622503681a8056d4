/**
 * The rows of a Parquet row group when the caller does not choose them (`rowGroupRows`): 2^20, fewer for a wide
 * table, so that a row group holds at most ROW_GROUP_BYTES of values. arrow-rs keeps a whole row group of every
 * column in memory, encoded and buffered, until it is flushed: several times its values' size (measured about 9x:
 * 30 float32 columns with 3 index columns took 1.1 GB at 2^20 rows), so the row group, not the table's length, sets
 * an export's peak memory, and its width decides it. DuckDB and Arrow writers bound their row groups in bytes too.
 * 8 MiB rather than 32 (measured with the reader's byte budgets, 3 runs each): 30 float32 variables over
 * 48 x 181 x 360 with their index columns, 245,760 -> 61,440 rows a row group, peak RSS 425-447 -> 313-320 MiB;
 * three variables, 2^20 -> 299,008 rows, 208-216 -> 168-177 MiB; one, 2^20 -> 418,816 rows, 155-162 -> 143-147
 * MiB; the same CPU time. A single timestamp column keeps 2^20 rows.
 */
import { Bool, type DataType, Duration, Float, Int, LargeUtf8, Precision, Timestamp, Utf8 } from "apache-arrow";
import { DEFAULT_ROW_GROUP_ROWS, ROW_GROUP_BYTES } from "./options.js";

/** Row groups shrunk for width are a multiple of this many rows (the slices fed to parquet-wasm are 64 Ki). */
const ROW_GROUP_GRAIN = 1 << 10;

/** Bytes of one value of a column (string columns counted at 16: offsets and a short text). */
export function valueBytes(type: DataType): number {
	if (type instanceof Timestamp || type instanceof Duration) return 8;
	if (type instanceof Int) return type.bitWidth / 8;
	if (type instanceof Float) return type.precision === Precision.HALF ? 2 : type.precision === Precision.SINGLE ? 4 : 8;
	if (type instanceof Bool) return 1;
	if (type instanceof Utf8 || type instanceof LargeUtf8) return 16;
	return 8;
}

/** 2^20 rows, or fewer, a multiple of 1,024, when a row's values are wider than 8 bytes. */
export function rowGroupRowsFor(types: readonly DataType[]): number {
	const rowBytes = types.reduce((sum, type) => sum + valueBytes(type), 0);
	const rows = Math.floor(ROW_GROUP_BYTES / Math.max(1, rowBytes));
	if (rows >= DEFAULT_ROW_GROUP_ROWS) return DEFAULT_ROW_GROUP_ROWS;
	return Math.max(ROW_GROUP_GRAIN, rows - (rows % ROW_GROUP_GRAIN));
}
