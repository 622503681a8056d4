import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { arrowTimeField } from "./arrow/time-field.js";
import { normalizeConversionOptions, type ConversionOptions } from "./convert/options.js";
import { resolveTargetUnit } from "./convert/plan.js";
import { UsageError } from "./errors.js";
import { openTimeArray, type OpenArrayOptions, type TimeArray } from "./open-array.js";
import { ChunkReader } from "./stream/chunk-reader.js";
import { IpcWriter } from "./stream/ipc-writer.js";
import { createParquetWriter, type ParquetCompression } from "./stream/parquet-writer.js";
import { TimestampBatcher } from "./stream/timestamp-batcher.js";

export type OutputFormat = "arrow" | "arrow-stream" | "parquet";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["arrow", "arrow-stream", "parquet"];
export const FILE_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { arrow: "arrow", "arrow-stream": "arrows", parquet: "parquet" };

export interface ExportOptions extends ConversionOptions {
	format?: OutputFormat;
	/** Timezone of the Arrow timestamps; null (naive, like numpy) by default. */
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

/** Builds the reader, batcher and writer for an opened array. Options are validated here, before any read. */
export function createExportStages(array: TimeArray, options: ExportOptions = {}): ExportStages {
	const format = options.format ?? "arrow";
	if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`invalid format ${JSON.stringify(format)}: choose one of ${OUTPUT_FORMATS.join(", ")}`);
	const conversion = normalizeConversionOptions(options);
	const source = array.metadata.dataType;
	// Parquet has no seconds unit: such data is converted to milliseconds by the core, with its overflow rules.
	if (format === "parquet" && resolveTargetUnit(source, conversion.unit) === "s") conversion.unit = "ms";
	const field = arrowTimeField({
		name: options.column ?? array.name,
		kind: source.kind,
		unit: resolveTargetUnit(source, conversion.unit),
		timezone: options.timezone ?? null,
		zarrDataType: array.metadata.rawDataType,
	});
	// Remote reads wait on latency, local ones on the two inflate threads of libuv's pool.
	const concurrency = options.concurrency ?? (array.store.kind === "directory" ? 4 : 8);
	if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`invalid concurrency ${concurrency}: must be an integer >= 1`);
	const reader = new ChunkReader(array.chunks, array.metadata.shape, { concurrency, onChunk: options.onChunk });
	const batcher = new TimestampBatcher({ field, source, conversion, shape: array.metadata.shape });
	const writer =
		format === "parquet"
			? createParquetWriter({ compression: options.compression, rowGroupRows: options.rowGroupRows })
			: new IpcWriter(format === "arrow" ? "file" : "stream", batcher.schema);
	return { reader, batcher, writer, array };
}

/** One call: opens the store's array and writes it to `destination` (a file stream, stdout...). */
export async function exportArray(store: string, destination: Writable, options: ExportOptions & OpenArrayOptions = {}): Promise<TimeArray> {
	const array = await openTimeArray(store, options);
	const { reader, batcher, writer } = createExportStages(array, options);
	await pipeline(reader as Readable, batcher, writer, destination);
	return array;
}
