import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schema } from "apache-arrow";
import { int64Field, plainArrowField } from "./arrow/column-types.js";
import { arrowTimeField } from "./arrow/time-field.js";
import { canonicalTimezone } from "./arrow/timezone.js";
import { normalizeConversionOptions, type ConversionOptions, type NormalizedConversionOptions } from "./convert/options.js";
import { resolveTargetUnit } from "./convert/plan.js";
import type { Datetime64Type } from "./dtype/datetime64.js";
import { UsageError } from "./errors.js";
import { openTimeArray, type OpenArrayOptions, type TimeArray } from "./open-array.js";
import { openTable, tableOfTimeArray, type OpenTableOptions, type ZarrTable } from "./open-table.js";
import type { OpenedStore } from "./store/open-store.js";
import { ChunkReader } from "./stream/chunk-reader.js";
import { IpcWriter } from "./stream/ipc-writer.js";
import { createParquetWriter, type ParquetCompression } from "./stream/parquet-writer.js";
import { TableBatcher, type TableColumnPlan } from "./stream/table-batcher.js";
import { ROW_ORDERS, TableReader, type RowOrder } from "./stream/table-reader.js";
import { TimestampBatcher } from "./stream/timestamp-batcher.js";
import { indexColumnNames } from "./table/index-names.js";

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

/** The stages of one export, to pipe with `stream.pipeline` or to use one by one. */
export interface ExportStages {
	readonly reader: ChunkReader;
	readonly batcher: TimestampBatcher;
	readonly writer: Transform;
	readonly array: TimeArray;
}

interface NormalizedExportOptions {
	format: OutputFormat;
	conversion: NormalizedConversionOptions;
	/** Canonical (see canonicalTimezone), or null. */
	timezone: string | null;
	/** Undefined: the store's default (defaultConcurrency). */
	concurrency: number | undefined;
}

/**
 * Chunks read and decoded at once when `concurrency` is not given: remote reads wait on latency, local ones (a
 * folder or a zip file) on the inflate threads of libuv's pool.
 */
export function defaultConcurrency(store: Pick<OpenedStore, "remote">): number {
	return store.remote ? 8 : 4;
}

/**
 * Checks and normalizes the options that need no store: called before a store is opened (by `exportArray`,
 * `exportTable` and the CLI), and again by the stages, which may be built from any options.
 */
export function normalizeExportOptions(options: ExportOptions): NormalizedExportOptions {
	const format = options.format ?? "arrow";
	if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`invalid format ${JSON.stringify(format)}: choose one of ${OUTPUT_FORMATS.join(", ")}`);
	const conversion = normalizeConversionOptions(options);
	const timezone = canonicalTimezone(options.timezone);
	const { concurrency } = options;
	if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
		throw new UsageError(`invalid concurrency ${concurrency}: must be an integer >= 1`);
	}
	return { format, conversion, timezone, concurrency };
}

/** The conversion of one time column; Parquet has no seconds unit, so such data is converted to milliseconds by the core, with its overflow rules. */
function conversionFor(source: Datetime64Type, normalized: NormalizedExportOptions): NormalizedConversionOptions {
	const { conversion, format } = normalized;
	return format === "parquet" && resolveTargetUnit(source, conversion.unit) === "s" ? { ...conversion, unit: "ms" } : conversion;
}

function createWriter(format: OutputFormat, schema: Schema, options: ExportOptions): Transform {
	return format === "parquet"
		? createParquetWriter({ compression: options.compression, rowGroupRows: options.rowGroupRows })
		: new IpcWriter(format === "arrow" ? "file" : "stream", schema);
}

/** Builds the reader, batcher and writer for an opened array. Options are validated here, before any read. */
export function createExportStages(array: TimeArray, options: ExportOptions = {}): ExportStages {
	const normalized = normalizeExportOptions(options);
	const source = array.metadata.dataType;
	const conversion = conversionFor(source, normalized);
	const field = arrowTimeField({
		name: options.column ?? array.name,
		kind: source.kind,
		unit: resolveTargetUnit(source, conversion.unit),
		timezone: normalized.timezone,
		zarrDataType: array.metadata.rawDataType,
	});
	const concurrency = normalized.concurrency ?? defaultConcurrency(array.store);
	const reader = new ChunkReader(array.chunks, array.metadata.shape, { concurrency, onChunk: options.onChunk });
	// The reader's bands are its own decoded chunks, read by no one else: they are converted where they are.
	const batcher = new TimestampBatcher({ field, source, conversion, shape: array.metadata.shape, convertInPlace: true });
	return { reader, batcher, writer: createWriter(normalized.format, batcher.schema, options), array };
}

