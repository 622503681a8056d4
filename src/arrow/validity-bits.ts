import type { Data } from "apache-arrow";

/** Whether bits [start, start + count) of an Arrow validity bitmap (LSB first) are all set: whole bytes compared at once. */
function allSet(bits: Uint8Array, start: number, count: number): boolean {
	let i = start;
	const end = start + count;
	for (; i < end && (i & 7) !== 0; i++) if (((bits[i >> 3] >> (i & 7)) & 1) === 0) return false;
	for (; i + 8 <= end; i += 8) if (bits[i >> 3] !== 0xff) return false;
	for (; i < end; i++) if (((bits[i >> 3] >> (i & 7)) & 1) === 0) return false;
	return true;
}

export function setBit(bits: Uint8Array, index: number, bit: number): void {
	if (bit === 0) bits[index >> 3] &= ~(1 << (index & 7));
	else bits[index >> 3] |= 1 << (index & 7);
}

/** `bits` copied into a bitmap of `capacity` bits (a multiple of 8). */
export function grownBits(bits: Uint8Array, capacity: number): Uint8Array<ArrayBuffer> {
	const next = new Uint8Array(capacity / 8);
	next.set(bits);
	return next;
}

/** The validity bits of one column: none until a null is copied, all valid until then. */
export class Validity {
	#bits: Uint8Array | undefined;
	#capacity = 0;
	nullCount = 0;

	resize(capacity: number): number {
		this.#capacity = capacity;
		if (this.#bits === undefined) return 0;
		const before = this.#bits.byteLength;
		this.#bits = grownBits(this.#bits, capacity);
		return this.#bits.byteLength - before;
	}

	copy(data: Data, from: number, to: number, at: number): number {
		const source = data.nullBitmap;
		if (source === undefined || source.length === 0 || data.nullCount === 0) {
			if (this.#bits !== undefined) for (let i = at; i < at + to - from; i++) setBit(this.#bits, i, 1);
			return 0;
		}
		let added = 0;
		if (this.#bits === undefined) {
			// A run of valid rows from a column with nulls elsewhere (the time filter's runs between missing times): no
			// bitmap yet, nor any needed.
			if (allSet(source, data.offset + from, to - from)) return 0;
			this.#bits = new Uint8Array(this.#capacity / 8);
			added = this.#bits.byteLength;
			for (let i = 0; i < at; i++) setBit(this.#bits, i, 1);
		}
		// Copied and counted in one pass.
		const bits = this.#bits;
		let nulls = 0;
		for (let i = 0, f = data.offset + from; i < to - from; i++, f++) {
			const bit = (source[f >> 3] >> (f & 7)) & 1;
			setBit(bits, at + i, bit);
			nulls += 1 - bit;
		}
		this.nullCount += nulls;
		return added;
	}

	bitmap(length: number): Uint8Array | undefined {
		return this.nullCount === 0 ? undefined : this.#bits!.subarray(0, Math.ceil(length / 8));
	}
}
