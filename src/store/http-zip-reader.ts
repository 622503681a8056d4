import type { AbsolutePath } from "./readable.js";
import { Dt64ExportError } from "../errors.js";
import { WholeObjectTooLarge, type HttpStore } from "./http-store.js";
import { PastEndOfZip } from "./zip-file-bytes.js";

/**
 * The bytes of a remote .zip file (ZipBytes), read by HTTP Range through `HttpStore`, so that a zip store gets
 * the same retries, header handling, credentials and redacted messages as a folder store over HTTP or in a bucket.
 * (@zarrita/storage's own reader does not retry, and its errors print the URL with its query string.)
 */
export class HttpZipReader {
	#length: Promise<number> | undefined;
	/** The whole zip, kept once the server answered a range with all of it (it ignores Range): read from here on. */
	#whole: Uint8Array | undefined;

	/**
	 * `folder` holds the file `key`; `shownAs` names the file in messages (redacted). A read without a
	 * signal of its own goes under `signal` (the store's opening's, OpenStoreOptions.signal), if any.
	 */
	constructor(
		readonly folder: HttpStore,
		readonly key: AbsolutePath,
		readonly shownAs: string,
		readonly signal?: AbortSignal,
	) {}

	getLength(): Promise<number> {
		this.#length ??= this.#size();
		return this.#length;
	}

	/** `signal`: the read's own (a chunk read's), in place of the opening's. */
	async read(offset: number, length: number, signal = this.signal): Promise<Uint8Array<ArrayBuffer>> {
		if (length === 0) return new Uint8Array(0);
		if (this.#length !== undefined) {
			const size = await this.#length;
			if (!(offset >= 0 && length >= 0 && offset + length <= size)) throw new PastEndOfZip(offset, length, size);
		}
		if (this.#whole !== undefined) return this.#fromWhole(offset, length);
		const answer = await this.#readRange(offset, length, signal);
		if (answer === undefined) throw new Dt64ExportError("READ_FAILED", `${this.shownAs}: not found (HTTP 404)`, { path: this.shownAs });
		if (answer.whole !== undefined) {
			this.#keep(answer.whole);
			return this.#fromWhole(offset, length);
		}
		const bytes = answer.bytes;
		if (bytes.length !== length) {
			throw new Dt64ExportError("READ_FAILED", `${this.shownAs}: got ${bytes.length} bytes at offset ${offset}, expected ${length}`, { path: this.shownAs });
		}
		return new Uint8Array(bytes);
	}

	/**
	 * The central directory is read from the end: its size is needed first. Asked with a one-byte range, whose
	 * answer from a server that ignores Range is the whole zip: kept, and every read is then served from it.
	 */
	async #size(): Promise<number> {
		const answer = await this.#readRange(0, 1, this.signal);
		if (answer === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${this.shownAs} (HTTP 404)`, { path: this.shownAs });
		if (answer.whole !== undefined) {
			this.#keep(answer.whole);
			return answer.whole.length;
		}
		// A signed store may not say the size in a range's answer: it asks (HEAD).
		const size = answer.size ?? (await this.folder.size(this.key, { signal: this.signal }));
		if (size === undefined) throw new Dt64ExportError("STORE_NOT_FOUND", `store not found: ${this.shownAs} (HTTP 404)`, { path: this.shownAs });
		return size;
	}

	/**
	 * A range of the zip. A server that ignores Range sends all of it instead: one too large to hold is refused as soon
	 * as its Content-Length (or its body so far) says so, not once downloaded (which, on a slow link, takes as long as
	 * it takes: see HttpStoreOptions.timeoutMs).
	 */
	async #readRange(offset: number, length: number, signal: AbortSignal | undefined) {
		try {
			return await this.folder.readRange(this.key, offset, length, { signal, maxWhole: MAX_WHOLE_ZIP_BYTES });
		} catch (error) {
			if (!(error instanceof WholeObjectTooLarge)) throw error;
			throw this.#tooLarge(`${error.sizeKnown ? "all" : "more than"} ${error.bytes} bytes`);
		}
	}

	#tooLarge(sent: string): Dt64ExportError {
		return new Dt64ExportError(
			"READ_FAILED",
			`${this.shownAs}: the server ignores byte ranges (it sent ${sent} for a range), and a zip over ${MAX_WHOLE_ZIP_BYTES / 2 ** 20} MiB is not held in memory: download it and export the local file`,
			{ path: this.shownAs },
		);
	}

	/**
	 * Keeps the whole zip a server sent for a range (it ignores Range): downloaded once, where each of the export's
	 * reads would download all of it again (65 times for a 133 MB zip of 30M values). One too large to hold is refused.
	 */
	#keep(whole: Uint8Array): void {
		if (whole.length > MAX_WHOLE_ZIP_BYTES) throw this.#tooLarge(`all ${whole.length} bytes`);
		this.#whole = whole;
	}

	#fromWhole(offset: number, length: number): Uint8Array<ArrayBuffer> {
		const whole = this.#whole!;
		if (offset + length > whole.length) {
			throw new Dt64ExportError("READ_FAILED", `${this.shownAs}: ${length} bytes at offset ${offset} are past its end (${whole.length} bytes)`, { path: this.shownAs });
		}
		return whole.slice(offset, offset + length);
	}
}

/** The largest zip kept whole from a server that ignores byte ranges (see HttpZipReader). */
const MAX_WHOLE_ZIP_BYTES = 1024 * 2 ** 20;
