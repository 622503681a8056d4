import { Dt64ExportError, errorInContext } from "../errors.js";

/**
 * A store's read of `key` (a store key, without its leading `/`) that failed with an error of the library under it
 * (a zip store throws plain Errors: a broken local header, an entry cut short): READ_FAILED after `context`, naming
 * the key. This package's own errors pass as they are, and so does anything once `signal` is aborted (the abort
 * caused it).
 */
export function storeReadFailure(context: string, error: unknown, key: string, signal?: AbortSignal): unknown {
	if (error instanceof Dt64ExportError || signal?.aborted === true) return error;
	return errorInContext(`${context}: cannot read`, error, "READ_FAILED", { key });
}
