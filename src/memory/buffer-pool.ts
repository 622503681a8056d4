/**
 * Buffers for whole chunks, handed back for reuse once their bytes are dead. The buffer a chunk file is read
 * into, and the buffer a compressed chunk is inflated into, are the buffers of the next chunks once their bytes
 * are written (or, for compressed bytes, inflated): the kernel is spared paging in and zeroing fresh memory, and
 * the collector a buffer of garbage per chunk. Garbage buffers are what made peak memory grow with the length of
 * an export: V8 frees them only when it collects, and it lets tens of megabytes of them pile up first.
 *
 * A buffer comes back only when its owners say all of its bytes are dead: the output file after writing a view
 * (a whole chunk, or one batch's slice of a band of rows, each written once), the chunk decoder after decoding a
 * chunk into other memory, the band reader after copying a chunk into its band. Views are counted by the ranges
 * they cover, so a buffer written in several slices comes back after its last slice, and a range said dead twice
 * counts once; a buffer of which some bytes are never said dead (a chunk whose values were converted into other
 * memory) is never handed back and is collected as usual. The pool is opt-in: the CLI, which builds every stage,
 * shares one between its store, its decoders, its batcher and its output file.
 *
 * Buffers are made in size classes (eight per power of two, see capacityFor), so that compressed chunks of slightly different
 * sizes reuse each other's buffers; `acquire` hands out a view of the size asked for.
 */
export class BufferPool {
	/** Free buffers by capacity. */
	readonly #free = new Map<number, ArrayBuffer[]>();
	/** Free shared buffers by capacity (see acquireShared). */
	readonly #freeShared = new Map<number, SharedArrayBuffer[]>();
	/** The length of the view each issued buffer's bytes are, for `release`: its whole use. */
	readonly #issuedLength = new WeakMap<PoolBuffer, number>();
	/** Of an issued buffer handed back in parts, the ranges [start, end) said dead so far: sorted, disjoint, apart. */
	readonly #deadRanges = new WeakMap<PoolBuffer, [number, number][]>();
	/** Of an issued buffer, the regions [start, end) marked as one holder's alone (see markOwned): none by default. */
	readonly #ownedRegions = new WeakMap<PoolBuffer, [number, number][]>();
	#freeBytes = 0;
	#retired = false;
	#reused = 0;
	/** Told of each buffer that came back whole (see onReturn). */
	readonly #returnListeners = new Set<(buffer: PoolBuffer) => void>();
	#writtenComeBack = false;

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

	/**
	 * Whether the stage that writes the export's batches hands their buffers back once written (see
	 * expectWrittenBack): only then does a chunk handed on to the batcher come back to this pool.
	 */
	get writtenComeBack(): boolean {
		return this.#writtenComeBack;
	}

	/**
	 * Said by a stage that hands every written buffer back (the output file, the Parquet encoder): a reader may then
	 * count a chunk it handed on as memory in use until the chunk comes back (see readBands).
	 */
	expectWrittenBack(): void {
		this.#writtenComeBack = true;
	}

	/** Calls `listener` with each issued buffer once all of its bytes are said dead; returns the unsubscribe. */
	onReturn(listener: (buffer: PoolBuffer) => void): () => void {
		this.#returnListeners.add(listener);
		return () => this.#returnListeners.delete(listener);
	}

	/**
	 * The export is over: its free buffers go, and any handed back later (a write finishing after the export settled)
	 * are not kept, so that an object still holding the pool (the table an export resolves to) holds no chunk memory.
	 */
	retire(): void {
		this.#retired = true;
		this.#free.clear();
		this.#freeShared.clear();
		this.#freeBytes = 0;
	}

	/**
	 * A view of exactly `size` bytes, with undefined content, of a buffer handed back or a new one. `room`: its buffer
	 * holds at least this many bytes (encoded bytes read where their decoded bytes will go, see GetOptions.room).
	 */
	acquire(size: number, room = size): Buffer {
		const buffer = this.#take(this.#free, capacityFor(Math.max(size, room)), (capacity) => Buffer.allocUnsafeSlow(capacity).buffer as ArrayBuffer);
		this.#issued(buffer, size);
		return Buffer.from(buffer, 0, size);
	}

