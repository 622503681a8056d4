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
import { type Data, makeData, RecordBatch, type Schema, Struct, util } from "apache-arrow";
import { checkOwnRecordBatch } from "../../arrow/own-record-batch.js";
import { optionsArgument } from "../../call-arguments.js";
import { Dt64ExportError } from "../../errors.js";
import { releaseBatchBuffers } from "../../memory/batch-buffers.js";
import type { BufferPool } from "../../memory/buffer-pool.js";
import { BatchFeed, IpcScratch, toWasmBatch } from "./batch-feed.js";
import { footerOfChunks, footerRowCount } from "./footer.js";
import { normalizeOptions, type ParquetSettings, type ParquetWriterOptions } from "./options.js";
import { loadParquetWasm, type ParquetWasm } from "./parquet-wasm.js";
import { valueBytes } from "./row-group-size.js";
import { isSeconds, parquetSchema, writerProperties, type TimeType } from "./schema.js";
import { secondsToMillis } from "./seconds-to-millis.js";

/**
 * Rows per slice handed to wasm at most. Each slice is copied twice (IPC bytes into a scratch buffer, then into wasm
 * memory), so this bounds the extra memory for a multi-million-row input batch; at 64 Ki rows the per-slice overhead
 * is noise.
 */
const SLICE_ROWS = 1 << 16;

/**
 * Bytes of values per slice at most, for a wide table (fewer rows, a multiple of 1,024): wasm memory grows to hold
 * the largest and never shrinks. 30 float32 variables and 3 index columns (136 bytes a row) at 64 Ki rows made
 * slices of 9 MB; at 15,360 rows the export's peak RSS was 50 MB lower. Tables of a few columns keep 64 Ki rows.
 */
const SLICE_BYTES = 2 * 2 ** 20;

/** The rows of a slice of batches of `schema`: SLICE_ROWS, fewer when a row is wider than SLICE_BYTES allows. */
function sliceRowsFor(schema: Schema): number {
	const rowBytes = schema.fields.reduce((sum, field) => sum + valueBytes(field.type), 0);
	const rows = Math.floor(SLICE_BYTES / Math.max(1, rowBytes));
	return rows >= SLICE_ROWS ? SLICE_ROWS : Math.max(1024, rows - (rows % 1024));
}

function asError(error: unknown, context: string): Error {
	if (error instanceof Error) return error instanceof Dt64ExportError ? error : new Dt64ExportError("WRITE_FAILED", `${context}: ${error.message}`, { cause: error });
	return new Dt64ExportError("WRITE_FAILED", `${context}: ${String(error)}`, { cause: error });
}

export class ParquetWriter extends Transform {
	private readonly options: ParquetSettings;
	/** Schema of the first batch (as received), which every later batch must match. */
	private inputSchema: Schema | undefined;
	/** Schema actually written (seconds turned into milliseconds). */
	private outputSchema: Schema | undefined;
	private rowsIn = 0;
	/** Rows per slice fed to wasm (see sliceRowsFor), set with the first batch's schema. */
	private sliceRows = SLICE_ROWS;
	private schemaSent = false;
	private feed: BatchFeed | undefined;
	private output: ReadableStreamDefaultReader<Uint8Array> | undefined;
	private pumped: Promise<void> | undefined;
	/** Output read after the input was closed: it ends with the whole footer. */
	private tail: Buffer[] | undefined;
	private resumeOutput: (() => void) | undefined;
	private readonly scratch = new IpcScratch();

	/**
	 * `bufferPool`: a batch's buffers are handed back to it once the batch is copied into WebAssembly (see
	 * releaseBatchBuffers); only for batches no one else reads afterwards, as an export's own.
	 */
	constructor(
		options: ParquetWriterOptions = {},
		private readonly bufferPool?: BufferPool,
	) {
		// One buffered batch: the default object-mode high-water mark (16) would queue up to 16 batches.
		super({ writableObjectMode: true, writableHighWaterMark: 1, readableObjectMode: false });
		this.options = normalizeOptions(optionsArgument(options));
		bufferPool?.expectWrittenBack();
	}

	override _transform(batch: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
		this.writeBatch(batch).then(
			() => {
				if (this.bufferPool !== undefined) releaseBatchBuffers(this.bufferPool, batch as RecordBatch);
				callback();
			},
			(error: unknown) => callback(asError(error, "cannot write Parquet")),
		);
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
		checkOwnRecordBatch(batch, "Parquet writer");
		const feed = this.feed ?? this.start(await loadParquetWasm(), batch.schema);
		const inputSchema = this.inputSchema as Schema;
		const sameSchema: boolean = util.compareSchemas(inputSchema, batch.schema);
		if (!sameSchema) {
			throw new Dt64ExportError("USAGE", `record batch schema ${batch.schema.fields.join(", ")} differs from the first batch's ${inputSchema.fields.join(", ")}`);
		}
		// An empty batch only matters as the first one: it gives the file its schema.
		if (batch.numRows === 0 && this.schemaSent) return;
		const sliceRows = this.sliceRows;
		for (let begin = 0; ; begin += sliceRows) {
			const end = Math.min(begin + sliceRows, batch.numRows);
			await feed.whenDemanded();
			feed.enqueue(toWasmBatch(await loadParquetWasm(), this.scratch, this.toOutputBatch(batch, begin, end)));
			this.schemaSent = true;
			this.rowsIn += end - begin;
			if (end === batch.numRows) return;
		}
	}

	private start(wasm: ParquetWasm, schema: Schema): BatchFeed {
		this.inputSchema = schema;
		this.outputSchema = parquetSchema(schema);
		this.sliceRows = sliceRowsFor(this.outputSchema);
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
		const rows = footerRowCount(footerOfChunks(this.tail));
		this.tail = undefined;
		if (rows !== this.rowsIn) {
			throw new Dt64ExportError("INTERNAL", `parquet-wasm wrote ${rows} rows instead of ${this.rowsIn}`);
		}
	}
}

export function createParquetWriter(options?: ParquetWriterOptions, bufferPool?: BufferPool): ParquetWriter {
	return new ParquetWriter(options, bufferPool);
}
