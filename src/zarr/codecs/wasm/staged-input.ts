import type { ModuleHeap, Region } from "./region.js";

/**
 * A chunk's encoded bytes fed to a decoder in steps (zstd_stream_step): copied into the module's memory a piece
 * at a time, in order, and dropped from it once the decoder has consumed them, so that the module holds only the
 * bytes between what the decoder has read and what has been copied in.
 *
 * When the output is written over the encoded bytes (the decode threads decode into the buffer the chunk came in),
 * the output must not reach bytes not yet copied in: before a window of output is written to the buffer, the
 * caller stages the input up to the window's end (stageThrough). Whatever the data, the module then holds at most
 * the whole input, as it did before decoding in steps; for a chunk that compresses evenly, about the bytes by
 * which the output runs ahead of the input (1.1 MB for a zstd chunk of 8 MB in 6.9 MB).
 */
export class StagedInput {
	/** The input's bytes [#start, #end) are in the region, from its pointer + #offset. */
	#start = 0;
	#end = 0;
	#offset = 0;

	constructor(
		private readonly input: Uint8Array,
		private readonly region: Region,
		private readonly heap: ModuleHeap,
	) {}

	/** How many of the input's bytes the decoder has consumed. */
	get consumed(): number {
		return this.#start;
	}

	/** How many of the input's bytes have been copied into the module. */
	get end(): number {
		return this.#end;
	}

	/** Where the bytes not yet consumed are in the module's memory, and how many there are. */
	get pointer(): number {
		return this.region.pointer + this.#offset;
	}

	get staged(): number {
		return this.#end - this.#start;
	}

	/** Whether every byte of the input has been copied in. */
	get complete(): boolean {
		return this.#end === this.input.byteLength;
	}

	/** Copies the input into the module up to `index` (its end at most), if it is not yet. */
	stageThrough(index: number): void {
		const through = Math.min(index, this.input.byteLength);
		if (through <= this.#end) return;
		const staged = this.staged;
		const needed = staged + (through - this.#end);
		if (this.#offset + needed > this.region.capacity) {
			// The consumed bytes are dropped: the rest move to the start of the region, which grows if they do not fit.
			if (this.#offset > 0 && staged > 0) new Uint8Array(this.heap.memory.buffer).copyWithin(this.region.pointer, this.pointer, this.pointer + staged);
			this.#offset = 0;
			this.region.grow(needed, staged);
		}
		new Uint8Array(this.heap.memory.buffer, this.pointer + staged, through - this.#end).set(this.input.subarray(this.#end, through));
		this.#end = through;
	}

	/** Drops the bytes before `index`, which the decoder will not read: staged or not, they are never copied in. */
	dropBefore(index: number): void {
		if (index <= this.#start) return;
		if (index >= this.#end) {
			this.#start = this.#end = index;
			this.#offset = 0;
		} else this.consume(index - this.#start);
	}

	/** Says the decoder has consumed the next `bytes` staged bytes. */
	consume(bytes: number): void {
		this.#start += bytes;
		this.#offset += bytes;
	}
}
