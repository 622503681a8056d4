/**
 * Parquet writer stage: Arrow RecordBatches in (object mode), bytes of one Parquet file out.
 *
 * The encoding itself is arrow-rs (through parquet-wasm's `transformParquetStream`): it regroups rows into row
 * groups of exactly `rowGroupRows` and flushes each finished row group to its output, so memory stays at about
 * one encoded row group plus one slice of input. This module adapts it to a Node Transform and closes the gaps
 * measured in parquet-wasm 0.8.0:
 * - Arrow Timestamp(SECOND) is written by arrow-rs as a bare INT64 with no logical type; Parquet has no seconds
 *   unit, so such columns are converted here, exactly, to Timestamp(MILLISECOND) (values * 1000).
 * - Parquet has no duration type at all: arrow-rs writes Arrow Duration as a bare INT64 (no logical or converted
 *   type) and keeps the Arrow type only in the embedded `ARROW:schema`, which Arrow readers (pyarrow, polars,
 *   arrow-rs) restore; DuckDB reads the BIGINT counts. Duration(SECOND) becomes Duration(MILLISECOND) too, so a
 *   Parquet column's unit follows one rule whatever its type (polars has no seconds duration either).
 * - Its async writer ignores write errors and input-stream errors (`let _ = writer.write(..)`) and still writes a
 *   valid footer, so a failure there would yield a shorter, well-formed file. Errors are therefore owned here:
 *   upstream errors destroy this stream, and the footer's row count is checked against the rows fed in.
 * - A batch whose schema differs from the first one crashes the wasm instance (uncaught RangeError), so every
 *   batch is checked against the first schema in JS and re-labelled with it before it crosses into wasm.
 */
import { Transform, type TransformCallback } from "node:stream";
import {
	Bool,
	type Data,
	Duration,
	Field,
	Float,
	Int,
	LargeUtf8,
	makeData,
	RecordBatch,
	Schema,
	Struct,
	Table,
	tableToIPC,
	Timestamp,
	TimeUnit,
	Utf8,
	util,
	type DataType,
} from "apache-arrow";
import type { RecordBatch as WasmRecordBatch, WriterProperties } from "parquet-wasm/node";
import { Dt64ExportError, UsageError } from "../errors.js";

export type ParquetCompression = "zstd" | "snappy" | "gzip" | "none";

export interface ParquetWriterOptions {
	/**
	 * Page compression. Default `zstd`: on delta-encoded timestamps it is the smallest of the fast codecs (gzip is
	 * about as small and up to 3.6x slower; snappy is up to 1.8x larger, none up to 20x).
	 */
	compression?: ParquetCompression;
	/** Rows per row group; the last one holds the remainder. Default 1,048,576 (2^20). */
	rowGroupRows?: number;
}

type ParquetWasm = typeof import("parquet-wasm/node");

/** parquet-wasm is loaded on first use: its module and WebAssembly cost every other export 40 ms of start-up. */
let parquetWasm: Promise<ParquetWasm> | undefined;
function loadParquetWasm(): Promise<ParquetWasm> {
	parquetWasm ??= import("parquet-wasm/node");
	return parquetWasm;
}

interface NormalizedOptions {
	compression: ParquetCompression;
	rowGroupRows: number;
}

const COMPRESSIONS: readonly ParquetCompression[] = ["zstd", "snappy", "gzip", "none"];

function wasmCompression(wasm: ParquetWasm, name: ParquetCompression) {
	const byName = { zstd: wasm.Compression.ZSTD, snappy: wasm.Compression.SNAPPY, gzip: wasm.Compression.GZIP, none: wasm.Compression.UNCOMPRESSED };
	return byName[name];
}

const DEFAULT_ROW_GROUP_ROWS = 1 << 20;

/**
 * Rows per slice handed to wasm. Each slice is copied twice (IPC bytes in JS, then into wasm memory), so this
 * bounds the extra memory for a multi-million-row input batch; at 64 Ki rows the per-slice overhead is noise.
 */
const SLICE_ROWS = 1 << 16;

