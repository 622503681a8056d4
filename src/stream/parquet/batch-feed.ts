/** The web-stream side of parquet-wasm's `transformParquetStream`: what feeds it batches. */
import { AsyncByteQueue, RecordBatchStreamWriter, type RecordBatch } from "apache-arrow";
import type { RecordBatch as WasmRecordBatch } from "parquet-wasm/node";
import { Dt64ExportError } from "../../errors.js";
import type { ParquetWasm } from "./parquet-wasm.js";

/**
 * The input side of `transformParquetStream`: a web ReadableStream the wasm writer pulls from. A slice is only
 * created (and copied into wasm) once the writer asks for one, which is what carries backpressure upstream.
 */
export class BatchFeed {
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

/**
 * A batch's Arrow IPC stream bytes (schema, batch, end of stream), written into one buffer kept from batch to batch:
 * `tableToIPC` gives the same bytes in a new buffer each time, half a megabyte per 64 Ki-row slice of a timestamp
 * column that is garbage as soon as wasm has copied it.
 */
export class IpcScratch extends AsyncByteQueue {
	#bytes = new Uint8Array(0);
	#length = 0;
	readonly #writer = new RecordBatchStreamWriter();

	override write(piece: Uint8Array): void {
		const length = this.#length + piece.byteLength;
		if (length > this.#bytes.byteLength) {
			const grown = new Uint8Array(Math.max(length, 2 * this.#bytes.byteLength));
			grown.set(this.#bytes.subarray(0, this.#length));
			this.#bytes = grown;
		}
		this.#bytes.set(piece, this.#length);
		this.#length = length;
	}

	/** The bytes, valid until the next call. */
	encode(batch: RecordBatch): Uint8Array {
		this.#length = 0;
		// reset with a schema starts a stream (its schema message); reset without one ends it (the end-of-stream marker).
		this.#writer.reset(this, batch.schema);
		this.#writer.write(batch);
		this.#writer.reset();
		return this.#bytes.subarray(0, this.#length);
	}
}

export function toWasmBatch(wasm: ParquetWasm, scratch: IpcScratch, batch: RecordBatch): WasmRecordBatch {
	const table = wasm.Table.fromIPCStream(scratch.encode(batch));
	try {
		const wasmBatch = table.recordBatch(0);
		if (wasmBatch === undefined) throw new Dt64ExportError("INTERNAL", "parquet-wasm lost a record batch");
		return wasmBatch;
	} finally {
		table.free();
	}
}
