import { BufferPool } from "../../src/memory/buffer-pool.js";

/**
 * A BufferPool that counts the buffers it hands out: `acquired` by `acquire`, `acquiredShared` by `acquireShared`
 * (the pool's `reused` says how many of all of them were buffers handed back before).
 */
export class CountingPool extends BufferPool {
	acquired = 0;
	acquiredShared = 0;

	override acquire(size: number, room?: number): Buffer {
		this.acquired++;
		return super.acquire(size, room);
	}

	override acquireShared(size: number, room?: number): Uint8Array {
		this.acquiredShared++;
		return super.acquireShared(size, room);
	}
}