function normalizeOptions(options: ParquetWriterOptions): NormalizedOptions {
	const compression = options.compression ?? "zstd";
	if (!COMPRESSIONS.includes(compression)) {
		throw new UsageError(`unknown Parquet compression "${String(compression)}" (expected one of: ${COMPRESSIONS.join(", ")})`, { option: "compression", value: compression });
	}
	const rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
	if (!Number.isSafeInteger(rowGroupRows) || rowGroupRows < 1) {
		throw new UsageError(`Parquet rowGroupRows must be a positive integer, got ${String(rowGroupRows)}`, { option: "rowGroupRows", value: rowGroupRows });
	}
	return { compression, rowGroupRows };
}

// ---------------------------------------------------------------------------------------------------------------
// What is written

type TimeType = Timestamp | Duration;

function isTimeType(type: DataType): type is TimeType {
	return type instanceof Timestamp || type instanceof Duration;
}

function isSeconds(type: DataType): type is TimeType {
	return isTimeType(type) && type.unit === TimeUnit.SECOND;
}

/** The same kind of time type, in milliseconds. */
function inMilliseconds(type: TimeType): TimeType {
	return type instanceof Timestamp ? new Timestamp(TimeUnit.MILLISECOND, type.timezone) : new Duration(TimeUnit.MILLISECOND);
}

/**
 * Column types this writer accepts. arrow-rs panics inside wasm on some others (a Union column traps with
 * `RuntimeError: unreachable` in the async writer, out of reach of any catch, and kills the process), so
 * anything not listed, nested types included, is refused before it reaches wasm.
 */
const WRITABLE_TYPES: readonly (abstract new (...args: never[]) => DataType)[] = [Timestamp, Duration, Int, Float, Bool, Utf8, LargeUtf8];

/** The schema written to the file: Timestamp(SECOND) and Duration(SECOND) fields become milliseconds, metadata kept. */
function parquetSchema(schema: Schema): Schema {
	const fields = schema.fields.map((field) => {
		if (!WRITABLE_TYPES.some((type) => field.type instanceof type)) {
			throw new Dt64ExportError("UNSUPPORTED", `column "${field.name}": Arrow type ${String(field.type)} is not supported by the Parquet writer`);
		}
		if (isSeconds(field.type)) return new Field(field.name, inMilliseconds(field.type), field.nullable, field.metadata);
		return field;
	});
	return new Schema(fields, schema.metadata);
}

/**
 * Timestamp (and Duration) columns are written DELTA_BINARY_PACKED without a dictionary: on 20M ns timestamps (1 s steps) it
 * is 2.4x smaller than PLAIN + zstd with 1 ms jitter, ~70x without, no larger on random values, and faster, since
 * arrow-rs otherwise first tries a dictionary that unique timestamps overflow. DuckDB, polars and arrow-rs read it
 * (tested), as do Arrow C++ (pyarrow) and parquet-mr. Other columns keep the arrow-rs defaults.
 */
function writerProperties(wasm: ParquetWasm, schema: Schema, options: NormalizedOptions): WriterProperties {
	let builder = new wasm.WriterPropertiesBuilder().setCompression(wasmCompression(wasm, options.compression)).setMaxRowGroupSize(options.rowGroupRows);
	for (const field of schema.fields) {
		if (isTimeType(field.type)) {
			builder = builder.setColumnDictionaryEnabled(field.name, false).setColumnEncoding(field.name, wasm.Encoding.DELTA_BINARY_PACKED);
		}
	}
	return builder.build();
}

// ---------------------------------------------------------------------------------------------------------------
// Seconds -> milliseconds

const TWO_POW_32 = 4294967296;

/**
 * Multiplies int64 second counts by 1000 on their 32-bit halves: no BigInt per value, exact, and the int64
 * overflow test is exact too (the result fits iff its high word does). Null slots are written as 0.
 * Arrow buffers are little-endian, as is every platform Node runs on.
 */
