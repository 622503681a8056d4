import { Transform, type TransformCallback } from "node:stream";
import { RecordBatchFileWriter, RecordBatchStreamWriter, type RecordBatch, type RecordBatchWriter, type Schema } from "apache-arrow";

export type IpcFormat = "file" | "stream";

/**
 * Arrow IPC bytes from RecordBatches: the file format (`.arrow`, with footer) or the stream format
 * (`.arrows`). apache-arrow's writer queues the encoded messages; they are pushed out as they come, so
 * nothing but the footer's block list accumulates.
 */
export class IpcWriter extends Transform {
	readonly #writer: RecordBatchWriter;
	readonly #drained: Promise<void>;

	constructor(format: IpcFormat, schema?: Schema) {
		super({ writableObjectMode: true, readableObjectMode: false, writableHighWaterMark: 1 });
		const writer: RecordBatchWriter = format === "file" ? new RecordBatchFileWriter() : new RecordBatchStreamWriter();
		if (schema) writer.reset(undefined, schema);
		this.#writer = writer;
		this.#drained = (async () => {
			for await (const bytes of writer) this.push(bytes);
		})();
		this.#drained.catch((error: unknown) => this.destroy(error as Error));
	}

	override _transform(batch: RecordBatch, _encoding: BufferEncoding, callback: TransformCallback): void {
		try {
			this.#writer.write(batch);
		} catch (error) {
			callback(error as Error);
			return;
		}
		callback();
	}

	override _flush(callback: TransformCallback): void {
		this.#writer.finish();
		this.#writer.close();
		this.#drained.then(() => callback(), (error: unknown) => callback(error as Error));
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		this.#writer.abort();
		callback(error);
	}
}
