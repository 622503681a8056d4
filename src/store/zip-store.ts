import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "./readable.js";
import { RangeOutsideError } from "./range-outside.js";
import { Dt64ExportError } from "../errors.js";
import { CoalescedReads } from "./coalesced-reads.js";
import { StoredEntryCoverage } from "./stored-entry-coverage.js";
import { checkBound } from "./value-bound.js";
import { PastEndOfZip } from "./zip-file-bytes.js";
import type { ZipIndex } from "./zip-index.js";

/** The bytes of a zip file by ranges: a local file (ZipFileBytes) or an object over HTTP (HttpZipReader). */
export interface ZipBytes {
	getLength(): Promise<number>;
	read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array<ArrayBuffer>>;
}

/** Where an entry's data lies and how it is stored, from the zip's central directory. */
export interface ZipEntryLayout {
	readonly name: string;
	/** Offset of its local file header. */
	readonly localHeader: number;
	/** The local header's length as the central directory suggests it (30 + name + extra field); usually exact. */
	readonly headerGuess: number;
	/** Offset of the next entry's local header (by offset), when there is one: where this entry's bytes end at most. */
	readonly nextHeader?: number;
	readonly compressedSize: number;
	readonly size: number;
	/** 0 stored, 8 deflated. */
	readonly method: number;
	readonly encrypted: boolean;
	/** The CRC-32 of its bytes (inflated), checked when the entry is read whole, or once ranges have read all of a stored one. */
	readonly crc32: number;
}

const LOCAL_HEADER_BYTES = 30;
/**
 * Bytes read past an entry's data as the central directory places it, up to the next entry's local header: room
 * for a local extra field longer than the central directory's. Info-ZIP's `zip` (the README's `zip -r`) writes its
 * extended timestamp with the access time in the local header only, 4 bytes more, and each read came up short and
 * was made again (two requests one after the other per run of entries over HTTP); a data descriptor (up to 24
 * bytes) follows the data too.
 */
const LOCAL_EXTRA_MARGIN = 256;
const LOCAL_HEADER_SIGNATURE = 0x04034b50;
/** Entries inflated on the calling thread at most this large: a trip through the thread pool costs more. */
const SYNC_INFLATE_MAX_BYTES = 64 * 2 ** 10;
/** node:zlib, loaded by the first deflated entry: the CLI does not load it at start (see inflate-into.ts). */
const zlib = () => process.getBuiltinModule("node:zlib");

const hex = (crc: number) => `0x${crc.toString(16).padStart(8, "0")}`;

function inflateRawAsync(data: Uint8Array, options: { maxOutputLength: number }): Promise<Uint8Array> {
	return new Promise((resolve, reject) => zlib().inflateRaw(data, options, (error, result) => (error === null ? resolve(result) : reject(error))));
}

/**
 * A zip file as a Zarr store, its entries read by ranges of the file through one source of bytes: the central
 * directory once (read into a compact ZipIndex when the store is opened, zip-central-directory.ts), then each entry with one read spanning its local header
 * and its data (the header's length is known from the central directory but for a different extra field: the read
 * goes on to the next entry's header, within a margin), entries asked for together coalesced into one read (see CoalescedReads), deflated entries
 * inflated with Node's zlib, bounded by the size the directory gives. (unzipit, which read zips before, read two
 * ranges per entry, the local header, then the data, one after the other, each a request over HTTP.)
 */
export class ZipStore implements AsyncReadable {
	readonly #reads: CoalescedReads;
	/** The stored entries read in part so far (a shard's index, its inner chunks), to check each once all of it is read. */
	readonly #coverage = new StoredEntryCoverage();
	/**
	 * Stored entries whose ranges, once all read, failed their CRC-32, with the CRC-32 their bytes gave: every later
	 * read of one fails as that one did (a shard's reader that gives up on a span of inner chunks reads them again one by one).
	 */
	readonly #failed = new Map<string, number>();

