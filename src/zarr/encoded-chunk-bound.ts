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
