/**
 * The export plan: the options of an export (the library's, or the CLI's translated), checked and normalized once,
 * at the edge, into a plain object with one part per stage: what to open, how to read, how each column becomes
 * Arrow data, how to write. The stages get their part, never the options. Nothing here imports apache-arrow.
 */
import { canonicalTimezone } from "./arrow/timezone.js";
import type { CfOptions } from "./cf/cf-time-array.js";
import { normalizeConversionOptions, type ConversionOptions, type NormalizedConversionOptions } from "./convert/options.js";
import { UsageError } from "./errors.js";
import type { OpenStoreOptions } from "./store/open-store.js";
import type { ParquetCompression } from "./stream/parquet-writer.js";
import { ROW_ORDERS, type RowOrder } from "./stream/table-reader.js";

export type OutputFormat = "arrow" | "arrow-stream" | "parquet";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["arrow", "arrow-stream", "parquet"];
export const FILE_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { arrow: "arrow", "arrow-stream": "arrows", parquet: "parquet" };

/** Everything an export can be asked, whether of one array or of a table. */
export interface ExportOptions extends ConversionOptions, OpenStoreOptions, Omit<CfOptions, "unit"> {
	/**
	 * Without `columns`: the path of the time array (found automatically when the store holds exactly one).
	 * With `columns`: the group holding them, as `group`.
	 */
	array?: string;
	/** The group holding the `columns`; the store root by default. */
	group?: string;
	/** The arrays of the group to export side by side, as one table; each column is named after its array. */
	columns?: readonly string[];
	/** The column name of a single array; its name (last path segment, `.zarr` dropped) by default. */
	column?: string;
	/**
	 * Timezone of the Arrow timestamps; null (naive, like numpy) by default. An IANA name, written in its canonical
	 * spelling (`europe/paris` → `Europe/Paris`), or an offset `+HH:MM`; anything else is a USAGE error.
	 */
	timezone?: string | null;
	/** One int64 column per dimension, before the value columns, saying where each row comes from. */
	index?: boolean;
	/** `c` (default): numpy `ravel()` order. `chunk` (needs `index`): chunk by chunk, without assembling rows of chunks. */
	order?: RowOrder;
	/** Chunks read and decoded at once, per column; by default from the store's kind (see defaultConcurrency). */
	concurrency?: number;
	/** Called after each chunk is decoded, for progress. */
	onChunk?: (chunkIndex: number, totalChunks: number) => void;
	format?: OutputFormat;
	rowGroupRows?: number;
	compression?: ParquetCompression;
}

/** What to open: one time array (`array`) or the `columns` of `group`. */
export interface OpenPlan {
	readonly store: OpenStoreOptions;
	/** How CF time arrays are found and opened (the unit: float counts are read once to choose `auto`'s). */
	readonly cf: Required<CfOptions>;
	readonly array?: string;
	readonly group?: string;
	readonly columns?: readonly string[];
}

/** How the chunks are read. */
export interface ReadPlan {
	readonly order: RowOrder;
	/** Undefined: the store's default (defaultConcurrency). */
	readonly concurrency: number | undefined;
	readonly onChunk?: (chunkIndex: number, totalChunks: number) => void;
}

/** How each column becomes Arrow data: the column kinds (src/table/column-kinds.ts) read their settings here. */
export interface ColumnsPlan {
	readonly conversion: NormalizedConversionOptions;
	/** Canonical (see canonicalTimezone), or null. */
	readonly timezone: string | null;
	/** The name of a single column, when asked for. */
	readonly column: string | undefined;
	readonly index: boolean;
	/** Parquet has no seconds unit: a time column in seconds is written in milliseconds (converted by the core). */
	readonly secondsAsMillis: boolean;
}

export interface OutputPlan {
	readonly format: OutputFormat;
	readonly compression: ParquetCompression | undefined;
	readonly rowGroupRows: number | undefined;
}

export interface ExportPlan {
	readonly open: OpenPlan;
	readonly read: ReadPlan;
	readonly columns: ColumnsPlan;
	readonly output: OutputPlan;
}

/** Checks and normalizes the options of an export, before anything is read: the one place they are checked. */
export function planExport(options: ExportOptions = {}): ExportPlan {
	const format = options.format ?? "arrow";
	if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`invalid format ${JSON.stringify(format)}: choose one of ${OUTPUT_FORMATS.join(", ")}`, { option: "format", value: format });
	const conversion = normalizeConversionOptions(options);
	const timezone = canonicalTimezone(options.timezone);
	const { concurrency, columns } = options;
	if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
		throw new UsageError(`invalid concurrency ${concurrency}: must be an integer >= 1`, { option: "concurrency", value: concurrency });
	}
	const order = options.order ?? "c";
	if (!ROW_ORDERS.includes(order)) throw new UsageError(`invalid order ${JSON.stringify(order)}: choose one of ${ROW_ORDERS.join(", ")}`, { option: "order", value: order });
	const index = options.index ?? false;
	if (order === "chunk" && !index) throw new UsageError("order chunk needs index columns: rows out of C order must say where they come from", { option: "order", value: order });
	if (options.column !== undefined && columns !== undefined) throw new UsageError("column conflicts with columns: the columns of a table are named after their arrays", { option: "column" });
	// Each store option by name: a new one is added here, as the other parts' are.
	const { headers, retries, bufferPool, signRequests, env } = options;
	return {
		open: {
			store: { headers, retries, bufferPool, signRequests, env },
			cf: { cf: options.cf ?? true, convertCalendar: options.convertCalendar ?? false, unit: conversion.unit },
			...(columns === undefined ? { array: options.array } : { group: options.group ?? options.array, columns }),
		},
		read: { order, concurrency, onChunk: options.onChunk },
		columns: { conversion, timezone, column: options.column, index, secondsAsMillis: format === "parquet" },
		output: { format, compression: options.compression, rowGroupRows: options.rowGroupRows },
	};
}