	/** `shownAs` names the zip in messages; `length` is its size in bytes. */
	constructor(
		readonly bytes: ZipBytes,
		readonly entries: ZipIndex,
		readonly shownAs: string,
		readonly length: number,
	) {
		this.#reads = new CoalescedReads((offset, count, signal) => bytes.read(offset, count, signal));
	}

	/** A zip's entries are listed once, when it is opened, and do not change: a key not among them is missing. */
	isAbsent(key: AbsolutePath): boolean {
		return !this.entries.has(key.slice(1));
	}

	async has(key: AbsolutePath): Promise<boolean> {
		return this.entries.has(key.slice(1));
	}

	async get(key: AbsolutePath, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		const entry = this.entries.get(key.slice(1));
		if (entry === undefined) return undefined;
		// Refused on the size the zip declares, before a byte is read: a 1 MB entry may inflate to 1 GiB.
		checkBound(`${this.shownAs}: entry ${entry.name}`, key, entry.size, options.bound);
		return this.#inflated(entry, await this.#located(entry, this.#data(entry, options.signal)));
	}

	async getRange(key: AbsolutePath, range: RangeQuery, options: GetOptions = {}): Promise<Uint8Array | undefined> {
		const entry = this.entries.get(key.slice(1));
		if (entry === undefined) return undefined;
		this.#check(entry);
		const size = entry.size;
		const offset = "suffixLength" in range ? size - range.suffixLength : range.offset;
		const length = "suffixLength" in range ? range.suffixLength : range.length;
		if (offset < 0 || length < 0 || offset + length > size) {
			throw new RangeOutsideError(`${this.shownAs}: byte range ${offset}..${offset + length} is outside entry ${entry.name} (${size} bytes)`, { key: entry.name });
		}
		if (entry.method !== 0) return (await this.get(key, options))?.subarray(offset, offset + length);
		const failed = this.#failed.get(entry.name);
		if (failed !== undefined) this.#checkCrc(entry, failed);
		const start = this.entries.dataStart(entry.name) ?? (await this.#located(entry, this.#localHeader(entry, options.signal))).dataStart;
		const bytes = await this.#located(entry, this.#reads.read(start + offset, length, options.signal));
		// A range of all of it is checked as a read of all of it is; parts once the ranges have read all of it.
		if (offset === 0 && length === size) this.#checkCrc(entry, zlib().crc32(bytes));
		else {
			const crc = this.#coverage.add(entry.name, size, offset, bytes, (part) => zlib().crc32(part));
			if (crc !== undefined && crc !== entry.crc32) this.#failed.set(entry.name, crc);
			if (crc !== undefined) this.#checkCrc(entry, crc);
		}
		return bytes;
	}

	/** `read` of the entry's bytes; one that the central directory placed past the end of the file says so, naming the entry. */
	async #located<T>(entry: ZipEntryLayout, read: Promise<T>): Promise<T> {
		try {
			return await read;
		} catch (error) {
			if (error instanceof PastEndOfZip) throw this.#corrupt(entry, `the central directory points at ${error.message}`);
			throw error;
		}
	}

