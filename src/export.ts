import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schema } from "apache-arrow";
import { int64Field, plainArrowField } from "./arrow/column-types.js";
import { arrowTimeField } from "./arrow/time-field.js";
import { cfArrowField } from "./cf/cf-arrow-field.js";
import { cfTargetUnit } from "./cf/cf-time-array.js";
import type { NormalizedConversionOptions } from "./convert/options.js";
import { resolveTargetUnit } from "./convert/plan.js";
import type { Datetime64Type } from "./dtype/datetime64.js";
import { UsageError } from "./errors.js";
import {
	checkTableOptions,
	createChunkReader,
	defaultConcurrency,
	normalizeExportOptions,
	openExportTable,
	type ExportOptions,
	type NormalizedExportOptions,
	type OutputFormat,
	type TableExportOptions,
} from "./export-setup.js";
import { openTimeArray, type OpenArrayOptions, type TimeArray } from "./open-array.js";
import type { OpenTableOptions, ZarrTable } from "./open-table.js";
import type { ChunkReader } from "./stream/chunk-reader.js";
import { IpcWriter, SMALL_PIECE_BYTES } from "./stream/ipc-writer.js";
import { createParquetWriter } from "./stream/parquet-writer.js";
import { TableBatcher, type TableColumnPlan } from "./stream/table-batcher.js";
import { TableReader } from "./stream/table-reader.js";
import { TimestampBatcher } from "./stream/timestamp-batcher.js";
import { indexColumnNames } from "./table/index-names.js";

export {
	checkTableOptions,
	createChunkReader,
	defaultConcurrency,
	FILE_EXTENSIONS,
	normalizeExportOptions,
	openExportTable,
	OUTPUT_FORMATS,
	type ExportOptions,
	type OutputFormat,
	type TableExportOptions,
} from "./export-setup.js";

/** The stages of one export, to pipe with `stream.pipeline` or to use one by one. */
export interface ExportStages {
	readonly reader: ChunkReader;
	readonly batcher: TimestampBatcher;
	readonly writer: Transform;
	readonly array: TimeArray;
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
	return createConversionStages(array, createChunkReader(array, options), options);
}

/** The batcher and writer of a single-array export, around a reader made beforehand (createChunkReader). */
export function createConversionStages(array: TimeArray, reader: ChunkReader, options: ExportOptions = {}): ExportStages {
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
	// The reader's bands are its own decoded chunks, read by no one else: they are converted where they are.
	const pool = array.bufferPool;
	const batcher = new TimestampBatcher({
		field,
		source,
		conversion,
		shape: array.metadata.shape,
		convertInPlace: true,
		// Written whole by the output, a bitmap comes back to the pool as chunks do; small ones are joined with the
		// pieces around them by the IPC writer (a copy), so they would never come back.
		allocateBitmap: pool === undefined ? undefined : (bytes) => (bytes >= SMALL_PIECE_BYTES ? pool.acquire(bytes) : new Uint8Array(bytes)),
	});
	const writer = createWriter(normalized.format, batcher.schema, options);
	// Encoded bytes waiting in the writer mean the destination is behind: a chunk read ahead now would only wait too
	// (measured on 50M gzip values to a file: the worst of nine peaks 108 -> 100 MiB, no slower).
	reader.holdReadAheadWhile(() => writer.readableLength > 0);
	return { reader, batcher, writer, array };
}

/** The stages of a table export (several arrays of one group, or one array with index columns). */
export interface TableExportStages {
	readonly reader: TableReader;
	readonly batcher: TableBatcher;
	readonly writer: Transform;
	readonly table: ZarrTable;
}

/** A CF time column: its unit (Parquet has no seconds, as above), field with provenance, and decoding. */
function cfColumnPlan(name: string, column: Extract<ZarrTable["columns"][number], { kind: "cf-time" }>, normalized: NormalizedExportOptions): TableColumnPlan {
	const { conversion, format } = normalized;
	const chosen = cfTargetUnit(column, conversion.unit);
	const unit = format === "parquet" && chosen === "s" ? "ms" : chosen;
	const { metadata, coding, markers } = column;
	const field = cfArrowField({ name, coding, unit, timezone: normalized.timezone, zarrDataType: metadata.rawDataType, attributes: metadata.attributes });
	return { kind: "cf-time", field, cf: { coding, markers, dataType: metadata.dataType.name, conversion: { ...conversion, unit } } };
}

/** Builds the reader, batcher and writer for an opened table. Options are validated here, before any read. */
export function createTableExportStages(table: ZarrTable, options: TableExportOptions = {}): TableExportStages {
	const normalized = normalizeExportOptions(options);
	const { index, order } = checkTableOptions(options);
	if (options.column !== undefined && table.columns.length > 1) throw new UsageError("column names a single array's column; the columns of a table are named after their arrays", { option: "column" });
	const columns: TableColumnPlan[] = table.columns.map((column) => {
		const name = table.columns.length === 1 ? (options.column ?? column.name) : column.name;
		if (column.kind === "plain") return { kind: "plain", field: plainArrowField(name, column.metadata.dataType.name, column.metadata.rawDataType) };
		if (column.kind === "cf-time") return cfColumnPlan(name, column, normalized);
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