function secondsToMillis(data: Data<TimeType>, column: string, firstRow: number): Data<TimeType> {
	const { length, offset, nullBitmap } = data;
	const values = data.values as BigInt64Array;
	const source = new Int32Array(values.buffer, values.byteOffset, length * 2);
	const result = new BigInt64Array(length);
	const target = new Int32Array(result.buffer);
	const validity = data.nullCount > 0 ? nullBitmap : undefined;
	for (let i = 0; i < length; i++) {
		if (validity !== undefined) {
			const bit = offset + i;
			if ((validity[bit >> 3] & (1 << (bit & 7))) === 0) continue;
		}
		const low = (source[2 * i] >>> 0) * 1000;
		const carry = Math.floor(low / TWO_POW_32);
		const high = source[2 * i + 1] * 1000 + carry;
		if (high > 0x7fffffff || high < -0x80000000) {
			const seconds = (BigInt(source[2 * i + 1]) << 32n) + BigInt(source[2 * i] >>> 0);
			throw new Dt64ExportError(
				"OVERFLOW",
				`column "${column}": ${seconds} s at row ${firstRow + i} overflows int64 in milliseconds (${data.type instanceof Timestamp ? "Parquet TIMESTAMP(MILLIS)" : "Parquet durations are written in ms"}, Parquet has no seconds unit)`,
			);
		}
		target[2 * i] = low - carry * TWO_POW_32;
		target[2 * i + 1] = high;
	}
	const props = { offset, length, nullCount: data.nullCount, nullBitmap, data: result };
	// Two calls, because makeData's overloads are per type (a union type matches none of them).
	if (data.type instanceof Timestamp) return makeData({ type: new Timestamp(TimeUnit.MILLISECOND, data.type.timezone), ...props });
	return makeData({ type: new Duration(TimeUnit.MILLISECOND), ...props });
}

// ---------------------------------------------------------------------------------------------------------------
// Footer check

/**
 * Reads `num_rows` from a Parquet footer (Thrift compact protocol FileMetaData: 1 version, 2 schema, 3 num_rows).
 * Only what is needed to skip fields 1-2 is implemented; values are read as JS numbers, exact for any count
 * below 2^53 and only skipped otherwise.
 */
export function footerRowCount(file: Buffer): number {
	const invalid = (what: string) => new Dt64ExportError("INTERNAL", `parquet-wasm produced an invalid Parquet file (${what})`);
	if (file.length < 12 || file.toString("latin1", file.length - 4) !== "PAR1") throw invalid("no footer");
	const footerLength = file.readUInt32LE(file.length - 8);
	if (footerLength + 8 > file.length) throw invalid("truncated footer");
	const bytes = file.subarray(file.length - 8 - footerLength, file.length - 8);
	let position = 0;
	const byte = (): number => {
		if (position >= bytes.length) throw invalid("footer ends early");
		return bytes[position++];
	};
	const varint = (): number => {
		let value = 0;
		for (let scale = 1; ; scale *= 128) {
			const b = byte();
			value += (b & 0x7f) * scale;
			if (b < 0x80) return value;
		}
	};
	const zigzag = (): number => {
		const n = varint();
		return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
	};
	const skip = (type: number): void => {
		switch (type) {
			case 1: // true
			case 2: // false
				return;
			case 3: // i8
				position += 1;
				return;
			case 4: // i16
			case 5: // i32
			case 6: // i64
				varint();
				return;
			case 7: // double
				position += 8;
				return;
			case 8: {
				// binary; the length is read before `position` is (`position += varint()` would add to the old value)
				const length = varint();
				position += length;
				return;
			}
			case 9: // list
			case 10: {
				// set
				const header = byte();
				const size = header >> 4 === 15 ? varint() : header >> 4;
				const elementType = header & 0x0f;
				for (let i = 0; i < size; i++) {
					if (elementType === 1 || elementType === 2) position += 1;
					else skip(elementType);
				}
				return;
			}
			case 11: {
				// map
				const size = varint();
				if (size === 0) return;
				const kinds = byte();
				for (let i = 0; i < size; i++) {
					skip(kinds >> 4);
					skip(kinds & 0x0f);
				}
				return;
			}
			case 12: // struct
				for (let field = fieldHeader(0); field.type !== 0; field = fieldHeader(field.id)) skip(field.type);
				return;
			default:
				throw invalid(`unknown Thrift type ${type}`);
		}
	};
	const fieldHeader = (previousId: number): { id: number; type: number } => {
		const header = byte();
		const type = header & 0x0f;
		if (type === 0) return { id: 0, type };
		return { id: header >> 4 === 0 ? zigzag() : previousId + (header >> 4), type };
	};
	for (let field = fieldHeader(0); field.type !== 0; field = fieldHeader(field.id)) {
		if (field.id === 3 && field.type === 6) return zigzag();
		skip(field.type);
	}
	throw invalid("footer has no row count");
}

