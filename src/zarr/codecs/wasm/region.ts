import { Dt64ExportError } from "../../../errors.js";
import { capacityFor } from "../../../memory/buffer-pool.js";

/** The allocator of the decoders' module (decoders.c: malloc and free of wasi-libc) and its memory. */
export interface ModuleHeap {
	readonly memory: { readonly buffer: ArrayBuffer };
	alloc(bytes: number): number;
	release(pointer: number): void;
}

/**
 * A buffer in the module's memory, kept between decodes and grown when a chunk needs more: to the size class of
 * what is needed (see capacityFor), so that chunks a few bytes apart do not each free and allocate a new one. A
 * WebAssembly memory never shrinks, and the allocator could not reuse the freed space for the larger region: a
 * 6.6 MB region grown by bytes at a time took the memory from 15.8 to 22.3 MiB over the chunks of one store.
 */
export class Region {
	pointer = 0;
	capacity = 0;

	constructor(private readonly heap: ModuleHeap) {}

	/** The region's pointer, once it holds at least `bytes`; what it held is lost when it grows. */
	ensure(bytes: number): number {
		return this.grow(bytes, 0);
	}

	/** The region's pointer, once it holds at least `bytes`; its first `keep` bytes are kept when it grows. */
	grow(bytes: number, keep: number): number {
		if (bytes <= this.capacity) return this.pointer;
		const capacity = capacityFor(Math.max(bytes, 64 * 1024));
		// Released before the larger region is allocated, its kept bytes held in JavaScript meanwhile: the allocator can
		// then extend the region where it was, where allocating first would leave its old space as a hole.
		const kept = keep > 0 ? new Uint8Array(this.heap.memory.buffer, this.pointer, keep).slice() : undefined;
		if (this.pointer !== 0) this.heap.release(this.pointer);
		this.pointer = this.capacity = 0;
		const pointer = this.heap.alloc(capacity);
		if (pointer === 0) throw new Dt64ExportError("TOO_LARGE", `out of WebAssembly memory for ${bytes} bytes`);
		if (kept !== undefined) new Uint8Array(this.heap.memory.buffer, pointer, keep).set(kept);
		this.pointer = pointer;
		this.capacity = capacity;
		return pointer;
	}
}
