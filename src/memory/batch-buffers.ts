import type { RecordBatch } from "apache-arrow";
import type { BufferPool } from "./buffer-pool.js";

/**
 * Says dead the value and validity buffers of a batch's columns, once a writer that copies what it encodes (the
 * Parquet writer, into WebAssembly) is done with the batch: those of the pool (a chunk converted in place, a slice
 * of a band, an index column, a bitmap) come back for the next chunks, as a file gives back what it has written.
 */
export function releaseBatchBuffers(pool: BufferPool, batch: RecordBatch): void {
	for (const column of batch.data.children) {
		for (const buffer of [column.values, column.nullBitmap] as unknown[]) {
			if (ArrayBuffer.isView(buffer)) pool.release(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
		}
	}
}
