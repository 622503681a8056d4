/**
 * Bytes of rows said dead to a pool, by row: kept apart from batch-buffers.ts (which reads Arrow's types) so that the
 * chunk reader, loaded before apache-arrow is, can use it.
 */
import type { BufferPool } from "./buffer-pool.js";

/**
 * Says dead the bytes of the rows outside [from, to) of `values`, rows of `rowBytes` bytes each (a batch's column, or
 * a chunk's values of which a band takes some rows).
 */
export function releaseRowBytesOutside(pool: BufferPool, values: ArrayBufferView, rowBytes: number, from: number, to: number): void {
	const rows = values.byteLength / rowBytes;
	if (from > 0) pool.release(new Uint8Array(values.buffer, values.byteOffset, from * rowBytes));
	if (to < rows) pool.release(new Uint8Array(values.buffer, values.byteOffset + to * rowBytes, (rows - to) * rowBytes));
}
