import { BufferPool, type PoolBuffer } from "../../src/memory/buffer-pool.js";

/**
 * A BufferPool that counts the buffers it hands out: `acquired` by `acquire`, `acquiredShared` by `acquireShared`
 * (the pool's `reused` says how many of all of them were buffers handed back before); and `outstanding`, those issued
 * and not handed back since.
 */
export class CountingPool extends BufferPool {
	acquired = 0;
	acquiredShared = 0;
	/** Issued and not back: acquired, or adopted (a buffer back from a decode thread as a new one). */
	readonly #out = new Set<PoolBuffer>();

	constructor(maxFreeBytes?: number) {
		super(maxFreeBytes);
		this.onReturn((buffer) => this.#out.delete(buffer));
	}

	override acquire(size: number, room?: number): Buffer {
		this.acquired++;
		const view = super.acquire(size, room);
		this.#out.add(view.buffer as ArrayBuffer);
		return view;
	}

	override acquireShared(size: number, room?: number): Uint8Array {
		this.acquiredShared++;
		const view = super.acquireShared(size, room);
		this.#out.add(view.buffer as SharedArrayBuffer);
		return view;
	}

	override adopt(view: Uint8Array): void {
		super.adopt(view);
		// Adopted: issued, its use the view, none of it dead.
		if (this.isWhole(view)) this.#out.add(view.buffer as ArrayBuffer);
	}

	/**
	 * The buffers issued and not handed back since; those transferred to a decode thread (detached: the pool adopts
	 * what comes back in their place) left out.
	 */
	get outstanding(): number {
		let count = 0;
		for (const buffer of this.#out) if (buffer.byteLength > 0) count++;
		return count;
	}
}
