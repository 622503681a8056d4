/**
 * What an export needs before any Arrow code: its options checked and normalized, the table opened, and the chunk
 * reader. Nothing here imports apache-arrow, so the CLI can start reading and decoding chunks while the Arrow
 * stages (export.ts) are still being loaded.
 */
import * as os from "node:os";
import { normalizeConversionOptions, type ConversionOptions, type NormalizedConversionOptions } from "./convert/options.js";
import { canonicalTimezone } from "./arrow/timezone.js";
import { UsageError } from "./errors.js";
import { openTimeArray, type OpenArrayOptions, type TimeArray } from "./open-array.js";
import { openTable, tableOfTimeArray, type IndexSource, type OpenTableOptions, type ZarrTable } from "./open-table.js";
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
	/**
	 * One index column per dimension, before the value columns, saying where each row comes from: `true` gives each
	 * dimension's coordinate array (decoded) where the group has one, its positions (int64) otherwise, as xarray's
	 * `to_dataframe().reset_index()`; `"positions"` gives positions everywhere.
	 */
	index?: boolean | "positions";
	/** `c` (default): numpy `ravel()` order. `chunk` (needs `index`): chunk by chunk, without assembling rows of chunks. */
	order?: RowOrder;
	/** Output column names to change, old name to new (index and value columns alike). */
	rename?: Readonly<Record<string, string>>;
	/** CF decoding of companion columns (masking, unpacking); true by default, false exports the stored values. */
	cf?: boolean;
	/** NaN in float columns becomes null too; NaN stays NaN by default. */
	nanAsNull?: boolean;
	/** CF time of a model calendar (noleap, 360_day...): each date label as the same proleptic Gregorian label. */
	convertCalendar?: boolean;
}

/** The table options that need no store, checked. */
export interface CheckedTableOptions {
	readonly index: boolean;
	readonly indexSource: IndexSource;
	readonly order: RowOrder;
	readonly rename: ReadonlyMap<string, string>;
}

/** Checks the table options that need no store: called before a store is opened, and again by the stages. */
export function checkTableOptions(options: TableExportOptions & { columns?: readonly string[] | "all" }): CheckedTableOptions {
	const order = options.order ?? "c";
	if (!ROW_ORDERS.includes(order)) throw new UsageError(`invalid order ${JSON.stringify(order)}: choose one of ${ROW_ORDERS.join(", ")}`, { option: "order", value: order });
	const { index = false } = options;
	if (index !== true && index !== false && index !== "positions") throw new UsageError(`invalid index ${JSON.stringify(index)}: true, false or "positions"`, { option: "index", value: index });
	if (order === "chunk" && index === false) throw new UsageError("order chunk needs index columns: rows out of C order must say where they come from", { option: "order", value: order });
	if (options.column !== undefined && options.columns !== undefined) throw new UsageError("column conflicts with columns: the columns of a table are named after their arrays", { option: "column" });
	const rename = new Map<string, string>();
	for (const [from, to] of Object.entries(options.rename ?? {})) {
		if (typeof to !== "string" || to === "") throw new UsageError(`rename ${from}: the new name must be a non-empty string`, { option: "rename", value: to });
		rename.set(from, to);
	}
	return { index: index !== false, indexSource: index === "positions" ? "positions" : "coordinates", order, rename };
}

/** Parses `--rename old=new[,old=new]`. */
export function parseRenameList(text: string): Record<string, string> {
	const renames: Record<string, string> = {};
	for (const pair of text.split(",")) {
		const match = /^([^=]+)=([^=]+)$/.exec(pair.trim());
		if (match === null) throw new UsageError(`rename ${JSON.stringify(text)}: write old=new[,old=new], got ${JSON.stringify(pair)}`, { option: "rename", value: text });
		const [from, to] = [match[1].trim(), match[2].trim()];
		if (from in renames) throw new UsageError(`rename: ${JSON.stringify(from)} is renamed twice`, { option: "rename", value: from });
		renames[from] = to;
	}
	return renames;
}

/**
 * Opens a table: the `columns` of the group `group` (the store root by default), or without `columns` the
 * store's datetime64 array (found as `openTimeArray` does, `array` naming it) as a one-column table.
 */
export async function openExportTable(store: string, options: Partial<OpenTableOptions> & OpenArrayOptions & Pick<TableExportOptions, "index">): Promise<ZarrTable> {
	if (options.columns === undefined) return tableOfTimeArray(await openTimeArray(store, options));
	// Without index columns no coordinate is looked up, and a coordinate named in `columns` stays a value column.
	const indexSource = options.indexSource ?? (options.index === true ? "coordinates" : "positions");
	return openTable(store, { ...options, columns: options.columns, group: options.group ?? options.array, indexSource });
}

/** The chunk reader of a single-array export, which can start before the rest of its stages exist. */
export function createChunkReader(array: TimeArray, options: ExportOptions = {}): ChunkReader {
	const { concurrency } = normalizeExportOptions(options);
	return new ChunkReader(array.chunks, array.metadata.shape, { concurrency: concurrency ?? defaultConcurrency(array.store), onChunk: options.onChunk });
}
