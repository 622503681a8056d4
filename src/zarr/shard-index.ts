import type { AbsolutePath, AsyncReadable } from "../store/readable.js";
import { RangeOutsideError } from "../store/range-outside.js";
import { Dt64ExportError, errorInContext } from "../errors.js";
import type { ForbiddenChunks } from "../store/forbidden-chunks.js";
import { storeReadFailure } from "../store/read-failure.js";
import { isRefusedKey, refusedChunkError } from "../store/refused-key.js";
import type { CodecMetadata } from "./array-metadata.js";
import { crc32c } from "./codecs/crc32c.js";
import { ChunkDecoder } from "./chunk-decoder.js";
import { cStrides, product } from "./grid.js";
import type { ChunkBox } from "./chunk-box.js";
import type { ValueBound } from "../store/value-bound.js";
import { encodedShardBound } from "./encoded-chunk-bound.js";
import { KeptInnerChunks } from "./kept-inner-chunks.js";
import { runAround, shardLayout, type DataSpan } from "./shard-runs.js";

const EMPTY = 0xffff_ffff_ffff_ffffn;
/** Shard indexes kept in memory: enough for a band of chunks across a few shards, bounded for huge arrays. */
const CACHE_LIMIT = 64;
/**
 * A run of inner chunks (see shard-runs.ts; a whole read's is the whole shard) spanning at most this many bytes is
 * read at once, the first time one of them is needed, and its inner chunks are views of that read: one read per
 * shard instead of one per inner chunk. Larger runs are read inner chunk by inner chunk, so that memory stays
 * bounded whatever the shard size.
 */
export const WHOLE_SHARD_BYTES = 64 * 2 ** 20;
/**
 * Inner chunks are read each into a buffer with room for its decoded bytes (then decoded where it is, see
 * AsyncReadable.getRanges) while those buffers hold at most this many times the shard's bytes. Chunks that compress
 * better are read as views of one buffer and copied into a buffer with room one at a time, as they are decoded: a
 * copy of few bytes beside their decoding, where rooms for all of a shard's chunks at once would be many times the
 * shard (an inner chunk of 8 kB that decodes to 800 kB).
 */
const ROOMY_READ_FACTOR = 2;
/**
 * Shards whose runs are kept read at once: the one being decoded and the next ones the reader asks for ahead. A
 * shard may hold several runs (a box of its inner chunks written in Morton order, as zarr-python 3 writes N-d
 * shards, is several runs), each a part of its bytes. A pass that reads more shards at once than this reads them
 * by parts that it finishes one after another (see shard-read-box.ts), not whole.
 */
export const SHARD_DATA_LIMIT = 3;

/**
 * A run of a shard's inner chunks read at once: each in a buffer of its own (a store that reads several ranges in
 * one go, see AsyncReadable.getRanges), or as views of one read from the first to the end of the last.
 */
/**
 * Where the inner chunk at index slot `slot`, of `length` encoded bytes, is read when its run is read at once: its
 * place in the buffer its shard decodes into (see ShardBands), or undefined for a pooled buffer of its own.
 */
export type ReadInto = (slot: number, length: number) => Uint8Array | undefined;

interface ShardData {
	/** By index slot, the inner chunks not yet given out, each in its own buffer. */
	readonly chunks?: Map<number, Uint8Array>;
	/** The bytes from `start`, the first byte of any inner chunk, to the end of the last. */
	readonly start: number;
	readonly bytes?: Uint8Array;
	/**
	 * The index slots whose bytes were handed out. Each inner chunk's bytes are given out once: the buffer may be
	 * the store's pool's, which takes it back once every range has been said dead by its one owner (the chunk
	 * decoder, or the output once the values are written), and a second view of a range would outlive that.
	 */
	readonly handedOut: Set<number>;
}

/** A run of one shard being read or read, held until each of its inner chunks is given out. */
interface HeldRun {
	readonly shardKey: AbsolutePath;
	readonly span: DataSpan;
	readonly data: Promise<ShardData | null>;
}

/**
 * Reads inner chunks of `sharding_indexed` shards through their index, at the end of the shard (the default) or
 * at its start, which zarrita does not support. Offsets are checked against the shard, so a corrupt index is an
 * error naming the shard instead of a read of the wrong bytes.
 */