// ---------------------------------------------------------------------------------------------------------------
// Stream adapter

/**
 * The input side of `transformParquetStream`: a web ReadableStream the wasm writer pulls from. A slice is only
 * created (and copied into wasm) once the writer asks for one, which is what carries backpressure upstream.
 */
class BatchFeed {
	readonly stream: ReadableStream<WasmRecordBatch>;
	private controller!: ReadableStreamDefaultController<WasmRecordBatch>;
	private demanded = false;
	private waiter: { resolve: () => void; reject: (error: Error) => void } | undefined;
	private failure: Error | undefined;

	constructor() {
		this.stream = new ReadableStream<WasmRecordBatch>(
			{
				start: (controller) => {
					this.controller = controller;
				},
				pull: () => {
					this.demanded = true;
					this.waiter?.resolve();
					this.waiter = undefined;
				},
			},
			{ highWaterMark: 0 },
		);
	}

	async whenDemanded(): Promise<void> {
		if (this.failure !== undefined) throw this.failure;
		if (this.demanded) return;
		await new Promise<void>((resolve, reject) => {
			this.waiter = { resolve, reject };
		});
	}

	enqueue(batch: WasmRecordBatch): void {
		this.demanded = false;
		this.controller.enqueue(batch);
	}

	close(): void {
		this.controller.close();
	}

	/** Ends the feed for good: the wasm side sees a failed stream, a waiting producer gets `error`. */
	abort(error: Error): void {
		if (this.failure !== undefined) return;
		this.failure = error;
		this.waiter?.reject(error);
		this.waiter = undefined;
		try {
			this.controller.error(error);
		} catch {
			// already closed by close(): nothing left to signal to the wasm side
		}
	}
}

function toWasmBatch(wasm: ParquetWasm, batch: RecordBatch): WasmRecordBatch {
	const table = wasm.Table.fromIPCStream(tableToIPC(new Table(batch), "stream"));
	try {
		const wasmBatch = table.recordBatch(0);
		if (wasmBatch === undefined) throw new Dt64ExportError("INTERNAL", "parquet-wasm lost a record batch");
		return wasmBatch;
	} finally {
		table.free();
	}
}

function asError(error: unknown, context: string): Error {
	if (error instanceof Error) return error instanceof Dt64ExportError ? error : new Dt64ExportError("WRITE_FAILED", `${context}: ${error.message}`, { cause: error });
	return new Dt64ExportError("WRITE_FAILED", `${context}: ${String(error)}`, { cause: error });
}

export class ParquetWriter extends Transform {
	private readonly options: NormalizedOptions;
	/** Schema of the first batch (as received), which every later batch must match. */
	private inputSchema: Schema | undefined;
	/** Schema actually written (seconds turned into milliseconds). */
	private outputSchema: Schema | undefined;
	private rowsIn = 0;
	private schemaSent = false;
	private feed: BatchFeed | undefined;
	private output: ReadableStreamDefaultReader<Uint8Array> | undefined;
	private pumped: Promise<void> | undefined;
	/** Output read after the input was closed: it contains the whole footer. */
	private tail: Buffer[] | undefined;
	private resumeOutput: (() => void) | undefined;

	constructor(options: ParquetWriterOptions = {}) {
		// One buffered batch: the default object-mode high-water mark (16) would queue up to 16 batches.
		super({ writableObjectMode: true, writableHighWaterMark: 1, readableObjectMode: false });
		this.options = normalizeOptions(options);
	}

	override _transform(batch: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
		this.writeBatch(batch).then(() => callback(), (error: unknown) => callback(asError(error, "cannot write Parquet")));
	}

	override _flush(callback: TransformCallback): void {
		this.finish().then(() => callback(), (error: unknown) => callback(asError(error, "cannot write Parquet")));
	}

	override _read(size: number): void {
		const resume = this.resumeOutput;
		this.resumeOutput = undefined;
		resume?.();
		super._read(size);
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		const reason = error ?? new Dt64ExportError("WRITE_FAILED", "Parquet writer destroyed");
		// Ending both sides lets the wasm task run to completion and drop its writer and buffers.
		this.feed?.abort(reason);
		this.output?.cancel(reason).catch(() => undefined);
		const resume = this.resumeOutput;
		this.resumeOutput = undefined;
		resume?.();
		callback(error);
	}

