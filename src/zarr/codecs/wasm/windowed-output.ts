import { Dt64ExportError } from "../../../errors.js";
import type { ModuleHeap, Region } from "./region.js";

/** The part of the decoders' exports a windowed output uses. */
export interface NatScanExports extends ModuleHeap {
	nat_positions(values: number, bytes: number, positions: number, room: number): number;
}

/** What a decode gives: the decoded length, and where NaT may be among the decoded values. */
export interface DecodedLength {
	readonly length: number;
	/**
	 * With `scanNaT`: the increasing positions of the 8-byte values that are NaT in either byte order (every NaT is
	 * among them); null when not asked, when the bytes are not whole values, or when more than about one in 16 may
	 * be NaT (the caller then scans itself).
	 */
	readonly natPositions: Int32Array | null;
}

/** The values of a window nat_positions may list: one in 16, and 16 more. */
export function positionsRoom(bytes: number): number {
	return Math.floor(bytes / 8 / 16) + 16;
}

/** Whether 8 bytes are INT64_MIN read in either byte order (as nat_positions tests each value). */
function maybeNaT(value: Uint8Array): boolean {
	let rest = 0;
	for (let i = 1; i < 7; i++) rest |= value[i];
	return rest === 0 && ((value[0] === 0 && value[7] === 0x80) || (value[0] === 0x80 && value[7] === 0));
}

/**
 * The output of a chunk decoded a window at a time: each window, where the decoder left it in the module's
 * memory, is scanned for NaT when asked (nat_positions; a value cut by a window's end is put together and tested
 * here) and copied to its place in the output. Past the output's end is refused as the one-shot decoder refuses it.
 */
export class WindowedOutput {
	#length = 0;
	/** Bytes scanned for NaT: whole values, the rest (fewer than 8) waiting in #carry. */
	#scanned = 0;
	readonly #carry = new Uint8Array(8);
	#carried = 0;
	#positions: Int32Array[] | null;

	/** `positions` must already hold positionsRoom of the largest window: a scan then allocates nothing. */
	constructor(
		private readonly codec: string,
		private readonly exports: NatScanExports,
		private readonly output: Uint8Array,
		scanNaT: boolean,
		private readonly positions: Region,
	) {
		this.#positions = scanNaT ? [] : null;
	}

	/** How many bytes have been taken. */
	get length(): number {
		return this.#length;
	}

	/** Takes the `bytes` the decoder wrote at `pointer` in the module's memory, the next bytes of the output. */
	take(pointer: number, bytes: number): void {
		if (this.#length + bytes > this.output.byteLength) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `${this.codec}: the chunk does not decompress (Destination buffer is too small)`);
		}
		if (this.#positions !== null) this.#scan(pointer, bytes);
		this.output.set(new Uint8Array(this.exports.memory.buffer, pointer, bytes), this.#length);
		this.#length += bytes;
	}

	/** The decoded length, and the NaT positions found (null if the length is not whole values). */
	result(): DecodedLength {
		const parts = this.#carried > 0 ? null : this.#positions;
		if (parts === null) return { length: this.#length, natPositions: null };
		const all = new Int32Array(parts.reduce((sum, part) => sum + part.length, 0));
		let at = 0;
		for (const part of parts) {
			all.set(part, at);
			at += part.length;
		}
		return { length: this.#length, natPositions: all };
	}

	#scan(pointer: number, bytes: number): void {
		let at = 0;
		if (this.#carried > 0) {
			at = Math.min(8 - this.#carried, bytes);
			this.#carry.set(new Uint8Array(this.exports.memory.buffer, pointer, at), this.#carried);
			this.#carried += at;
			if (this.#carried < 8) return;
			if (maybeNaT(this.#carry)) this.#positions!.push(Int32Array.of(this.#scanned / 8));
			this.#scanned += 8;
			this.#carried = 0;
		}
		const whole = (bytes - at) & ~7;
		if (whole > 0) {
			const room = positionsRoom(whole);
			if (room * 4 > this.positions.capacity) throw new Dt64ExportError("INTERNAL", `a window of ${whole} bytes has no room for its NaT positions`);
			const found = this.exports.nat_positions(pointer + at, whole, this.positions.pointer, room);
			if (found < 0) {
				this.#positions = null;
				return;
			}
			const first = this.#scanned / 8;
			const part = new Int32Array(this.exports.memory.buffer, this.positions.pointer, found).slice();
			for (let i = 0; i < found; i++) part[i] += first;
			if (found > 0) this.#positions!.push(part);
			this.#scanned += whole;
		}
		this.#carried = bytes - at - whole;
		if (this.#carried > 0) this.#carry.set(new Uint8Array(this.exports.memory.buffer, pointer + at + whole, this.#carried));
	}
}
