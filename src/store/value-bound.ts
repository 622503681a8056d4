import { Dt64ExportError } from "../errors.js";
import type { AbsolutePath } from "./readable.js";

/** A bound on the bytes of a key's value (GetOptions.bound), and what exceeding it is. */
export interface ValueBound {
	readonly bytes: number;
	readonly code: "CHUNK_CORRUPT" | "TOO_LARGE";
	/** Why no more bytes can be right, after "N bytes, ": `more than a chunk of 4 values ... can be encoded to (65572 at most)`. */
	readonly why: string;
}

/** Refuses a value of `size` bytes larger than its bound, before it is read; `name` says where it is (a file, a zip entry). */
export function checkBound(name: string, key: AbsolutePath, size: number, bound: ValueBound | undefined): void {
	if (bound !== undefined && size > bound.bytes) throw new Dt64ExportError(bound.code, `${name}: ${size} bytes, ${bound.why}`, { key: key.slice(1) });
}
