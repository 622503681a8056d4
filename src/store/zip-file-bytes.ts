import { close, fstatSync, openSync, read, readSync } from "node:fs";
import { Dt64ExportError, systemErrorReason } from "../errors.js";
import type { ZipBytes } from "./zip-store.js";

/** The largest range read on the calling thread (see ZipFileBytes): a chunk entry or a few of them coalesced. */
const SYNC_READ_MAX_BYTES = 1 << 20;

/** How long the file stays open after its last read: a pause between an export's reads does not reopen it. */
const IDLE_CLOSE_MS = 200;

/**
 * The bytes of a local zip file, read by ranges through one file descriptor: opened at the first read, closed once
 * no read has come for IDLE_CLOSE_MS (a timer that never keeps the process alive), so an export of 100,000 entries
 * opens the file once where a Blob opened, read and closed it twice per entry (a local header, then the data).
 * Small ranges are read on the calling thread at once, as a folder store reads small chunk files: an asynchronous
 * read is a round trip through libuv's thread pool that costs more than reading a page-cache page.
 */
export class ZipFileBytes implements ZipBytes {
	#fd: number | undefined;
	#size: number | undefined;
	#pending = 0;
	#idle: NodeJS.Timeout | undefined;

	constructor(readonly file: string) {}

	async getLength(): Promise<number> {
		return this.#withFile(() => this.#size!);
	}

	async read(offset: number, length: number): Promise<Uint8Array<ArrayBuffer>> {
		if (length === 0) return new Uint8Array(0);
		return this.#withFile(async (fd) => {
			// Asked by the zip's central directory or its end record, which may lie (a size of 0xfffffff0).
			if (!(offset >= 0 && length >= 0 && offset + length <= this.#size!)) throw new PastEndOfZip(offset, length, this.#size!);
			const bytes = new Uint8Array(length);
			let filled = 0;
			while (filled < length) {
				const got = length <= SYNC_READ_MAX_BYTES ? readSync(fd, bytes, filled, length - filled, offset + filled) : await readAsync(fd, bytes, filled, length - filled, offset + filled);
				if (got === 0) break;
				filled += got;
			}
			if (filled !== length) {
				throw new Dt64ExportError("READ_FAILED", `${this.file}: ${length} bytes at offset ${offset} are past its end (${this.#size} bytes)`, { path: this.file });
			}
			return bytes;
		});
	}

	/** Runs `use` with the file open, counted as a pending read so that the idle timer never closes it under a read. */
	async #withFile<T>(use: (fd: number) => T | Promise<T>): Promise<T> {
		clearTimeout(this.#idle);
		this.#pending++;
		try {
			if (this.#fd === undefined) {
				try {
					const fd = openSync(this.file, "r");
					this.#size = fstatSync(fd).size;
					this.#fd = fd;
				} catch (error) {
					throw new Dt64ExportError("READ_FAILED", `cannot read ${this.file}: ${systemErrorReason(error as Error)}`, { path: this.file, cause: error });
				}
			}
			return await use(this.#fd);
		} catch (error) {
			if (error instanceof Dt64ExportError || error instanceof PastEndOfZip) throw error;
			throw new Dt64ExportError("READ_FAILED", `cannot read ${this.file}: ${systemErrorReason(error as Error)}`, { path: this.file, cause: error });
		} finally {
			if (--this.#pending === 0) {
				this.#idle = setTimeout(() => this.#close(), IDLE_CLOSE_MS);
				this.#idle.unref();
			}
		}
	}

	#close(): void {
		if (this.#fd === undefined || this.#pending > 0) return;
		const fd = this.#fd;
		this.#fd = undefined;
		close(fd, () => undefined);
	}
}

/**
 * A read of a zip's bytes outside the file, which only a lying central directory or end record asks for (an entry's
 * data is checked against the file's size before it is read): the zip is broken, which openStore says (STORE_INVALID).
 */
export class PastEndOfZip extends Error {
	constructor(offset: number, length: number, size: number) {
		super(`${length} bytes at offset ${offset}, past the end of the file (${size} bytes)`);
		this.name = "PastEndOfZip";
	}
}

function readAsync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> {
	return new Promise((resolve, reject) => read(fd, buffer, offset, length, position, (error, bytesRead) => (error === null ? resolve(bytesRead) : reject(error))));
}
