import type { AbsolutePath } from "./readable.js";
import { Dt64ExportError } from "../errors.js";
import type { HttpStore } from "./http-store.js";

/**
 * The bytes of a remote .zip file for unzipit, read by HTTP Range through `HttpStore`, so that a zip store gets
 * the same retries, header handling, credentials and redacted messages as a folder store over HTTP or in a bucket.
 * (@zarrita/storage's own reader does not retry, and its errors print the URL with its query string.) It is a
 * `ZipFileStore` reader by shape (checked where open-store.ts hands it over), not by an `implements` clause, so that
 * this declaration does not import @zarrita/storage (see readable.ts).
 */
export class HttpZipReader {
	#length: Promise<number> | undefined;

	/** `folder` holds the file `key`; `shownAs` names the file in messages (redacted). */
	constructor(
		readonly folder: HttpStore,
		readonly key: AbsolutePath,
		readonly shownAs: string,
	) {}

	getLength(): Promise<number> {
		this.#length ??= this.#size();
		return this.#length;
	}

	async read(offset: number, length: number): Promise<Uint8Array<ArrayBuffer>> {
		if (length === 0) return new Uint8Array(0);
		const bytes = await this.folder.getRange(this.key, { offset, length });
		if (bytes === undefined) throw new Dt64ExportError("READ_FAILED", `${this.shownAs}: not found (HTTP 404)`, { path: this.shownAs });
		if (bytes.length !== length) {
			throw new Dt64ExportError("READ_FAILED", `${this.shownAs}: got ${bytes.length} bytes at offset ${offset}, expected ${length}`, { path: this.shownAs });
		}
		return new Uint8Array(bytes);
	}

	/** unzipit reads the central directory from the end: it needs the size first. */
	async #size(): Promise<number> {
		const size = await this.folder.size(this.key);
		if (size === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${this.shownAs} (HTTP 404)`, { path: this.shownAs });
		return size;
	}
}
