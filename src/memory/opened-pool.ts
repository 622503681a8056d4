import type { BufferPool } from "./buffer-pool.js";

/**
 * The pool a table or an array was opened with (StoreSettings.bufferPool), which its export takes batch memory from
 * too: a field of the package's own stages that the public types (ZarrTable, TimeArray) do not show.
 */
export interface Pooled {
	readonly bufferPool?: BufferPool | undefined;
}

/** The pool `opened` (a table or an array this package opened) was opened with, if any. */
export const poolOf = (opened: object): BufferPool | undefined => (opened as Pooled).bufferPool;