export class ShardIndexReader {
	readonly #indexes = new Map<string, Promise<BigUint64Array | null>>();
	readonly #indexCodec: ShardIndexCodec;
	readonly #perShard: number[];
	readonly #strides: number[];
	readonly #encodedIndexBytes: number;
	readonly #held: HeldRun[] = [];
	readonly #kept = new KeptInnerChunks();

	constructor(
		private readonly store: AsyncReadable,
		perShard: number[],
		indexCodecs: CodecMetadata[],
		private readonly location: "start" | "end",
		/** When given, a shard whose key is refused with a 403 that may be a missing key is a missing shard, counted there (see RefusedKeyError). */
		private readonly forbiddenAsMissing?: ForbiddenChunks,
		/** The most bytes an inner chunk can be encoded to (see encodedChunkBound): a shard is bounded by as many and its index. */
		innerBound?: ValueBound,
	) {
		this.#indexCodec = new ShardIndexCodec(perShard, indexCodecs);
		this.#perShard = perShard;
		this.#strides = cStrides(perShard);
		this.#encodedIndexBytes = this.#indexCodec.encodedBytes;
		this.#bound = innerBound === undefined ? undefined : encodedShardBound(product(perShard), innerBound, this.#encodedIndexBytes);
	}

	/**
	 * Given with each read of the shard's ranges: a store that reads the whole shard to read a range of it (a deflated
	 * zip entry) refuses a shard larger than this before inflating it.
	 */
	readonly #bound: ValueBound | undefined;

