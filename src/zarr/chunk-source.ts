import type { AbsolutePath, AsyncReadable } from "@zarrita/storage";
import { registry } from "zarrita";
import { Dt64ExportError } from "../errors.js";
import type { CodecMetadata, TimeArrayMetadata } from "./array-metadata.js";
import { ChunkDecoder } from "./chunk-decoder.js";
import { chunkKeyEncoder, type ChunkKeyEncoder } from "./chunk-key.js";
import { chunksPerAxis, product } from "./grid.js";
import { ShardIndexReader } from "./shard-index.js";

/**
 * The decoded chunks of one array by chunk coordinates, whatever the layout: plain chunks, or inner chunks of
 * `sharding_indexed` shards. A missing chunk is the fill value, exactly. This is the read grid of the array:
 * `chunkShape` is the inner chunk shape for sharded arrays.
 */
export interface ChunkSource {
	readonly chunkShape: number[];
	readonly gridShape: number[];
	read(coords: readonly number[], signal?: AbortSignal): Promise<BigInt64Array>;
	/** The store key of a chunk, for messages. */
	describe(coords: readonly number[]): string;
}

const SHARDING = "sharding_indexed";

function joinKey(arrayPath: string, key: string): AbsolutePath {
	return `/${[arrayPath, key].filter((part) => part.length > 0).join("/")}` as AbsolutePath;
}

/** Every codec must be one zarrita knows (or sharding, which is read here), checked before any data is read. */
function checkCodecs(codecs: CodecMetadata[], where: string): void {
	for (const codec of codecs) {
		if (codec.name === SHARDING) continue;
		if (!registry.has(codec.name)) throw new Dt64ExportError(`${where}: unknown codec ${JSON.stringify(codec.name)}`);
	}
}

export function createChunkSource(store: AsyncReadable, meta: TimeArrayMetadata, where: string): ChunkSource {
	checkCodecs(meta.codecs, where);
	const encodeKey = chunkKeyEncoder(meta.chunkKeyEncoding);
	const sharding = meta.codecs.find((codec) => codec.name === SHARDING);
	if (sharding === undefined) return plainChunks(store, meta, encodeKey);
	if (meta.codecs.length !== 1) {
		throw new Dt64ExportError(`${where}: ${SHARDING} must be the only codec of the array (found ${meta.codecs.map((c) => c.name).join(", ")})`);
	}
	return shardedChunks(store, meta, encodeKey, sharding, where);
}

function fillChunk(size: number, fill: bigint): BigInt64Array {
	return new BigInt64Array(size).fill(fill);
}

function plainChunks(store: AsyncReadable, meta: TimeArrayMetadata, encodeKey: ChunkKeyEncoder): ChunkSource {
	const decoder = new ChunkDecoder(meta.chunkShape, meta.codecs);
	const size = product(meta.chunkShape);
	const describe = (coords: readonly number[]) => joinKey(meta.path, encodeKey(coords)).slice(1);
	return {
		chunkShape: meta.chunkShape,
		gridShape: chunksPerAxis(meta.shape, meta.chunkShape),
		describe,
		async read(coords, signal) {
			const key = joinKey(meta.path, encodeKey(coords));
			const bytes = await store.get(key, { signal });
			if (bytes === undefined) return fillChunk(size, meta.fillValue);
			return decoder.decode(bytes, describe(coords));
		},
	};
}

function shardedChunks(
	store: AsyncReadable,
	meta: TimeArrayMetadata,
	encodeKey: ChunkKeyEncoder,
	sharding: CodecMetadata,
	where: string,
): ChunkSource {
	const configuration = sharding.configuration ?? {};
	const innerShape = configuration.chunk_shape as number[];
	if (!Array.isArray(innerShape) || innerShape.length !== meta.shape.length || innerShape.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
		throw new Dt64ExportError(`${where}: ${SHARDING}.chunk_shape must be ${meta.shape.length} positive integers, got ${JSON.stringify(innerShape)}`);
	}
	if (innerShape.some((n, axis) => meta.chunkShape[axis] % n !== 0)) {
		throw new Dt64ExportError(`${where}: shard shape ${JSON.stringify(meta.chunkShape)} is not a multiple of the inner chunk shape ${JSON.stringify(innerShape)}`);
	}
	const innerCodecs = (configuration.codecs as CodecMetadata[] | undefined) ?? [{ name: "bytes", configuration: { endian: "little" } }];
	const indexCodecs = (configuration.index_codecs as CodecMetadata[] | undefined) ?? [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
	checkCodecs(innerCodecs, where);
	checkCodecs(indexCodecs, where);
	if (innerCodecs.some((codec) => codec.name === SHARDING)) throw new Dt64ExportError(`${where}: nested sharding is not supported`);
	const location = configuration.index_location ?? "end";
	if (location !== "start" && location !== "end") {
		throw new Dt64ExportError(`${where}: ${SHARDING}.index_location must be "start" or "end", got ${JSON.stringify(location)}`);
	}
	const perShard = meta.chunkShape.map((n, axis) => n / innerShape[axis]);
	const index = new ShardIndexReader(store, perShard, indexCodecs, location);
	const decoder = new ChunkDecoder(innerShape, innerCodecs);
	const size = product(innerShape);
	const shardKey = (coords: readonly number[]) => joinKey(meta.path, encodeKey(coords.map((c, axis) => Math.floor(c / perShard[axis]))));
	const describe = (coords: readonly number[]) => `${shardKey(coords).slice(1)} (inner chunk ${JSON.stringify(coords.map((c, axis) => c % perShard[axis]))})`;
	return {
		chunkShape: innerShape,
		gridShape: chunksPerAxis(meta.shape, innerShape),
		describe,
		async read(coords, signal) {
			const key = shardKey(coords);
			const inner = coords.map((c, axis) => c % perShard[axis]);
			const bytes = await index.readInnerChunk(key, inner, signal);
			if (bytes === undefined) return fillChunk(size, meta.fillValue);
			return decoder.decode(bytes, describe(coords));
		},
	};
}