	/**
	 * The entry's stored bytes: one read of its local header and data, up to the next entry's header (a local extra
	 * field longer than the central directory's within LOCAL_EXTRA_MARGIN), a second only if the header is longer still.
	 */
	async #data(entry: ZipEntryLayout, signal: AbortSignal | undefined): Promise<Uint8Array> {
		this.#check(entry);
		const known = this.entries.dataStart(entry.name);
		if (known !== undefined) return this.#reads.read(known, entry.compressedSize, signal);
		const span = Math.min(entry.headerGuess + entry.compressedSize + LOCAL_EXTRA_MARGIN, (entry.nextHeader ?? this.length) - entry.localHeader);
		const { bytes, dataStart } = await this.#localHeader(entry, signal, span);
		const at = dataStart - entry.localHeader;
		if (at + entry.compressedSize <= bytes.length) return bytes.subarray(at, at + entry.compressedSize);
		return this.#reads.read(dataStart, entry.compressedSize, signal);
	}

	/** Reads `span` bytes from the entry's local header (at least the header), checks it, and says where its data starts. */
	async #localHeader(entry: ZipEntryLayout, signal: AbortSignal | undefined, span = entry.headerGuess): Promise<{ bytes: Uint8Array; dataStart: number }> {
		if (entry.localHeader + LOCAL_HEADER_BYTES > this.length) throw this.#corrupt(entry, `its local header at offset ${entry.localHeader} is past the end of the file (${this.length} bytes)`);
		const bytes = await this.#reads.read(entry.localHeader, Math.max(span, LOCAL_HEADER_BYTES), signal);
		const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		if (view.getUint32(0, true) !== LOCAL_HEADER_SIGNATURE) throw this.#corrupt(entry, `no local file header at offset ${entry.localHeader}`);
		const dataStart = entry.localHeader + LOCAL_HEADER_BYTES + view.getUint16(26, true) + view.getUint16(28, true);
		if (dataStart + entry.compressedSize > this.length) {
			throw this.#corrupt(entry, `its data (${entry.compressedSize} bytes at offset ${dataStart}) runs past the end of the file (${this.length} bytes)`);
		}
		this.entries.setDataStart(entry.name, dataStart);
		return { bytes, dataStart };
	}

	#check(entry: ZipEntryLayout): void {
		if (entry.encrypted) throw this.#corrupt(entry, "it is encrypted");
		if (entry.method !== 0 && entry.method !== 8) throw this.#corrupt(entry, `compression method ${entry.method} (only stored and deflated entries are read)`);
	}

	/** The entry's bytes, inflated if deflated, checked against the CRC-32 the central directory gives. */
	async #inflated(entry: ZipEntryLayout, data: Uint8Array): Promise<Uint8Array> {
		const bytes = await this.#inflatedUnchecked(entry, data);
		this.#checkCrc(entry, zlib().crc32(bytes));
		return bytes;
	}

	/**
	 * Bytes that are not what was written, CHUNK_CORRUPT: a chunk stored raw, or with a codec that has no checksum of
	 * its own (blosc, lz4, zstd as numcodecs writes it), would otherwise decode to wrong values without a word.
	 */
	#checkCrc(entry: ZipEntryLayout, crc: number): void {
		if (crc === entry.crc32) return;
		throw new Dt64ExportError("CHUNK_CORRUPT", `${this.shownAs}: entry ${entry.name} fails its CRC-32 (the zip says ${hex(entry.crc32)}, its bytes give ${hex(crc)})`, {
			path: this.shownAs,
			key: entry.name,
		});
	}

	async #inflatedUnchecked(entry: ZipEntryLayout, data: Uint8Array): Promise<Uint8Array> {
		if (entry.method === 0) return data;
		if (entry.size === 0) return new Uint8Array(0);
		let inflated: Uint8Array;
		try {
			const options = { maxOutputLength: entry.size };
			inflated = entry.size <= SYNC_INFLATE_MAX_BYTES ? zlib().inflateRawSync(data, options) : await inflateRawAsync(data, options);
		} catch (error) {
			// zlib stops at the size the zip declares: the entry holds more than it says.
			if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw this.#corrupt(entry, `it inflates to more than the ${entry.size} bytes the zip declares for it`);
			throw this.#corrupt(entry, `cannot inflate it (${(error as Error).message})`);
		}
		if (inflated.length !== entry.size) throw this.#corrupt(entry, `it inflates to ${inflated.length} bytes, the zip says ${entry.size}`);
		return inflated;
	}

	#corrupt(entry: ZipEntryLayout, why: string): Dt64ExportError {
		return new Dt64ExportError("READ_FAILED", `${this.shownAs}: cannot read entry ${entry.name}: ${why}`, { path: this.shownAs, key: entry.name });
	}
}
