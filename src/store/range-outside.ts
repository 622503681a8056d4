/**
 * A byte range asked of a key past its end (a folder's file, a stored zip entry): CHUNK_CORRUPT, as a store that
 * checks the range itself says it. Its own class, so that the shard reader names it as what it is there (an index
 * entry pointing outside its shard) and leaves the store's other CHUNK_CORRUPT errors of a read as they are (a zip
 * entry's bytes failing its CRC-32 is no index entry's fault).
 */
import { Dt64ExportError, type ErrorOptions } from "../errors.js";

export class RangeOutsideError extends Dt64ExportError {
	constructor(message: string, options: ErrorOptions = {}) {
		super("CHUNK_CORRUPT", message, options);
	}
}
