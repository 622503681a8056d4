import type { AbsolutePath, AsyncReadable } from "../store/readable.js";
import { Dt64ExportError, errorInContext } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";
import { crc32c } from "./codecs/crc32c.js";
import { ChunkDecoder } from "./chunk-decoder.js";
import { cStrides, product } from "./grid.js";

const EMPTY = 0xffff_ffff_ffff_ffffn;
/** Shard indexes kept in memory: enough for a band of chunks across a few shards, bounded for huge arrays. */
const CACHE_LIMIT = 64;
/**
 * A shard whose inner chunks span at most this many bytes is read at once, the first time one of them is needed,
 * and its inner chunks are views of that read: one read per shard instead of one per inner chunk. Larger shards
 * are read inner chunk by inner chunk, so that memory stays bounded whatever the shard size.
 */
const WHOLE_SHARD_BYTES = 64 * 2 ** 20;
/** Shards kept read at once: the one being decoded and the next ones the reader asks for ahead. */
const SHARD_DATA_LIMIT = 3;

/** The bytes of a shard from its first inner chunk to the end of its last. */
interface ShardData {
	readonly start: number;
	readonly bytes: Uint8Array;
	/**
	 * The index slots whose views were handed out. Each inner chunk's bytes are given out once: the buffer may be
	 * the store's pool's, which takes it back once every range has been said dead by its one owner (the chunk
	 * decoder, or the output once the values are written), and a second view of a range would outlive that.
	 */
	readonly handedOut: Set<number>;
}

/** Where a shard's inner chunks lie, how many there are, and whether any two share bytes. */
interface DataSpan {
	readonly start: number;
	readonly end: number;
	readonly chunks: number;
	readonly overlapping: boolean;
}

/**
 * Reads inner chunks of `sharding_indexed` shards through their index, at the end of the shard (the default) or
 * at its start, which zarrita does not support. Offsets are checked against the shard, so a corrupt index is an
 * error naming the shard instead of a read of the wrong bytes.
 */
export class ShardIndexReader {
	readonly #indexes = new Map<string, Promise<BigUint64Array | null>>();
	readonly #decoder: ChunkDecoder;
	readonly #strides: number[];
	readonly #encodedIndexBytes: number;

	constructor(
		private readonly store: AsyncReadable,
		perShard: number[],
		indexCodecs: CodecMetadata[],
		private readonly location: "start" | "end",
	) {
		const unsupported = indexCodecs.find((codec) => codec.name !== "bytes" && codec.name !== "crc32c");
		if (unsupported) throw new Dt64ExportError("UNSUPPORTED", `${"sharding_indexed"}: index codec ${JSON.stringify(unsupported.name)} is not supported (only bytes and crc32c)`);
		this.#decoder = new ChunkDecoder([...perShard, 2], indexCodecs);
		this.#strides = cStrides(perShard);
		this.#encodedIndexBytes = product(perShard) * 16 + (indexCodecs.some((codec) => codec.name === "crc32c") ? 4 : 0);
		this.#checksum = indexCodecs.some((codec) => codec.name === "crc32c");
	}

	readonly #checksum: boolean;

	async readInnerChunk(shardKey: AbsolutePath, inner: readonly number[], signal?: AbortSignal): Promise<Uint8Array | undefined> {
		const index = await this.#index(shardKey, signal);
		if (index === null) return undefined;
		const slot = inner.reduce((sum, c, axis) => sum + c * this.#strides[axis], 0);
		const offset = index[2 * slot];
		const length = index[2 * slot + 1];
		if (offset === EMPTY && length === EMPTY) return undefined;
		if (offset > BigInt(Number.MAX_SAFE_INTEGER) || length > BigInt(Number.MAX_SAFE_INTEGER)) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: corrupt index entry ${slot} (offset ${offset}, length ${length})`);
		}
		const span = dataSpan(index);
		const data = span.end - span.start <= WHOLE_SHARD_BYTES ? await this.#shardData(shardKey, span, signal) : null;
		if (data !== null && !data.handedOut.has(slot)) {
			data.handedOut.add(slot);
			// Every inner chunk given out: the shard is not read again from this buffer (see ShardData).
			if (data.handedOut.size === span.chunks) this.#data.delete(shardKey);
			const from = Number(offset) - data.start;
			return data.bytes.subarray(from, from + Number(length));
		}
		const bytes = await this.store.getRange!(shardKey, { offset: Number(offset), length: Number(length) }, { signal });
		if (bytes === undefined || bytes.byteLength !== Number(length)) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: index entry ${slot} points outside the shard`);
		}
		return bytes;
	}

	readonly #data = new Map<string, Promise<ShardData | null>>();

	/** A shard's inner chunks read at once; null when that read failed, and its chunks are read one by one. */
	#shardData(shardKey: AbsolutePath, span: DataSpan, signal?: AbortSignal): Promise<ShardData | null> {
		let data = this.#data.get(shardKey);
		if (data === undefined) {
			data = this.#readSpan(shardKey, span, signal);
			if (this.#data.size >= SHARD_DATA_LIMIT) this.#data.delete(this.#data.keys().next().value as string);
			this.#data.set(shardKey, data);
		}
		return data;
	}

	/**
	 * Reads the span, or gives null: the read of a single inner chunk then says exactly what is wrong (an entry
	 * past the end of the file, a store that fails), where the span could only say that some entry is.
	 */
	async #readSpan(shardKey: AbsolutePath, span: DataSpan, signal?: AbortSignal): Promise<ShardData | null> {
		try {
			// Pooled only where each byte belongs to one inner chunk: two entries sharing bytes would be two owners.
			const bytes = await this.store.getRange!(shardKey, { offset: span.start, length: span.end - span.start }, { signal, pooled: !span.overlapping });
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
				{ signal },
			);
		} catch (error) {
			throw errorInContext(`shard ${shardKey.slice(1)}: cannot read its index`, error, "READ_FAILED", { key: shardKey });
		}
		if (bytes === undefined) return null;
		if (this.#checksum) verifyCrc32c(bytes, shardKey);
		const words = await this.#decoder.decode(bytes, `${shardKey.slice(1)} index`);
		return new BigUint64Array(words.buffer, words.byteOffset, words.length);
	}
}

function verifyCrc32c(bytes: Uint8Array, shardKey: AbsolutePath): void {
	const payload = bytes.subarray(0, bytes.byteLength - 4);
	const stored = new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 4, 4).getUint32(0, true);
	if (crc32c(payload) !== stored) throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: index checksum mismatch (crc32c)`);
}

const spans = new WeakMap<BigUint64Array, DataSpan>();

/** Where a shard's inner chunks lie: from the first byte of any to the last byte of any (computed once per index). */
function dataSpan(index: BigUint64Array): DataSpan {
	let span = spans.get(index);
	if (span === undefined) {
		const entries: [number, number][] = [];
		for (let slot = 0; slot < index.length; slot += 2) {
			if (index[slot] === EMPTY && index[slot + 1] === EMPTY) continue;
			entries.push([Number(index[slot]), Number(index[slot]) + Number(index[slot + 1])]);
		}
		entries.sort((a, b) => a[0] - b[0]);
		let end = 0;
		let overlapping = false;
		for (const [from, to] of entries) {
			if (from < end) overlapping = true;
			end = Math.max(end, to);
		}
		const start = entries.length === 0 ? 0 : entries[0][0];
		span = { start: Math.min(start, end), end, chunks: entries.length, overlapping };
		spans.set(index, span);
	}
	return span;
}
