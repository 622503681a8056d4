/**
 * A zip's central directory is read whole when the store is opened, and each of its entries held as objects, about
 * 2 KB of memory each (measured: 300,000 entries, 664 MB): a zip someone else made could claim millions, or a
 * directory of gigabytes. The bytes unzipit reads the directory through are watched here: its entry count, as the
 * zip64 end record states it, and the directory's size are refused past a bound before the directory is read, let
 * alone its entries made.
 */
import { Dt64ExportError } from "../errors.js";
import type { ZipBytes } from "./zip-store.js";

/** Entries a zip store may list: about 2 GB of memory held for its directory. */
export const MAX_ZIP_ENTRIES = 1_000_000;
/** The largest central directory read: a million entries of keys up to about 200 characters. */
export const MAX_ZIP_DIRECTORY_BYTES = 256 * 2 ** 20;

/**
 * The zip64 end record, which states the entry count of a zip of more than 65,534 entries (the end record's own
 * count, 16 bits, cannot pass that), as a 64-bit number at byte 32; unzipit reads the record's 56 bytes alone.
 */
const ZIP64_END_RECORD_SIGNATURE = 0x06064b50;
const ZIP64_COUNT_AT = 32;

const WHY = "a limit of this tool: about 2 KB of memory each once read";

function tooManyEntries(shownAs: string, count: bigint): Dt64ExportError {
	return new Dt64ExportError("TOO_LARGE", `${shownAs}: its central directory lists ${count} entries, more than the ${MAX_ZIP_ENTRIES} a zip store may hold (${WHY}); unzip it and export the folder`, {
		path: shownAs,
		value: MAX_ZIP_ENTRIES,
	});
}

/**
 * `bytes` as unzipit reads the central directory through them: a read larger than MAX_ZIP_DIRECTORY_BYTES (within the
 * file: one past its end is a broken zip, STORE_INVALID, as the read itself says) is refused before it is made, and a
 * zip64 end record stating more than MAX_ZIP_ENTRIES entries as it is read, before the directory is (TOO_LARGE).
 */
export function boundedDirectoryReads(bytes: ZipBytes, shownAs: string): ZipBytes {
	return {
		getLength: () => bytes.getLength(),
		async read(offset, length, signal) {
			if (length > MAX_ZIP_DIRECTORY_BYTES && offset + length <= (await bytes.getLength())) {
				throw new Dt64ExportError(
					"TOO_LARGE",
					`${shownAs}: its central directory is ${length} bytes, more than the ${MAX_ZIP_DIRECTORY_BYTES / 2 ** 20} MiB a zip store's may take (a limit of this tool); unzip it and export the folder`,
					{ path: shownAs, value: MAX_ZIP_DIRECTORY_BYTES },
				);
			}
			const read = await bytes.read(offset, length, signal);
			const view = new DataView(read.buffer, read.byteOffset, read.byteLength);
			if (read.length >= ZIP64_COUNT_AT + 8 && view.getUint32(0, true) === ZIP64_END_RECORD_SIGNATURE) {
				const count = view.getBigUint64(ZIP64_COUNT_AT, true);
				if (count > BigInt(MAX_ZIP_ENTRIES)) throw tooManyEntries(shownAs, count);
			}
			return read;
		},
	};
}
