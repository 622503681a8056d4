/**
 * The names of a zip's entries, held compactly: their UTF-8 bytes one after the other in one buffer, where each
 * starts in a typed array, and an open-addressing hash table of rows (a typed array too). A Map of strings and an
 * array of them took about 72 bytes of heap an entry (10^6 entries of 10-character names, 72 MB); this takes the
 * bytes of the names and 13 more an entry. A name is looked for by its UTF-8 bytes; names are decoded when asked for.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** FNV-1a's 32-bit offset basis and prime. */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The UTF-8 bytes of `name` into `scratch` (grown as needed); how many. ASCII, the usual case, is copied directly. */
function encodeInto(name: string, scratch: { bytes: Uint8Array }): number {
	if (scratch.bytes.length < name.length * 3) scratch.bytes = new Uint8Array(Math.max(64, name.length * 3));
	const bytes = scratch.bytes;
	for (let i = 0; i < name.length; i++) {
		const code = name.charCodeAt(i);
		if (code >= 0x80) return encoder.encodeInto(name, bytes).written;
		bytes[i] = code;
	}
	return name.length;
}

function hashOf(bytes: Uint8Array, start: number, end: number): number {
	let hash = FNV_OFFSET;
	for (let i = start; i < end; i++) hash = Math.imul(hash ^ bytes[i], FNV_PRIME);
	return hash >>> 0;
}

export class ZipEntryNames {
	/** The names' bytes, `[starts[k], starts[k + 1])` the k-th name added. */
	#bytes: Uint8Array;
	#used = 0;
	#starts: Uint32Array;
	/** The row of each name added, in order. */
	#rows: Int32Array;
	/** Open addressing: 0 empty, else 1 + the index (in order added) of a distinct name. */
	#table: Int32Array;
	#distinct = 0;
	readonly #scratch = { bytes: new Uint8Array(64) };

	/** Room for `capacity` names of `bytes` bytes in all, grown past them if need be. */
	constructor(capacity: number, bytes = capacity * 16) {
		this.#bytes = new Uint8Array(Math.max(64, bytes));
		this.#starts = new Uint32Array(capacity + 1);
		this.#rows = new Int32Array(capacity);
		this.#table = new Int32Array(tableSize(capacity));
	}

	/** Distinct names. */
	get size(): number {
		return this.#distinct;
	}

	/** Names `row`; a name added before is the later row, kept at the first one's place among the names. */
	add(name: string, row: number): void {
		const length = encodeInto(name, this.#scratch);
		const slot = this.#slotOf(this.#scratch.bytes, length);
		const found = this.#table[slot];
		if (found !== 0) {
			this.#rows[found - 1] = row;
			return;
		}
		const k = this.#distinct++;
		if (k >= this.#rows.length) this.#grow();
		if (this.#used + length > this.#bytes.length) {
			const bytes = new Uint8Array(Math.max(this.#bytes.length * 2, this.#used + length));
			bytes.set(this.#bytes.subarray(0, this.#used));
			this.#bytes = bytes;
		}
		this.#bytes.set(this.#scratch.bytes.subarray(0, length), this.#used);
		this.#used += length;
		this.#starts[k + 1] = this.#used;
		this.#rows[k] = row;
		this.#table[slot] = k + 1;
		// Half full at most: probes stay short.
		if (this.#distinct * 2 > this.#table.length) this.#rehash();
	}

	/** The row of `name`, or undefined. */
	rowOf(name: string): number | undefined {
		const length = encodeInto(name, this.#scratch);
		const found = this.#table[this.#slotOf(this.#scratch.bytes, length)];
		return found === 0 ? undefined : this.#rows[found - 1];
	}

	/** Gives back the room the names' bytes were read into beyond what they take, once all are added. */
	trim(): void {
		if (this.#bytes.length > this.#used) this.#bytes = this.#bytes.slice(0, this.#used);
	}

	/** The names, in the order first added, each with its row. */
	*entries(): Generator<[string, number]> {
		for (let k = 0; k < this.#distinct; k++) yield [this.#name(k), this.#rows[k]];
	}

	#name(k: number): string {
		const start = this.#starts[k];
		const end = this.#starts[k + 1];
		const bytes = this.#bytes;
		for (let i = start; i < end; i++) if (bytes[i] >= 0x80 || end - start > 1024) return decoder.decode(bytes.subarray(start, end));
		return String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);
	}

	/** The slot holding the name of these bytes, or the empty one where it would go. */
	#slotOf(bytes: Uint8Array, length: number): number {
		const mask = this.#table.length - 1;
		let slot = hashOf(bytes, 0, length) & mask;
		for (;;) {
			const found = this.#table[slot];
			if (found === 0 || this.#equals(found - 1, bytes, length)) return slot;
			slot = (slot + 1) & mask;
		}
	}

	#equals(k: number, bytes: Uint8Array, length: number): boolean {
		const start = this.#starts[k];
		if (this.#starts[k + 1] - start !== length) return false;
		const own = this.#bytes;
		for (let i = 0; i < length; i++) if (own[start + i] !== bytes[i]) return false;
		return true;
	}

	/** Room for twice the names: `rows` and `starts` (one more) grow together. */
	#grow(): void {
		const capacity = Math.max(1, this.#rows.length * 2);
		const starts = new Uint32Array(capacity + 1);
		starts.set(this.#starts);
		this.#starts = starts;
		const rows = new Int32Array(capacity);
		rows.set(this.#rows);
		this.#rows = rows;
	}

	#rehash(): void {
		const table = new Int32Array(this.#table.length * 2);
		const mask = table.length - 1;
		for (let k = 0; k < this.#distinct; k++) {
			let slot = hashOf(this.#bytes, this.#starts[k], this.#starts[k + 1]) & mask;
			while (table[slot] !== 0) slot = (slot + 1) & mask;
			table[slot] = k + 1;
		}
		this.#table = table;
	}
}

/** A power of two at least twice `count` (at least 16). */
function tableSize(count: number): number {
	let size = 16;
	while (size < count * 2) size *= 2;
	return size;
}
