/**
 * The most bytes a chunk (or a shard) can be stored in, from what it decodes to: what a store may read or inflate for
 * it before refusing it, so that a hostile store's small file cannot make this process hold gigabytes.
 */
import type { ValueBound } from "../store/value-bound.js";
import { MAX_VARIABLE_WIDTH_CHUNK_BYTES } from "./codecs/decoded-size.js";

/**
 * The largest encoded size a chunk of fixed-width values can have: what a store over the network may send for it
 * (GetOptions.maxBytes) before the answer is refused rather than held. Compressors grow incompressible data by a
 * fraction of a percent at most (zstd 1/256, lz4 1/255, gzip 5 bytes per 16 KiB block, blosc a header and a word per
 * block) plus a few dozen bytes, and a checksum adds 4: a sixteenth more and 1 MiB covers any chain real stores use,
 * with room to spare, where a hostile server's endless or decompressing answer is cut at that.
 */
export function largestEncodedChunk(decodedBytes: number): number {
	return decodedBytes + Math.ceil(decodedBytes / 16) + 2 ** 20;
}

/**
 * The most bytes a chunk of `size` values of `valueBytes` each can be encoded to: its decoded bytes, and what a codec
 * that does not compress adds (a compressor's frame, a checksum: blosc 16 bytes, lz4 n/255 + 16, zstd and gzip
 * under 1%), with a wide margin. A store refuses a larger chunk file or zip entry before reading or inflating it
 * (GetOptions.bound): a zip entry of 1 MB that inflates to 1 GiB for a chunk of 4 values is never inflated. Strings
 * (`variable`: v2 object/vlen-utf8 chunks) have no size of their own: their chunk decodes to
 * MAX_VARIABLE_WIDTH_CHUNK_BYTES at most, which their bound is derived from the same way.
 */
export function encodedChunkBound(size: number, valueBytes: number | "variable"): ValueBound {
	const variable = valueBytes === "variable";
	const decoded = variable ? MAX_VARIABLE_WIDTH_CHUNK_BYTES : size * valueBytes;
	const bytes = decoded + Math.ceil(decoded / 8) + 65_536;
	const values = `${size} ${variable ? "string" : "value"}${size === 1 ? "" : "s"}`;
	const held = variable ? `at most ${MAX_VARIABLE_WIDTH_CHUNK_BYTES / 2 ** 30} GiB decoded` : `${decoded} bytes decoded`;
	return { bytes, code: "CHUNK_CORRUPT", why: `more than a chunk of ${values} (${held}) can be encoded to (${bytes} at most)` };
}

/**
 * The most bytes a shard of `chunks` inner chunks can be stored in: each inner chunk at its bound (`inner`), and its
 * index (`indexBytes`, encoded). A store refuses a larger shard that it reads whole to read a range of it (a deflated
 * zip entry, inflated first) before inflating it.
 */
export function encodedShardBound(chunks: number, inner: ValueBound, indexBytes: number): ValueBound {
	const bytes = chunks * inner.bytes + indexBytes;
	return { bytes, code: "CHUNK_CORRUPT", why: `more than a shard of ${chunks} inner ${chunks === 1 ? "chunk" : "chunks"} of at most ${inner.bytes} bytes each and its index can be stored in (${bytes} at most)` };
}
