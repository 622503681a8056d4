/**
 * Buffers for whole chunks, handed back for reuse once their bytes are dead. The buffer a chunk file is read
 * into, and the buffer a compressed chunk is inflated into, are the buffers of the next chunks once their bytes
 * are written (or, for compressed bytes, inflated): the kernel is spared paging in and zeroing fresh memory, and
 * the collector a buffer of garbage per chunk. Garbage buffers are what made peak memory grow with the length of
 * an export: V8 frees them only when it collects, and it lets tens of megabytes of them pile up first.
 *
 * A buffer comes back only when its owner says its bytes are dead: the output file after writing a view that
 * covers the whole buffer, which in an export of one array is the chunk's one and only use, and the chunk decoder
 * after decoding a chunk into other memory. A buffer used any other way (copied into a band, sliced) is never
 * handed back and is collected as usual. The pool is opt-in: the CLI, which builds every stage, shares one
 * between its store, its decoders and its output file.
 *
 * Buffers are made in size classes (eight per power of two, see capacityFor), so that compressed chunks of slightly different
 * sizes reuse each other's buffers; `acquire` hands out a view of the size asked for.
 */
export class BufferPool {
	/** Free buffers by capacity. */
	readonly #free = new Map<number, ArrayBuffer[]>();
	/** The length of the view each issued buffer's bytes are, for `release`: its whole use. */
	readonly #issuedLength = new WeakMap<ArrayBuffer, number>();
	#freeBytes = 0;
	#reused = 0;

	/** `maxFreeBytes` bounds what the pool keeps between uses. */
	constructor(readonly maxFreeBytes = 256 * 2 ** 20) {}

	/** Bytes of the buffers kept for reuse. */
	get freeBytes(): number {
		return this.#freeBytes;
	}

	/** How many times `acquire` handed out a buffer handed back before. */
	get reused(): number {
		return this.#reused;
	}

	/** A buffer of exactly `size` bytes, with undefined content: one handed back, or a new one. */
	acquire(size: number): Buffer {
		const capacity = capacityFor(size);
		const reused = this.#free.get(capacity)?.pop();
		let buffer: ArrayBuffer;
		if (reused !== undefined) {
			this.#freeBytes -= capacity;
			this.#reused++;
			buffer = reused;
		} else {
			buffer = Buffer.allocUnsafeSlow(capacity).buffer as ArrayBuffer;
		}
		this.#issuedLength.set(buffer, size);
		return Buffer.from(buffer, 0, size);
	}

	/**
	 * Says that the bytes of an issued buffer are now its first `view.byteLength` bytes (a decompressor that was
	 * given room for more than it wrote): `release` then takes a view of exactly those as the whole buffer.
	 */
	shorten(view: Uint8Array): void {
		const buffer = view.buffer;
		const issued = buffer instanceof ArrayBuffer ? this.#issuedLength.get(buffer) : undefined;
		if (issued === undefined || view.byteOffset !== 0 || view.byteLength > issued) return;
		this.#issuedLength.set(buffer as ArrayBuffer, view.byteLength);
	}

	/**
	 * Takes as issued a buffer of the pool that came back as a new ArrayBuffer (transferred to a decode thread and
	 * back), its bytes now the first `view.byteLength`: `release` then takes it back as any other.
	 */
	adopt(view: Uint8Array): void {
		const buffer = view.buffer;
		if (!(buffer instanceof ArrayBuffer) || view.byteOffset !== 0 || capacityFor(buffer.byteLength) !== buffer.byteLength) return;
		this.#issuedLength.set(buffer, view.byteLength);
	}

	/** Hands back the buffer under `view` if the pool issued it and `view` covers all of it; otherwise does nothing. */
	release(view: Uint8Array): void {
		const buffer = view.buffer;
		if (!(buffer instanceof ArrayBuffer)) return;
		const issued = this.#issuedLength.get(buffer);
		if (issued === undefined || view.byteOffset !== 0 || view.byteLength !== issued) return;
		const capacity = buffer.byteLength;
		if (this.#freeBytes + capacity > this.maxFreeBytes) return;
		const free = this.#free.get(capacity) ?? [];
		// A buffer handed back twice would be issued twice: each is kept once.
		if (free.includes(buffer)) return;
		free.push(buffer);
		this.#free.set(capacity, free);
		this.#freeBytes += capacity;
	}
}

/** Smallest step between size classes. */
const MIN_STEP_BYTES = 4096;

/**
 * The capacity of the size class of `size`: rounded up to an eighth of the power of two below it (at most 12.5%
 * more), in whole 4 KiB pages.
 */
export function capacityFor(size: number): number {
	if (size <= MIN_STEP_BYTES) return MIN_STEP_BYTES;
	const step = Math.max(MIN_STEP_BYTES, 2 ** (Math.floor(Math.log2(size)) - 3));
	return Math.ceil(size / step) * step;
}
