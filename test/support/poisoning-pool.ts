import { BufferPool } from "../../src/memory/buffer-pool.js";

/**
 * A BufferPool whose buffers hold garbage whenever their content is undefined: filled with 0xA5 when handed out,
 * and with 0x5A as soon as one is taken back. The CLI's pool reuses a buffer only when another chunk needs one of
 * its size; this one spoils it at once, so a use after `release` (a write not yet done, values still to convert)
 * shows in the output every time. Shared buffers too (acquireShared: a shard's inner chunks decoded into one, each
 * at its offset, on decode threads): spoilt when handed out, and the moment the last of their bytes is said dead.
 */
export class PoisoningPool extends BufferPool {
	constructor(maxFreeBytes?: number) {
		super(maxFreeBytes);
		// Told of every buffer back whole, kept for reuse or not (retired, or past maxFreeBytes).
		this.onReturn((buffer) => new Uint8Array(buffer).fill(0x5a));
	}

	override acquire(size: number, room?: number): Buffer {
		return super.acquire(size, room).fill(0xa5);
	}

	override acquireShared(size: number, room?: number): Uint8Array {
		return super.acquireShared(size, room).fill(0xa5);
	}
}
