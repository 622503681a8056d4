/**
 * A zip's central directory is read when the store is opened, and each of its entries held in a compact index (see
 * zip-index.ts): a zip someone else made could claim millions, or a directory of gigabytes. Its entry count, as the
 * zip64 end record states it, and the directory's size are refused past these bounds before the directory is read
 * (zip-central-directory.ts), let alone its entries kept.
 */
import { Dt64ExportError } from "../errors.js";

/** Entries a zip store may list. */
export const MAX_ZIP_ENTRIES = 1_000_000;
/** The largest central directory read: a million entries of keys up to about 200 characters. */
export const MAX_ZIP_DIRECTORY_BYTES = 256 * 2 ** 20;

const WHY = "a limit of this tool: about 80 bytes of memory each once read";

export function tooManyEntries(shownAs: string, count: bigint): Dt64ExportError {
	return new Dt64ExportError("TOO_LARGE", `${shownAs}: its central directory lists ${count} entries, more than the ${MAX_ZIP_ENTRIES} a zip store may hold (${WHY}); unzip it and export the folder`, {
		path: shownAs,
		value: MAX_ZIP_ENTRIES,
	});
}