	/**
	 * As `acquire`, a view of a SharedArrayBuffer: memory a decode thread writes into where it is, never transferred
	 * (the inner chunks of a shard decoded into one buffer, each at its offset, see ShardBands). Kept apart from the
	 * other buffers once back: only a shared buffer is handed out again as one. `room` as acquire's.
	 */
	acquireShared(size: number, room = size): Uint8Array {
		const buffer = this.#take(this.#freeShared, capacityFor(Math.max(size, room)), (capacity) => new SharedArrayBuffer(capacity));
		this.#issued(buffer, size);
		return new Uint8Array(buffer, 0, size);
	}

	/** A buffer of `capacity` bytes from a free list (`acquire`'s or `acquireShared`'s), or `make`'s new one. */
	#take<T extends PoolBuffer>(free: Map<number, T[]>, capacity: number, make: (capacity: number) => T): T {
		const reused = free.get(capacity)?.pop();
		if (reused === undefined) return make(capacity);
		this.#freeBytes -= capacity;
		this.#reused++;
		return reused;
	}

	/**
	 * Says that the bytes of an issued buffer are now its first `view.byteLength` bytes (a decompressor that was
	 * given room for more than it wrote): `release` then takes a view of exactly those as the whole buffer.
	 */
	shorten(view: Uint8Array): void {
		const buffer = view.buffer;
		const issued = isPoolBuffer(buffer) ? this.#issuedLength.get(buffer) : undefined;
		if (issued === undefined || view.byteOffset !== 0 || view.byteLength > issued) return;
		this.#issued(buffer as PoolBuffer, view.byteLength);
	}

	/**
	 * Takes as issued a buffer of the pool that came back as a new ArrayBuffer (transferred to a decode thread and
	 * back), its bytes now the first `view.byteLength`: `release` then takes it back as any other.
	 */
	adopt(view: Uint8Array): void {
		const buffer = view.buffer;
		if (!(buffer instanceof ArrayBuffer) || view.byteOffset !== 0 || capacityFor(buffer.byteLength) !== buffer.byteLength) return;
		this.#issued(buffer, view.byteLength);
	}

	/** Whether `view` is all of the use of a buffer this pool issued, none of it said dead: its owner may hand it over whole. */
	isWhole(view: Uint8Array): boolean {
		const buffer = view.buffer;
		return isPoolBuffer(buffer) && view.byteOffset === 0 && view.byteLength > 0 && this.#issuedLength.get(buffer) === view.byteLength && !this.#deadRanges.has(buffer);
	}

	/**
	 * Says the bytes of `view` are dead. The buffer under it comes back once every byte of its use (see acquire and
	 * shorten) has been said dead, by this view or with others before it; a buffer the pool did not issue is ignored.
	 */
	release(view: Uint8Array): void {
		const buffer = view.buffer;
		if (!isPoolBuffer(buffer)) return;
		const issued = this.#issuedLength.get(buffer);
		if (issued === undefined || view.byteLength === 0 || view.byteOffset + view.byteLength > issued) return;
		if (view.byteOffset !== 0 || view.byteLength !== issued) {
			// Dead bytes are no one's: a region marked owned that they touch is no longer.
			this.#unmark(buffer, view.byteOffset, view.byteOffset + view.byteLength);
			if (!this.#allDead(buffer, view.byteOffset, view.byteOffset + view.byteLength, issued)) return;
		}
		this.#deadRanges.delete(buffer);
		this.#ownedRegions.delete(buffer);
		// Back: no longer issued (a second release of it is ignored), whether or not it is kept for reuse.
		this.#issuedLength.delete(buffer);
		for (const listener of this.#returnListeners) listener(buffer);
		const capacity = buffer.byteLength;
		if (this.#retired || this.#freeBytes + capacity > this.maxFreeBytes) return;
		const lists = (buffer instanceof ArrayBuffer ? this.#free : this.#freeShared) as Map<number, PoolBuffer[]>;
		const free = lists.get(capacity) ?? [];
		// A buffer handed back twice would be issued twice: each is kept once.
		if (free.includes(buffer)) return;
		free.push(buffer);
		lists.set(capacity, free);
		this.#freeBytes += capacity;
	}

	/** Records that `buffer`'s use is its first `length` bytes, none of them dead yet (nor any region marked owned). */
	#issued(buffer: PoolBuffer, length: number): void {
		this.#issuedLength.set(buffer, length);
		this.#deadRanges.delete(buffer);
		this.#ownedRegions.delete(buffer);
	}

	/**
	 * Marks the bytes of `view`, a region of a buffer this pool issued, as one holder's alone from now on: nothing else
	 * views them, and nothing writes into them any more (a run of a shard's inner chunks, all decoded, handed on as the
	 * one band that views them, see handedOnByRun). Said only by a reader that knows it; the holder that takes the
	 * mark (takeOwned) may then rewrite the region where it is. A mark goes with its buffer's issue: a buffer handed
	 * out again has none; bytes said dead lose theirs. A view of no issued buffer is not marked, nor one overlapping a
	 * region marked, whose mark goes (two holders said to view the same bytes).
	 */
	markOwned(view: ArrayBufferView): void {
		const buffer = view.buffer;
		if (!isPoolBuffer(buffer) || view.byteLength === 0) return;
		const issued = this.#issuedLength.get(buffer);
		const start = view.byteOffset;
		const end = start + view.byteLength;
		if (issued === undefined || end > issued) return;
		const regions = this.#ownedRegions.get(buffer) ?? [];
		// Two holders said to view the same bytes: neither has them alone.
		if (regions.some(([from, to]) => from < end && start < to)) {
			this.#unmark(buffer, start, end);
			return;
		}
		regions.push([start, end]);
		this.#ownedRegions.set(buffer, regions);
	}

	/**
	 * Whether each of `views` is exactly a region marked owned (markOwned) of a buffer still issued; if all are, their
	 * marks are taken (a second ask says false): the caller is their holder, and may rewrite them where they are.
	 */
	takeOwned(views: readonly ArrayBufferView[]): boolean {
		const found: [number, number][][] = [];
		const indexes: number[] = [];
		for (const view of views) {
			const buffer = view.buffer;
			const regions = isPoolBuffer(buffer) && this.#issuedLength.has(buffer) ? this.#ownedRegions.get(buffer) : undefined;
			const index = regions?.findIndex(([from, to]) => from === view.byteOffset && to === view.byteOffset + view.byteLength) ?? -1;
			if (index < 0 || view.byteLength === 0) return false;
			// The same region twice (two columns viewing the same bytes) is no one holder's.
			if (found.some((other, k) => other === regions && indexes[k] === index)) return false;
			found.push(regions!);
			indexes.push(index);
		}
		for (let k = 0; k < found.length; k++) found[k][indexes[k]] = [-1, -1];
		for (const regions of new Set(found)) {
			const left = regions.filter(([from]) => from >= 0);
			regions.splice(0, regions.length, ...left);
		}
		return true;
	}

	/** Forgets the regions marked owned of `buffer` that meet [start, end). */
	#unmark(buffer: PoolBuffer, start: number, end: number): void {
		const regions = this.#ownedRegions.get(buffer);
		if (regions === undefined) return;
		const left = regions.filter(([from, to]) => to <= start || end <= from);
		if (left.length === 0) this.#ownedRegions.delete(buffer);
		else this.#ownedRegions.set(buffer, left);
	}

	/** Adds [start, end) to the dead ranges of `buffer`; whether they now cover [0, issued). */
	#allDead(buffer: PoolBuffer, start: number, end: number, issued: number): boolean {
		const merged: [number, number][] = [];
		for (const range of this.#deadRanges.get(buffer) ?? []) {
			if (range[1] < start || range[0] > end) merged.push(range);
			else {
				start = Math.min(start, range[0]);
				end = Math.max(end, range[1]);
			}
		}
		merged.push([start, end]);
		merged.sort((a, b) => a[0] - b[0]);
		this.#deadRanges.set(buffer, merged);
		return merged.length === 1 && merged[0][0] === 0 && merged[0][1] === issued;
	}
}

/** The buffers a pool issues: ArrayBuffers, and SharedArrayBuffers from acquireShared. */
export type PoolBuffer = ArrayBuffer | SharedArrayBuffer;

function isPoolBuffer(buffer: ArrayBufferLike): buffer is PoolBuffer {
	return buffer instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && buffer instanceof SharedArrayBuffer);
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
