import { UsageError } from "../../errors.js";

export type ParquetCompression = "zstd" | "snappy" | "gzip" | "none";

export interface ParquetWriterOptions {
	/**
	 * Page compression. Default `zstd`: on delta-encoded timestamps it is the smallest of the fast codecs (gzip is
	 * about as small and up to 3.6x slower; snappy is up to 1.8x larger, none up to 20x).
	 */
	compression?: ParquetCompression;
	/**
	 * Rows per row group; the last one holds the remainder. Default 1,048,576 (2^20), fewer for a table whose row is
	 * wider than 8 bytes: at most 8 MiB of values per row group (see row-group-size.ts).
	 */
	rowGroupRows?: number;
}

/** The options checked, defaults filled in; `rowGroupRows` undefined: the default, chosen by the schema's width. */
export interface ParquetSettings {
	compression: ParquetCompression;
	rowGroupRows: number | undefined;
}

export const COMPRESSIONS: readonly ParquetCompression[] = ["zstd", "snappy", "gzip", "none"];

export const DEFAULT_ROW_GROUP_ROWS = 1 << 20;
/**
 * Values per row group at most when rowGroupRows is not given, in bytes of the columns' values: one timestamp,
 * int64 or float64 column at 2^20 rows (see row-group-size.ts).
 */
export const ROW_GROUP_BYTES = 8 << 20;
export const DEFAULT_COMPRESSION: ParquetCompression = "zstd";

export function normalizeOptions(options: ParquetWriterOptions): ParquetSettings {
	const compression = options.compression ?? DEFAULT_COMPRESSION;
	if (!COMPRESSIONS.includes(compression)) {
		throw new UsageError(`unknown Parquet compression "${String(compression)}" (expected one of: ${COMPRESSIONS.join(", ")})`, { option: "compression", value: compression });
	}
	const rowGroupRows = options.rowGroupRows;
	if (rowGroupRows !== undefined && (!Number.isSafeInteger(rowGroupRows) || rowGroupRows < 1)) {
		throw new UsageError(`invalid rowGroupRows ${String(rowGroupRows)}: must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (2^53 - 1)`, { option: "rowGroupRows", value: rowGroupRows });
	}
	return { compression, rowGroupRows };
}
