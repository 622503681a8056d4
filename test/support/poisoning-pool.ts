import { BufferPool } from "../../src/memory/buffer-pool.js";

/**
 * A BufferPool whose buffers hold garbage whenever their content is undefined: filled with 0xA5 when handed out,
 * and with 0x5A as soon as one is taken back. The CLI's pool reuses a buffer only when another chunk needs one of
 * its size; this one spoils it at once, so a use after `release` (a write not yet done, values still to convert)
 * shows in the output every time.
 */
export class PoisoningPool extends BufferPool {
	override acquire(size: number, room?: number): Buffer {
		return super.acquire(size, room).fill(0xa5);
	}

	override release(view: Uint8Array): void {
		const kept = this.freeBytes;
		super.release(view);
		if (this.freeBytes > kept) new Uint8Array(view.buffer).fill(0x5a);
	}
}
