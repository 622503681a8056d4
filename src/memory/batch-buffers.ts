import type { RecordBatch } from "apache-arrow";
import { isFixedWidth } from "../arrow/fixed-width.js";
import type { BufferPool } from "./buffer-pool.js";
import { releaseRowBytesOutside } from "./row-bytes.js";

/**
 * Says dead the value and validity buffers of a batch's columns, once a writer that copies what it encodes (the
 * Parquet writer, into WebAssembly) is done with the batch, or a stage that copied the rows it keeps (the time
 * filter): those of the pool (a chunk converted in place, a slice of a band, an index column, a bitmap) come back
 * for the next chunks, as a file gives back what it has written.
 */
export function releaseBatchBuffers(pool: BufferPool, batch: RecordBatch): void {
	for (const column of batch.data.children) {
		for (const buffer of [column.values, column.nullBitmap] as unknown[]) {
			if (ArrayBuffer.isView(buffer)) pool.release(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength));
		}
	}
}

/**
 * Says dead the bytes of the values of rows outside [from, to) of a batch that is written as its slice of those rows
 * (the time filter's): the output says dead the slice's bytes once written, and the chunk buffers then come back
 * whole. Only columns of fixed-width values, whose row r is bytes [r × width, (r + 1) × width) of the values: those of
 * other columns (strings, booleans, bitmaps) cannot be told apart by row, and stay (their buffers are collected).
 */
export function releaseRowsOutside(pool: BufferPool, batch: RecordBatch, from: number, to: number): void {
	const rows = batch.numRows;
	for (const column of batch.data.children) {
		if (!isFixedWidth(column.type) || !ArrayBuffer.isView(column.values) || column.length !== rows) continue;
		const values = column.values as ArrayBufferView;
		if (values.byteLength % rows !== 0) continue;
		releaseRowBytesOutside(pool, values, values.byteLength / rows, from, to);
	}
}
