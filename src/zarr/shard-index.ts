import type { AbsolutePath, AsyncReadable } from "@zarrita/storage";
import { Dt64ExportError, errorInContext } from "../errors.js";
import type { CodecMetadata } from "./array-metadata.js";
import { crc32c } from "./codecs/crc32c.js";
import { ChunkDecoder } from "./chunk-decoder.js";
import { cStrides, product } from "./grid.js";

const EMPTY = 0xffff_ffff_ffff_ffffn;
/** Shard indexes kept in memory: enough for a band of chunks across a few shards, bounded for huge arrays. */
const CACHE_LIMIT = 64;

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
		const bytes = await this.store.getRange!(shardKey, { offset: Number(offset), length: Number(length) }, { signal });
		if (bytes === undefined || bytes.byteLength !== Number(length)) {
			throw new Dt64ExportError("CHUNK_CORRUPT", `shard ${shardKey.slice(1)}: index entry ${slot} points outside the shard`);
		}
		return bytes;
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