export interface TableExportOptions extends ExportOptions {
	/** One int64 column per dimension, before the value columns, saying where each row comes from. */
	index?: boolean;
	/** `c` (default): numpy `ravel()` order. `chunk` (needs `index`): chunk by chunk, without assembling rows of chunks. */
	order?: RowOrder;
}

/** The stages of a table export (several arrays of one group, or one array with index columns). */
export interface TableExportStages {
	readonly reader: TableReader;
	readonly batcher: TableBatcher;
	readonly writer: Transform;
	readonly table: ZarrTable;
}

/** Checks the table options that need no store: called before a store is opened, and again by the stages. */
export function checkTableOptions(options: TableExportOptions & { columns?: readonly string[] }): { index: boolean; order: RowOrder } {
	const order = options.order ?? "c";
	if (!ROW_ORDERS.includes(order)) throw new UsageError(`invalid order ${JSON.stringify(order)}: choose one of ${ROW_ORDERS.join(", ")}`);
	const index = options.index ?? false;
	if (order === "chunk" && !index) throw new UsageError("--order chunk needs --index: rows out of C order must say where they come from");
	if (options.column !== undefined && options.columns !== undefined) throw new UsageError("--column conflicts with --columns: columns are named after their arrays");
	return { index, order };
}

/** Builds the reader, batcher and writer for an opened table. Options are validated here, before any read. */
export function createTableExportStages(table: ZarrTable, options: TableExportOptions = {}): TableExportStages {
	const normalized = normalizeExportOptions(options);
	const { index, order } = checkTableOptions(options);
	if (options.column !== undefined && table.columns.length > 1) throw new UsageError("--column names a single array's column; with --columns the columns are named after their arrays");
	const columns: TableColumnPlan[] = table.columns.map((column) => {
		const name = table.columns.length === 1 ? (options.column ?? column.name) : column.name;
		if (column.kind === "plain") return { kind: "plain", field: plainArrowField(name, column.metadata.dataType.name, column.metadata.rawDataType) };
		const source = column.metadata.dataType;
		const conversion = conversionFor(source, normalized);
		const field = arrowTimeField({ name, kind: source.kind, unit: resolveTargetUnit(source, conversion.unit), timezone: normalized.timezone, zarrDataType: column.metadata.rawDataType });
		return { kind: "time", field, source, conversion };
	});
	const valueNames = columns.map((column) => column.field.name);
	const indexFields = index ? indexColumnNames(table.columns, table.shape.length, valueNames).map(int64Field) : [];
	const reader = new TableReader(
		table.columns.map((column) => column.chunks),
		table.shape,
		{ order, concurrency: normalized.concurrency ?? defaultConcurrency(table.store), onChunk: options.onChunk },
	);
	const batcher = new TableBatcher({ indexFields, columns, shape: table.shape });
	return { reader, batcher, writer: createWriter(normalized.format, batcher.schema, options), table };
}

/**
 * Opens a table: the `columns` of the group `group` (the store root by default), or without `columns` the
 * store's datetime64 array (found as `openTimeArray` does, `array` naming it) as a one-column table.
 */
export async function openExportTable(store: string, options: Partial<OpenTableOptions> & OpenArrayOptions): Promise<ZarrTable> {
	if (options.columns === undefined) return tableOfTimeArray(await openTimeArray(store, options));
	return openTable(store, { ...options, columns: options.columns, group: options.group ?? options.array });
}

/** One call: opens the table and writes it to `destination`. */
export async function exportTable(store: string, destination: Writable, options: TableExportOptions & Partial<OpenTableOptions> & OpenArrayOptions = {}): Promise<ZarrTable> {
	normalizeExportOptions(options);
	checkTableOptions(options);
	const table = await openExportTable(store, options);
	const { reader, batcher, writer } = createTableExportStages(table, options);
	await pipeline(reader as Readable, batcher, writer, destination);
	return table;
}

/** One call: opens the store's array and writes it to `destination` (a file stream, stdout...). */
export async function exportArray(store: string, destination: Writable, options: ExportOptions & OpenArrayOptions = {}): Promise<TimeArray> {
	normalizeExportOptions(options);
	const array = await openTimeArray(store, options);
	const { reader, batcher, writer } = createExportStages(array, options);
	await pipeline(reader as Readable, batcher, writer, destination);
	return array;
}
