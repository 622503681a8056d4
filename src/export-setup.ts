/**
 * What an export needs before any Arrow code: its options checked and normalized, the table opened, and the chunk
 * reader. Nothing here imports apache-arrow, so the CLI can start reading and decoding chunks while the Arrow
 * stages (export.ts) are still being loaded.
 */
import * as os from "node:os";
import { normalizeConversionOptions, type ConversionOptions, type NormalizedConversionOptions } from "./convert/options.js";
import { canonicalTimezone } from "./arrow/timezone.js";
import { UsageError } from "./errors.js";
import { isCfTimeArray, openCfTimeArray } from "./cf/cf-time-array.js";
import { columnNameFor, locateTimeArray, openLocatedTimeArray, whereIs, type OpenArrayOptions, type TimeArray } from "./open-array.js";
import { openTable, tableOfCfTimeArray, tableOfTimeArray, type OpenTableOptions, type ZarrTable } from "./open-table.js";
import type { OpenedStore } from "./store/open-store.js";
import { ChunkReader } from "./stream/chunk-reader.js";
import type { ParquetCompression } from "./stream/parquet-writer.js";
import { ROW_ORDERS, type RowOrder } from "./stream/table-reader.js";

export type OutputFormat = "arrow" | "arrow-stream" | "parquet";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["arrow", "arrow-stream", "parquet"];
export const FILE_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { arrow: "arrow", "arrow-stream": "arrows", parquet: "parquet" };

export interface ExportOptions extends ConversionOptions {
	format?: OutputFormat;
	/**
	 * Timezone of the Arrow timestamps; null (naive, like numpy) by default. An IANA name, written in its canonical
	 * spelling (`europe/paris` → `Europe/Paris`), or an offset `+HH:MM`; anything else is a UsageError.
	 */
	timezone?: string | null;
	/** Column name; defaults to the array's name. */
	column?: string;
	concurrency?: number;
	rowGroupRows?: number;
	compression?: ParquetCompression;
	onChunk?: (chunkIndex: number, totalChunks: number) => void;
}

export interface NormalizedExportOptions {
	format: OutputFormat;
	conversion: NormalizedConversionOptions;
	/** Canonical (see canonicalTimezone), or null. */
	timezone: string | null;
	/** Undefined: the store's default (defaultConcurrency). */
	concurrency: number | undefined;
}

/**
 * Chunks read and decoded at once when `concurrency` is not given: remote reads wait on latency, so 8; local ones
 * (a folder or a zip file) on the inflate threads of libuv's pool, so one per core, 2 to 4 (the pool's 4 threads).
 * More chunks in flight than cores inflate no faster and hold a chunk of memory each (measured on 2 cores,
 * 50M gzip values: 4 in flight 0.84 s at 133 MiB peak, 2 in flight 0.85 s at 97 MiB).
 */
export function defaultConcurrency(store: Pick<OpenedStore, "remote">): number {
	return store.remote ? 8 : Math.min(4, Math.max(2, os.availableParallelism()));
}

/**
 * Checks and normalizes the options that need no store: called before a store is opened (by `exportArray`,
 * `exportTable` and the CLI), and again by the stages, which may be built from any options.
 */
export function normalizeExportOptions(options: ExportOptions): NormalizedExportOptions {
	const format = options.format ?? "arrow";
	if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`invalid format ${JSON.stringify(format)}: choose one of ${OUTPUT_FORMATS.join(", ")}`, { option: "format", value: format });
	const conversion = normalizeConversionOptions(options);
	const timezone = canonicalTimezone(options.timezone);
	const { concurrency } = options;
	if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
		throw new UsageError(`invalid concurrency ${concurrency}: must be an integer >= 1`, { option: "concurrency", value: concurrency });
	}
	return { format, conversion, timezone, concurrency };
}

export interface TableExportOptions extends ExportOptions {
	/** One int64 column per dimension, before the value columns, saying where each row comes from. */
	index?: boolean;
	/** `c` (default): numpy `ravel()` order. `chunk` (needs `index`): chunk by chunk, without assembling rows of chunks. */
	order?: RowOrder;
}

/** Checks the table options that need no store: called before a store is opened, and again by the stages. */
export function checkTableOptions(options: TableExportOptions & { columns?: readonly string[] }): { index: boolean; order: RowOrder } {
	const order = options.order ?? "c";
	if (!ROW_ORDERS.includes(order)) throw new UsageError(`invalid order ${JSON.stringify(order)}: choose one of ${ROW_ORDERS.join(", ")}`, { option: "order", value: order });
	const index = options.index ?? false;
	if (order === "chunk" && !index) throw new UsageError("order chunk needs index columns: rows out of C order must say where they come from", { option: "order", value: order });
	if (options.column !== undefined && options.columns !== undefined) throw new UsageError("column conflicts with columns: the columns of a table are named after their arrays", { option: "column" });
	return { index, order };
}

/**
 * Opens a table: the `columns` of the group `group` (the store root by default), or without `columns` the
 * store's time array (found as `locateTimeArray` does, `array` naming it) as a one-column table.
 */
export async function openExportTable(store: string, options: Partial<OpenTableOptions> & OpenArrayOptions): Promise<ZarrTable> {
	if (options.columns !== undefined) return openTable(store, { ...options, columns: options.columns, group: options.group ?? options.array });
	const source = await openExportSource(store, options);
	return "table" in source ? source.table : tableOfTimeArray(source.array);
}

/**
 * The one time array of an export without `columns`: a datetime64 (or timedelta64) array, exported by its own
 * stages, or a CF time array, exported as a one-column table (its numbers are decoded by the table's CF column).
 */
export async function openExportSource(store: string, options: OpenArrayOptions): Promise<{ readonly array: TimeArray } | { readonly table: ZarrTable }> {
	const located = await locateTimeArray(store, options);
	if (options.cf === false || !isCfTimeArray(located.node)) return { array: openLocatedTimeArray(located, options) };
	const array = await openCfTimeArray(located.opened.store, located.node, whereIs(located), options);
	return { table: tableOfCfTimeArray(located.opened, array, columnNameFor(store, located.arrayPath)) };
}

/** The chunk reader of a single-array export, which can start before the rest of its stages exist. */
export function createChunkReader(array: TimeArray, options: ExportOptions = {}): ChunkReader {
	const { concurrency } = normalizeExportOptions(options);
	return new ChunkReader(array.chunks, array.metadata.shape, { concurrency: concurrency ?? defaultConcurrency(array.store), onChunk: options.onChunk });
}
