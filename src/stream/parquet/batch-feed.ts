/** The web-stream side of parquet-wasm's `transformParquetStream`: what feeds it batches. */
import { Table, tableToIPC, type RecordBatch } from "apache-arrow";
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

export function toWasmBatch(wasm: ParquetWasm, batch: RecordBatch): WasmRecordBatch {
	const table = wasm.Table.fromIPCStream(tableToIPC(new Table(batch), "stream"));
	try {
		const wasmBatch = table.recordBatch(0);
		if (wasmBatch === undefined) throw new Dt64ExportError("INTERNAL", "parquet-wasm lost a record batch");
		return wasmBatch;
	} finally {
		table.free();
	}
}
