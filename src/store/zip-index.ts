import type { ZipEntryLayout } from "./zip-store.js";
import { ZipEntryNames } from "./zip-entry-names.js";

/**
 * A zip's entries as its central directory lists them, held compactly: one row per entry in typed columns (offsets,
 * sizes, method, flags, CRC-32) and the names in ZipEntryNames (their UTF-8 bytes in one buffer, a hash table of
 * rows), about 75 bytes an entry with a name of 10 bytes, where a Map and an array of strings besides the columns
 * took about 116 (10^6 entries: 73 → 116 MB measured), and an object per entry (unzipit's, with its raw record,
 * name bytes, extra fields and comment) about 2 KB while the directory was read. A layout object is made when an
 * entry is asked for, and dropped with its read; a name, when the names are listed.
 */
/** One typed array per field of an entry, a row per record of the central directory. */
class Columns {
	readonly localHeader: Float64Array;
	readonly headerGuess: Uint32Array;
	readonly compressedSize: Float64Array;
	readonly size: Float64Array;
	readonly method: Uint16Array;
	readonly encrypted: Uint8Array;
	readonly crc32: Uint32Array;
	/** Where an entry's data starts once its local header was read (NaN before): later ranges need only the data. */
	readonly dataStart: Float64Array;
	count = 0;
	/** Offsets of every local header, ascending: where an entry's bytes end at most (the next one's). */
	starts: Float64Array | undefined;

	constructor(capacity: number) {
		this.localHeader = new Float64Array(capacity);
		this.headerGuess = new Uint32Array(capacity);
		this.compressedSize = new Float64Array(capacity);
		this.size = new Float64Array(capacity);
		this.method = new Uint16Array(capacity);
		this.encrypted = new Uint8Array(capacity);
		this.crc32 = new Uint32Array(capacity);
		this.dataStart = new Float64Array(capacity).fill(Number.NaN);
	}
}

export class ZipIndex {
	readonly #names: ZipEntryNames;
	readonly #columns: Columns;

	/** Room for `capacity` entries: the count the central directory states, or a `Columns` shared with another index. */
	constructor(capacity: number | Columns) {
		this.#columns = typeof capacity === "number" ? new Columns(capacity) : capacity;
		this.#names = new ZipEntryNames(typeof capacity === "number" ? capacity : capacity.count);
	}

	/** An entry of the central directory; a name listed twice is the later record, as a zip reader extracts it. */
	add(name: string, entry: Omit<ZipEntryLayout, "name" | "nextHeader">): void {
		const columns = this.#columns;
		const row = columns.count++;
		columns.localHeader[row] = entry.localHeader;
		columns.headerGuess[row] = entry.headerGuess;
		columns.compressedSize[row] = entry.compressedSize;
		columns.size[row] = entry.size;
		columns.method[row] = entry.method;
		columns.encrypted[row] = entry.encrypted ? 1 : 0;
		columns.crc32[row] = entry.crc32;
		columns.starts = undefined;
		this.#names.add(name, row);
	}

	/** Once every entry is added: the room read ahead for the names is given back. */
	complete(): void {
		this.#names.trim();
	}

	/** The same entries by other names (a top folder removed); an entry `rename` maps to undefined is left out. */
	renamed(rename: (name: string) => string | undefined): ZipIndex {
		const index = new ZipIndex(this.#columns);
		for (const [name, row] of this.#names.entries()) {
			const renamed = rename(name);
			if (renamed !== undefined) index.#names.add(renamed, row);
		}
		index.complete();
		return index;
	}

	/** Entries listed, a name listed twice once. */
	get size(): number {
		return this.#names.size;
	}

	/** The names, in the central directory's order, each made as it is reached. */
	*names(): Generator<string> {
		for (const [name] of this.#names.entries()) yield name;
	}

	has(name: string): boolean {
		return this.#names.rowOf(name) !== undefined;
	}

	/** The entry's layout, made now. */
	get(name: string): ZipEntryLayout | undefined {
		const row = this.#names.rowOf(name);
		if (row === undefined) return undefined;
		const columns = this.#columns;
		const localHeader = columns.localHeader[row];
		const nextHeader = this.#nextAfter(localHeader);
		return {
			name,
			localHeader,
			headerGuess: columns.headerGuess[row],
			...(nextHeader === undefined ? {} : { nextHeader }),
			compressedSize: columns.compressedSize[row],
			size: columns.size[row],
			method: columns.method[row],
			encrypted: columns.encrypted[row] === 1,
			crc32: columns.crc32[row],
		};
	}

	/** Where the entry's data starts, once `setDataStart` said so. */
	dataStart(name: string): number | undefined {
		const row = this.#names.rowOf(name);
		const start = row === undefined ? Number.NaN : this.#columns.dataStart[row];
		return Number.isNaN(start) ? undefined : start;
	}

	setDataStart(name: string, start: number): void {
		const row = this.#names.rowOf(name);
		if (row !== undefined) this.#columns.dataStart[row] = start;
	}

	#nextAfter(offset: number): number | undefined {
		const columns = this.#columns;
		const starts = (columns.starts ??= columns.localHeader.slice(0, columns.count).sort());
		let low = 0;
		let high = starts.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (starts[middle] <= offset) low = middle + 1;
			else high = middle;
		}
		return low < starts.length ? starts[low] : undefined;
	}
}
