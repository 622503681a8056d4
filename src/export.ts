import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schema } from "apache-arrow";
import { int64Field, plainArrowField } from "./arrow/column-types.js";
import { arrowTimeField } from "./arrow/time-field.js";
import type { NormalizedConversionOptions } from "./convert/options.js";
import { resolveTargetUnit } from "./convert/plan.js";
import type { Datetime64Type } from "./dtype/datetime64.js";
import { Dt64ExportError, errorInContext, UsageError } from "./errors.js";
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
import type { OpenTableOptions, TableColumn, ZarrTable } from "./open-table.js";
import type { ChunkReader } from "./stream/chunk-reader.js";
import { IpcWriter, SMALL_PIECE_BYTES } from "./stream/ipc-writer.js";
import { createParquetWriter } from "./stream/parquet-writer.js";
import { TableBatcher, type TableColumnPlan } from "./stream/table-batcher.js";
import { TableReader, type BroadcastSource } from "./stream/table-reader.js";
import { TimestampBatcher } from "./stream/timestamp-batcher.js";
import { CF_DECODED_KEY, cfTimeKind, cfValuesKind, datetime64Kind, plainKind, type ColumnKind } from "./table/column-kinds.js";
import { cfTimeKindOf, parseCfTimeCoding, type CfTimeCoding } from "./cf/cf-time-coding.js";
import { baseCfTargetUnit } from "./cf/cf-target-unit.js";
import { cfMissingValueMarkers, type MissingValueMarkers } from "./cf/missing-value.js";
import type { TargetUnit } from "./dtype/units.js";
import { isMaskableType, maskRuleOf } from "./cf/masking.js";
import { packingRuleOf } from "./cf/packing.js";

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

/** How one array's stored values become its column: the time conversion, CF masking and unpacking, or as stored. */
function columnKindOf(column: TableColumn, name: string, normalized: NormalizedExportOptions, options: TableExportOptions): ColumnKind {
	if (column.kind === "time") {
		const source = column.metadata.dataType;
		const conversion = conversionFor(source, normalized);
		const field = arrowTimeField({ name, kind: source.kind, unit: resolveTargetUnit(source, conversion.unit), timezone: normalized.timezone, zarrDataType: column.metadata.rawDataType });
		return datetime64Kind(field, source, conversion);
	}
	const { metadata } = column;
	const storedField = plainArrowField(name, metadata.dataType.name, metadata.rawDataType);
	const type = metadata.dataType.name;
	if (options.cf === false || !isMaskableType(type)) return plainKind(storedField);
	if (cfTimeKindOf(metadata.attributes) !== undefined) return cfTimeColumnKind(column as Extract<TableColumn, { kind: "plain" }>, name, normalized, options);
	const mask = maskRuleOf({ name: metadata.path, type, zarrFormat: metadata.zarrFormat, attributes: metadata.attributes, fillValue: metadata.fillValue });
	const packing = packingRuleOf(metadata.path, type, metadata.attributes);
	const nanAsNull = options.nanAsNull === true && (type === "float32" || type === "float64" || packing !== undefined);
	if (mask === undefined && packing === undefined && !nanAsNull) return plainKind(storedField);
	return cfValuesKind({ name, storedType: type, zarrDataType: metadata.rawDataType, attributes: metadata.attributes, mask, packing, nanAsNull, storedField });
}

/**
 * A CF time column: decoded exactly by cf's core. `--unit auto` is the coarsest unit the units and reference need
 * (see baseCfTargetUnit); for float counts, whose fractions are not known before they are read, nanoseconds.
 * Parquet has no seconds unit: milliseconds there, as for datetime64.
 */