	private async writeBatch(batch: unknown): Promise<void> {
		if (!(batch instanceof RecordBatch)) {
			throw new Dt64ExportError("USAGE", `Parquet writer expects apache-arrow RecordBatch objects, got ${kindOf(batch)}`);
		}
		const feed = this.feed ?? this.start(await loadParquetWasm(), batch.schema);
		const inputSchema = this.inputSchema as Schema;
		const sameSchema: boolean = util.compareSchemas(inputSchema, batch.schema);
		if (!sameSchema) {
			throw new Dt64ExportError("USAGE", `record batch schema ${batch.schema.fields.join(", ")} differs from the first batch's ${inputSchema.fields.join(", ")}`);
		}
		// An empty batch only matters as the first one: it gives the file its schema.
		if (batch.numRows === 0 && this.schemaSent) return;
		for (let begin = 0; ; begin += SLICE_ROWS) {
			const end = Math.min(begin + SLICE_ROWS, batch.numRows);
			await feed.whenDemanded();
			feed.enqueue(toWasmBatch(await loadParquetWasm(), this.toOutputBatch(batch, begin, end)));
			this.schemaSent = true;
			this.rowsIn += end - begin;
			if (end === batch.numRows) return;
		}
	}

	private start(wasm: ParquetWasm, schema: Schema): BatchFeed {
		this.inputSchema = schema;
		this.outputSchema = parquetSchema(schema);
		const feed = new BatchFeed();
		this.feed = feed;
		const properties = writerProperties(wasm, this.outputSchema, this.options);
		this.pumped = wasm.transformParquetStream(feed.stream, properties).then(
			(stream: ReadableStream<Uint8Array>) => this.pump(stream),
			(error: unknown) => {
				throw asError(error, "parquet-wasm cannot write this schema");
			},
		);
		// Failures surface through the stream (destroy), never as an unhandled rejection.
		this.pumped.catch((error: unknown) => this.destroy(asError(error, "cannot write Parquet")));
		return feed;
	}

	private toOutputBatch(batch: RecordBatch, begin: number, end: number): RecordBatch {
		const schema = this.outputSchema as Schema;
		const slice = begin === 0 && end === batch.numRows ? batch : batch.slice(begin, end);
		const children = slice.data.children.map((column, index) => {
			const field = batch.schema.fields[index];
			return isSeconds(field.type) ? secondsToMillis(column as Data<TimeType>, field.name, this.rowsIn) : column;
		});
		return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: slice.numRows, nullCount: 0, children }));
	}

	private async pump(stream: ReadableStream<Uint8Array>): Promise<void> {
		const reader = stream.getReader();
		this.output = reader;
		for (;;) {
			// Destroyed before or while reading: cancelling lets the wasm task finish instead of waiting forever.
			if (this.destroyed) {
				await reader.cancel().catch(() => undefined);
				return;
			}
			const { done, value } = await reader.read();
			if (done) return;
			if (this.destroyed) continue;
			const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
			this.tail?.push(chunk);
			if (!this.push(chunk)) {
				await new Promise<void>((resolve) => {
					this.resumeOutput = resolve;
				});
			}
		}
	}

	private async finish(): Promise<void> {
		if (this.feed === undefined) {
			throw new Dt64ExportError("USAGE", "no record batches to write: a Parquet file needs at least one (possibly empty) batch for its schema");
		}
		this.tail = [];
		this.feed.close();
		await this.pumped;
		if (this.destroyed) return;
		const rows = footerRowCount(Buffer.concat(this.tail));
		this.tail = undefined;
		if (rows !== this.rowsIn) {
			throw new Dt64ExportError("INTERNAL", `parquet-wasm wrote ${rows} rows instead of ${this.rowsIn}`);
		}
	}
}

function kindOf(value: unknown): string {
	if (value === null) return "null";
	if (typeof value === "object") return value.constructor?.name ?? "object";
	return typeof value;
}

export function createParquetWriter(options?: ParquetWriterOptions): ParquetWriter {
	return new ParquetWriter(options);
}
