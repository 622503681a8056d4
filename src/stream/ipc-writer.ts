import { Transform, type TransformCallback } from "node:stream";
import { checkOwnRecordBatch } from "../arrow/own-record-batch.js";
import { AsyncByteQueue, RecordBatchFileWriter, RecordBatchStreamWriter, type RecordBatch, type RecordBatchWriter, type Schema } from "apache-arrow";
import { UsageError } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";

export type IpcFormat = "file" | "stream";

/** Pieces below this size (message prefixes, flatbuffer headers, padding, bitmaps) are joined before they are pushed. */
export const SMALL_PIECE_BYTES = 64 * 1024;

/**
 * Receives apache-arrow's encoded bytes synchronously, as the writer produces them. Its default queue is drained
 * by an async iterator, which decouples the bytes from the batch that made them and so defeats backpressure;
 * the writer's `reset(sink)` takes any AsyncByteQueue as its sink (AsyncByteQueue is exported), and this one hands
 * each piece on as it is written.
 */
class PieceCollector extends AsyncByteQueue {
	constructor(readonly onPiece: (bytes: Uint8Array) => void) {
		super();
	}

	override write(value: Uint8Array): void {
		if (value.byteLength > 0) this.onPiece(value);
	}
}

/**
 * Arrow IPC bytes from RecordBatches: the file format (`.arrow`, with footer) or the stream format (`.arrows`).
 * Each batch's bytes are pushed within its own `_transform`, so Node's Transform holds the next batch back while
 * the reader is behind: memory stays at about one batch whatever the speed of the output. Value buffers are
 * pushed as views of the batch (no copy); the small pieces around them are joined into one write. With `pool`, the
 * pieces joined are said dead once copied, as the output says those it writes: a batch's values under
 * SMALL_PIECE_BYTES (a range of a few thousand rows, its rows copied by the time filter or gathered from small chunks)
 * were joined and their buffer never came back.
 */
export class IpcWriter extends Transform {
	readonly #writer: RecordBatchWriter;
	#small: Uint8Array[] = [];
	#smallBytes = 0;

	readonly #pool: BufferPool | undefined;

	constructor(format: IpcFormat, schema?: Schema, pool?: BufferPool) {
		super({ writableObjectMode: true, readableObjectMode: false, writableHighWaterMark: 1 });
		// From JavaScript any string came through, and anything but "file" wrote the stream format.
		if (format !== "file" && format !== "stream") throw new UsageError(`invalid IPC format ${JSON.stringify(format)}: "file" or "stream"`, { option: "format", value: format });
		const writer: RecordBatchWriter = format === "file" ? new RecordBatchFileWriter() : new RecordBatchStreamWriter();
		writer.reset(new PieceCollector((bytes) => this.#collect(bytes)), schema);
		this.#writer = writer;
		this.#pool = pool;
	}

	#collect(bytes: Uint8Array): void {
		if (bytes.byteLength < SMALL_PIECE_BYTES) {
			this.#small.push(bytes);
			this.#smallBytes += bytes.byteLength;
			return;
		}
		this.#pushSmall();
		this.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
	}

	#pushSmall(): void {
		if (this.#smallBytes === 0) return;
		this.push(Buffer.concat(this.#small, this.#smallBytes));
		// Copied: their bytes are dead (a piece of no buffer of the pool is ignored).
		for (const piece of this.#small) this.#pool?.release(piece);
		this.#small = [];
		this.#smallBytes = 0;
	}

	override _transform(batch: RecordBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
		try {
			checkOwnRecordBatch(batch, "Arrow IPC writer");
			this.#writer.write(batch);
			this.#pushSmall();
		} catch (error) {
			callback(error as Error);
			return;
		}
		callback();
	}

	override _flush(callback: TransformCallback): void {
		try {
			this.#writer.finish();
			this.#pushSmall();
			this.#writer.close();
		} catch (error) {
			callback(error as Error);
			return;
		}
		callback();
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		this.#writer.abort();
		callback(error);
	}
}