function cfTimeColumnKind(column: Extract<TableColumn, { kind: "plain" }>, name: string, normalized: NormalizedExportOptions, options: TableExportOptions): ColumnKind {
	const { metadata } = column;
	const type = metadata.dataType.name;
	let coding: CfTimeCoding;
	let markers: MissingValueMarkers;
	try {
		coding = parseCfTimeCoding(metadata.attributes, { convertCalendar: options.convertCalendar });
		markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: type, attributes: metadata.attributes, fillValue: metadata.fillValue });
	} catch (error) {
		throw errorInContext(`array ${metadata.path}`, error, "METADATA_INVALID", { path: metadata.path });
	}
	const requested = normalized.conversion.unit;
	let unit: TargetUnit = requested !== "auto" ? requested : type === "float32" || type === "float64" ? "ns" : baseCfTargetUnit(coding);
	if (normalized.format === "parquet" && unit === "s") unit = "ms";
	const field = arrowTimeField({ name, kind: coding.kind === "duration" ? "timedelta64" : "datetime64", unit, timezone: coding.kind === "duration" ? null : normalized.timezone, zarrDataType: metadata.rawDataType });
	for (const key of ["units", "calendar"]) if (typeof metadata.attributes[key] === "string") field.metadata.set(key, metadata.attributes[key] as string);
	field.metadata.set(CF_DECODED_KEY, "true");
	return cfTimeKind(field, coding, markers, { unit, allowTruncate: normalized.conversion.allowTruncate, onOverflow: normalized.conversion.onOverflow, dataType: type });
}

/**
 * The output names of a table's columns, index columns first: dimension names and array names, `--column` for a
 * single array, then `rename`. A rename of no column, or two columns of one name, are refused.
 */
function outputNames(table: ZarrTable, index: boolean, options: TableExportOptions, rename: ReadonlyMap<string, string>): { index: string[]; values: string[] } {
	const indexNames = index ? table.index.map((entry) => entry.name) : [];
	const valueNames = table.columns.map((column) => (table.columns.length === 1 ? (options.column ?? column.name) : column.name));
	const all = [...indexNames, ...valueNames];
	for (const from of rename.keys()) if (!all.includes(from)) throw new UsageError(`rename ${from}: no such column; the columns are ${all.join(", ")}`, { option: "rename", value: from });
	const renamed = (name: string) => rename.get(name) ?? name;
	const names = { index: indexNames.map(renamed), values: valueNames.map(renamed) };
	const seen = new Map<string, string>();
	const describe = [...names.index.map((name, axis) => `the index of dimension ${JSON.stringify(table.index[axis].name)}`), ...table.columns.map((column) => `array ${column.metadata.path || column.name}`)];
	[...names.index, ...names.values].forEach((name, k) => {
		const other = seen.get(name);
		if (other !== undefined) throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `column name ${JSON.stringify(name)} is given to both ${other} and ${describe[k]}`, { option: "rename", value: name });
		seen.set(name, describe[k]);
	});
	return names;
}

/** Builds the reader, batcher and writer for an opened table. Options are validated here, before any read. */
export function createTableExportStages(table: ZarrTable, options: TableExportOptions = {}): TableExportStages {
	const normalized = normalizeExportOptions(options);
	const { index, order, rename } = checkTableOptions(options);
	if (options.column !== undefined && table.columns.length > 1) throw new UsageError("column names a single array's column; the columns of a table are named after their arrays", { option: "column" });
	const names = outputNames(table, index, options, rename);
	const readerColumns: BroadcastSource[] = [];
	const valuePlan = (column: TableColumn, name: string): TableColumnPlan => {
		const decoder = columnKindOf(column, name, normalized, options);
		readerColumns.push({ source: column.chunks, shape: column.metadata.shape, axes: column.axes });
		return { kind: "values", field: decoder.field, decoder, band: readerColumns.length - 1, name: column.metadata.path || column.name, shape: column.metadata.shape, axes: column.axes };
	};
	const plans: TableColumnPlan[] = [];
	if (index) {
		table.index.forEach((entry, axis) => {
			const name = names.index[axis];
			plans.push(entry.kind === "positions" ? { kind: "positions", field: int64Field(name), axis } : valuePlan(entry.column, name));
		});
	}
	table.columns.forEach((column, k) => plans.push(valuePlan(column, names.values[k])));
	const reader = new TableReader(readerColumns, table.shape, { order, concurrency: normalized.concurrency ?? defaultConcurrency(table.store), onChunk: options.onChunk });
	const batcher = new TableBatcher({ columns: plans, shape: table.shape });
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