	/**
	 * `room`: bytes the buffer of an inner chunk read on its own should hold (see GetOptions.room). `within`: the
	 * inner chunks of this shard the reader's pass needs (inner chunk coordinates; default: all of them), read at
	 * once with this one where they are next to it in the shard (see shard-runs.ts). An inner chunk that is the only
	 * one of its run is read alone and kept (see KeptInnerChunks): the next read of it is no fetch; unless
	 * `keepAlone` is false (`within` a part of a pass that reads each inner chunk once, see shard-read-box.ts).
	 * `into`: where the inner chunks of a run read at once go, where it says (see ReadInto). `coords`: the inner
	 * chunk's coordinates in the array's grid of inner chunks, kept with bytes kept (see lastReads).
	 */
	async readInnerChunk(
		shardKey: AbsolutePath,
		inner: readonly number[],
		signal?: AbortSignal,
		room?: number,
		within?: ChunkBox,
		keepAlone = true,
		into?: ReadInto,
		coords?: readonly number[],
	): Promise<Uint8Array | undefined> {
		const index = await this.#index(shardKey, signal);
		if (index === null) return undefined;
		const slot = inner.reduce((sum, c, axis) => sum + c * this.#strides[axis], 0);
		const offset = index[2 * slot];
		const length = index[2 * slot + 1];
		if (offset === EMPTY && length === EMPTY) return undefined;
		if (offset > BigInt(Number.MAX_SAFE_INTEGER) || length > BigInt(Number.MAX_SAFE_INTEGER)) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: corrupt index entry ${slot} (offset ${offset}, length ${length})`, { key: shardKey.slice(1) });
		}
		const layout = shardLayout(index);
		let held = this.#heldRun(shardKey, layout.positionOf[slot]);
		let alone = false;
		if (held === undefined) {
			const kept = this.#kept.take(shardKey, slot);
			if (kept !== undefined) return kept;
			// A kept inner chunk ends a run, also of a whole read: its bytes are here already, and it is decoded from
			// them. Read again with the run, it was read twice, and into its place (ReadInto) as it was decoded there
			// from the kept bytes: its values overwritten by its encoded bytes after they were decoded (a range from a
			// shard's first inner chunk, the one the search probed first).
			// Nor is an inner chunk of a run held already (read by another pass, not all given out yet): the read of its
			// slot gets that run's bytes, or reads it alone once that run gave them to another, and never these; read
			// into its place with this run, its place had a second writer beside the bytes decoded there.
			const span = runAround(
				layout,
				slot,
				(other) => (within === undefined || this.#holds(within, other)) && !this.#kept.has(shardKey, other) && this.#heldRun(shardKey, layout.positionOf[other]) === undefined,
			);
			alone = keepAlone && within !== undefined && span !== layout.all && span.chunks === 1;
			if (!alone && span.end - span.start <= WHOLE_SHARD_BYTES) held = this.#readRun(shardKey, span, signal, room, into);
		}
		if (held !== undefined) {
			const data = await held.data;
			if (data !== null && !data.handedOut.has(slot)) {
				data.handedOut.add(slot);
				// Every inner chunk given out: the run is not read again from these buffers (see ShardData).
				if (data.handedOut.size === held.span.chunks) this.#forget(held);
				const own = data.chunks?.get(slot);
				if (own !== undefined) {
					data.chunks!.delete(slot);
					return own;
				}
				const from = Number(offset) - data.start;
				if (data.bytes !== undefined) return data.bytes.subarray(from, from + Number(length));
			}
		}
		let bytes: Uint8Array | undefined;
		try {
			bytes = await this.store.getRange!(shardKey, { offset: Number(offset), length: Number(length) }, { signal, bound: this.#bound });
		} catch (error) {
			// A store that checks the range itself (a folder, a zip) says so in its own words: named here as the entry it is.
			if (error instanceof RangeOutsideError) {
				throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: index entry ${slot} points outside the shard (${error.message})`, { cause: error, key: shardKey.slice(1) });
			}
			// Its other refusals of the bytes (a zip entry failing its CRC-32) name what failed themselves.
			if (error instanceof Dt64ExportError && error.code === "CHUNK_CORRUPT") throw error;
			throw storeReadFailure(`shard ${shardKey.slice(1)}`, error, shardKey.slice(1), signal);
		}
		if (bytes === undefined || bytes.byteLength !== Number(length)) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: index entry ${slot} points outside the shard`, { key: shardKey.slice(1) });
		}
		if (alone) this.#kept.keep(shardKey, slot, bytes, coords);
		return bytes;
	}

	/** Bytes of the inner chunks kept from reads of their own (see KeptInnerChunks). */
	get keptBytes(): number {
		return this.#kept.bytes;
	}

	/**
	 * The reads that kept inner chunks (the range search's probes) are over: those kept that `wanted` takes (by their
	 * coordinates in the array's grid of inner chunks) are kept for one more read each, the others forgotten now.
	 */
	lastReads(wanted: (coords: readonly number[]) => boolean): void {
		this.#kept.lastReads(wanted);
	}

	/** Whether the inner chunk at index slot `slot` lies in `box` (inner chunk coordinates). */
	#holds(box: ChunkBox, slot: number): boolean {
		return this.#strides.every((stride, axis) => {
			const c = Math.floor(slot / stride) % this.#perShard[axis];
			return c >= box.start[axis] && c < box.end[axis];
		});
	}

	/** The run of `shardKey` held that holds the inner chunk at `position` (see ShardLayout.positionOf). */
	#heldRun(shardKey: AbsolutePath, position: number): HeldRun | undefined {
		return this.#held.find((held) => held.shardKey === shardKey && held.span.first <= position && position <= held.span.last);
	}

	#readRun(shardKey: AbsolutePath, span: DataSpan, signal?: AbortSignal, room?: number, into?: ReadInto): HeldRun {
		const held = { shardKey, span, data: this.#readSpan(shardKey, span, signal, room, into) };
		const shards = new Set(this.#held.map((other) => other.shardKey));
		if (!shards.has(shardKey) && shards.size >= SHARD_DATA_LIMIT) {
			const oldest = this.#held[0].shardKey;
			this.#held.splice(0, this.#held.length, ...this.#held.filter((other) => other.shardKey !== oldest));
		}
		this.#held.push(held);
		return held;
	}

	#forget(held: HeldRun): void {
		const at = this.#held.indexOf(held);
		if (at >= 0) this.#held.splice(at, 1);
	}

	/**
	 * Reads the span, or gives null: the read of a single inner chunk then says exactly what is wrong (an entry
	 * past the end of the file, a store that fails), where the span could only say that some entry is.
	 */
	async #readSpan(shardKey: AbsolutePath, span: DataSpan, signal?: AbortSignal, room?: number, into?: ReadInto): Promise<ShardData | null> {
		try {
			if (this.store.getRanges !== undefined && !span.overlapping && room !== undefined && span.entries.length * room <= ROOMY_READ_FACTOR * (span.end - span.start)) {
				// Each inner chunk in a buffer of its own, with room to be decoded where it is: no copy per inner chunk.
				const places = into === undefined ? undefined : span.entries.map(({ slot, length }) => into(slot, length));
				const read = await this.store.getRanges(shardKey, span.entries, { signal, pooled: true, room, bound: this.#bound, ...(places && { into: places }) });
				if (read === undefined || read.length !== span.entries.length) return null;
				return { start: span.start, chunks: new Map(span.entries.map(({ slot }, k) => [slot, read[k]])), handedOut: new Set() };
			}
			// Pooled only where each byte belongs to one inner chunk: two entries sharing bytes would be two owners.
			const bytes = await this.store.getRange!(shardKey, { offset: span.start, length: span.end - span.start }, { signal, pooled: !span.overlapping, bound: this.#bound });
			return bytes !== undefined && bytes.byteLength === span.end - span.start ? { start: span.start, bytes, handedOut: new Set() } : null;
		} catch {
			return null;
		}
	}

	#index(shardKey: AbsolutePath, signal?: AbortSignal): Promise<BigUint64Array | null> {
		let index = this.#indexes.get(shardKey);
		if (index === undefined) {
			index = this.#readIndex(shardKey, signal);
			index.catch(() => this.#indexes.delete(shardKey));
			if (this.#indexes.size >= CACHE_LIMIT) this.#indexes.delete(this.#indexes.keys().next().value as string);
			this.#indexes.set(shardKey, index);
		}
		return index;
	}

	async #readIndex(shardKey: AbsolutePath, signal?: AbortSignal): Promise<BigUint64Array | null> {
		if (!this.store.getRange) throw new Dt64ExportError("UNSUPPORTED", "sharding_indexed: the store cannot read byte ranges");
		const size = this.#encodedIndexBytes;
		let bytes: Uint8Array | undefined;
		try {
			bytes = await this.store.getRange(
				shardKey,
				this.location === "end" ? { suffixLength: size } : { offset: 0, length: size },
				{ signal, bound: this.#bound },
			);
		} catch (error) {
			if (isRefusedKey(error)) {
				if (this.forbiddenAsMissing !== undefined) {
					this.forbiddenAsMissing.add(shardKey.slice(1));
					return null;
				}
				throw refusedChunkError(error, `shard ${shardKey.slice(1)}`);
			}
			throw errorInContext(`shard ${shardKey.slice(1)}: cannot read its index`, error, "READ_FAILED", { key: shardKey.slice(1) });
		}
		if (bytes === undefined) return null;
		return this.#indexCodec.decode(bytes, shardKey.slice(1), shardKey.slice(1));
	}
}

/**
 * The index of a `sharding_indexed` shard: `index_codecs` (bytes, either endian, and crc32c only), the bytes the index
 * takes, and its decoding into (offset, length) words, its checksum verified. One rule for a shard read from the store
 * (ShardIndexReader) and a shard inside another one's inner chunk (nested-shard.ts).
 */
export class ShardIndexCodec {
	readonly #decoder: ChunkDecoder;
	readonly #checksum: boolean;
	/** The bytes the encoded index takes: 16 per inner chunk, and 4 for a crc32c. */
	readonly encodedBytes: number;

	constructor(perShard: readonly number[], indexCodecs: CodecMetadata[]) {
		const unsupported = indexCodecs.find((codec) => codec.name !== "bytes" && codec.name !== "crc32c");
		if (unsupported) throw new Dt64ExportError("UNSUPPORTED", `${"sharding_indexed"}: index codec ${JSON.stringify(unsupported.name)} is not supported (only bytes and crc32c)`);
		this.#decoder = new ChunkDecoder([...perShard, 2], indexCodecs);
		this.#checksum = indexCodecs.some((codec) => codec.name === "crc32c");
		this.encodedBytes = product(perShard) * 16 + (this.#checksum ? 4 : 0);
	}

	/** The (offset, length) words of the encoded index `bytes` of the shard named `shard` in errors (`key`: its store key). */
	async decode(bytes: Uint8Array, shard: string, key?: string): Promise<BigUint64Array> {
		if (this.#checksum) {
			const payload = bytes.subarray(0, bytes.byteLength - 4);
			const stored = new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 4, 4).getUint32(0, true);
			if (crc32c(payload) !== stored) throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shard}: index checksum mismatch (crc32c)`, key === undefined ? {} : { key });
		}
		const words = await this.#decoder.decode(bytes, `${shard} index`);
		return new BigUint64Array(words.buffer, words.byteOffset, words.length);
	}
}
