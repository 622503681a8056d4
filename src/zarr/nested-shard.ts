/**
 * Nested sharding: the inner codecs of a `sharding_indexed` shard may end in `sharding_indexed` again (the spec
 * lets them be any chain whose array -> bytes codec is one, and sharding is one; zarr-python 3 reads it). Such an
 * inner chunk is a whole shard held in memory, read with its outer shard's other inner chunks: it is decoded here
 * whole, its bytes -> bytes codecs first, then its index (at its start or end), then each of its inner chunks,
 * through the same decoder again when they are shards too, each missing one (an index entry of 2^64 − 1) the fill
 * value, into the chunk in C order.
 */
import { Dt64ExportError } from "../errors.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { ValueBound } from "../store/value-bound.js";
import type { CodecMetadata } from "./array-metadata.js";
import { ChunkDecoder } from "./chunk-decoder.js";
import type { ChunkElements } from "./chunk-source.js";
import { allocateLike, copyValues, type ChunkValues } from "./chunk-values.js";
import { shardingInChain, shardingLayout, SHARDING } from "./codec-chain.js";
import { CODECS } from "./codecs/codec-map.js";
import type { BytesToBytesCodec } from "./codecs/codec.js";
import { encodedChunkBound, encodedShardBound } from "./encoded-chunk-bound.js";
import { cOrderCoordinates, cStrides, product } from "./grid.js";
import { ShardIndexCodec } from "./shard-index.js";

const EMPTY = 0xffff_ffff_ffff_ffffn;

/** What decodes one chunk's encoded bytes into its values in C order (ChunkDecoder is one). */
export interface InnerChunkDecoder<V extends ChunkValues> {
	readonly inputRoom: number | undefined;
	decode(bytes: Uint8Array, name: string, signal?: AbortSignal): Promise<V>;
}

/** A chunk decoder, and the most bytes one of its chunks can be stored in (see encodedChunkBound). */
export interface ChunkDecoding<V extends ChunkValues> {
	readonly decoder: InnerChunkDecoder<V>;
	readonly bound: ValueBound;
}

/**
 * The decoder of chunks of `shape` stored by `codecs`: a ChunkDecoder, or when the chain holds `sharding_indexed`
 * (a shard inside a shard), one that decodes the whole inner shard. `bufferPool`, `decodeHere`: see ChunkDecoder.
 */
export function chunkDecoding<V extends ChunkValues>(
	shape: number[],
	codecs: CodecMetadata[],
	elements: ChunkElements<V>,
	where: string,
	bufferPool?: BufferPool,
	decodeHere = false,
): ChunkDecoding<V> {
	const { decodedAs } = elements;
	const inChain = shardingInChain(codecs, where);
	if (inChain === undefined) return { decoder: new ChunkDecoder<V>(shape, codecs, decodedAs, bufferPool, decodeHere), bound: encodedChunkBound(product(shape), decodedAs.valueBytes) };
	const layout = shardingLayout(inChain.sharding, inChain.before, shape, where);
	const index = new ShardIndexCodec(layout.storedPerShard, layout.indexCodecs);
	// Its own inner chunks decode on this thread, from the bytes of the shard that holds them: no pool of their own.
	const inner = chunkDecoding<V>(layout.innerShape, [...inChain.before, ...layout.innerCodecs], elements, where, undefined, true);
	const shardBound = encodedShardBound(product(layout.perShard), inner.bound, index.encodedBytes);
	// Bytes -> bytes codecs after the nested sharding (a checksum, a compressor) add what they add to any chunk.
	const bound = inChain.after.length === 0 ? shardBound : { ...shardBound, bytes: shardBound.bytes + Math.ceil(shardBound.bytes / 8) + 65_536 };
	const after = inChain.after.map((codec) => {
		const made = CODECS.get(codec.name)!(codec.configuration ?? {}, { shape, dataType: decodedAs.dataType, maxDecodedBytes: shardBound.bytes, decodeHere: true });
		if (made.kind !== "bytes_to_bytes") {
			throw new Dt64ExportError("METADATA_INVALID", `${where}: codec ${JSON.stringify(codec.name)} cannot come after ${SHARDING}, only bytes -> bytes codecs can (codecs ${JSON.stringify(codecs.map((c) => c.name))})`, { field: codec.name });
		}
		return made as BytesToBytesCodec;
	});
	const { stored, innerShape, storedPerShard, location } = layout;
	const size = product(shape);
	const innerSize = product(innerShape);
	const slotStrides = cStrides(storedPerShard);
	const decoder: InnerChunkDecoder<V> = {
		inputRoom: undefined,
		async decode(encoded, name, signal) {
			let bytes = encoded;
			for (let i = after.length - 1; i >= 0; i--) bytes = await after[i].decode(bytes, signal);
			if (bytes.byteLength < index.encodedBytes) {
				throw new Dt64ExportError("CHUNK_CORRUPT", `chunk ${name}: a nested shard of ${bytes.byteLength} bytes, shorter than its index (${index.encodedBytes} bytes)`);
			}
			const indexBytes = location === "end" ? bytes.subarray(bytes.byteLength - index.encodedBytes) : bytes.subarray(0, index.encodedBytes);
			const words = await index.decode(indexBytes, name);
			let out: V | undefined;
			for (const storedCoords of cOrderCoordinates(storedPerShard)) {
				const slot = storedCoords.reduce((sum, c, axis) => sum + c * slotStrides[axis], 0);
				const offset = words[2 * slot];
				const length = words[2 * slot + 1];
				const innerName = `${name} (inner chunk ${JSON.stringify(storedCoords)})`;
				let values: V;
				if (offset === EMPTY && length === EMPTY) {
					values = elements.fillChunk(innerSize, innerName);
				} else {
					if (offset + length > BigInt(bytes.byteLength)) {
						throw new Dt64ExportError("CHUNK_CORRUPT", `chunk ${name}: nested shard index entry ${slot} (offset ${offset}, length ${length}) points outside its ${bytes.byteLength} bytes`);
					}
					values = await inner.decoder.decode(bytes.subarray(Number(offset), Number(offset + length)), innerName, signal);
				}
				out ??= allocateLike(values, size);
				const origin = new Array<number>(shape.length);
				stored.forEach((axis, i) => (origin[axis] = storedCoords[i] * innerShape[axis]));
				copyInto(values, innerShape, out, shape, origin);
			}
			bufferPool?.release(encoded);
			return out ?? elements.fillChunk(size, name);
		},
	};
	return { decoder, bound };
}

/** Copies `from` (C order of `fromShape`) into `to` (C order of `toShape`) at `origin`, where it lies whole. */
function copyInto<V extends ChunkValues>(from: V, fromShape: readonly number[], to: V, toShape: readonly number[], origin: readonly number[]): void {
	const rank = fromShape.length;
	const toStrides = cStrides(toShape);
	const run = fromShape[rank - 1];
	let from0 = 0;
	for (const coords of cOrderCoordinates(fromShape.slice(0, rank - 1))) {
		let at = origin[rank - 1];
		coords.forEach((c, axis) => (at += (origin[axis] + c) * toStrides[axis]));
		copyValues(from, from0, from0 + run, to, at);
		from0 += run;
	}
}
