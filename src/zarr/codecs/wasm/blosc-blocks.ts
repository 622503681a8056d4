import { BLOSC_HEADER_BYTES, bloscSizes } from "../blosc-header.js";

/** Where the blocks of a blosc 1 buffer lie in it, for decoding a run of blocks at a time (blosc-blocks.c). */
export interface BloscBlocks {
	/** The header and the block starts: what blosc-blocks.c reads before any block. */
	readonly headerBytes: number;
	readonly blocksize: number;
	/** The decoded size. */
	readonly nbytes: number;
	readonly count: number;
	/** Block j's bytes are [starts[j], ends[j]) of the buffer. */
	readonly starts: Int32Array;
	readonly ends: Int32Array;
	/** The smallest start of blocks j and after: the bytes before it are never read again once block j is next. */
	readonly restStarts: Int32Array;
}

/** blosc 1's flag of a buffer whose content is stored as is after the header. */
const MEMCPYED = 0x02;

/**
 * The blocks of a blosc 1 buffer: a block ends where the next block in the buffer starts (c-blosc writes each
 * block's bytes in one piece, in block order, or in the order its threads finish them), the last at the buffer's
 * end. Undefined when the header or the block starts do not describe the buffer: it is then decoded whole, and blosc
 * says what is wrong.
 */
export function readBloscBlocks(input: Uint8Array): BloscBlocks | undefined {
	if (input.byteLength < BLOSC_HEADER_BYTES) return undefined;
	const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
	const { nbytes, blocksize, cbytes } = bloscSizes(input);
	if (cbytes !== input.byteLength || nbytes === 0 || blocksize === 0 || blocksize > nbytes || nbytes > 2 ** 31 - 1) return undefined;
	const count = Math.ceil(nbytes / blocksize);
	const starts = new Int32Array(count);
	const ends = new Int32Array(count);
	let headerBytes = BLOSC_HEADER_BYTES;
	if ((view.getUint8(2) & MEMCPYED) !== 0) {
		if (cbytes !== nbytes + BLOSC_HEADER_BYTES) return undefined;
		for (let j = 0; j < count; j++) {
			starts[j] = BLOSC_HEADER_BYTES + j * blocksize;
			ends[j] = Math.min(starts[j] + blocksize, cbytes);
		}
	} else {
		headerBytes += 4 * count;
		if (headerBytes > cbytes) return undefined;
		for (let j = 0; j < count; j++) {
			starts[j] = view.getInt32(BLOSC_HEADER_BYTES + 4 * j, true);
			if (starts[j] < headerBytes || starts[j] >= cbytes) return undefined;
		}
		const sorted = Int32Array.from(starts).sort();
		for (let j = 0; j < count; j++) {
			// The first start after this block's in the buffer: a binary search for the first start greater than it.
			let low = 0;
			let high = count;
			while (low < high) {
				const middle = (low + high) >>> 1;
				if (sorted[middle] <= starts[j]) low = middle + 1;
				else high = middle;
			}
			ends[j] = low < count ? sorted[low] : cbytes;
		}
	}
	const restStarts = new Int32Array(count);
	for (let j = count - 1, least = cbytes; j >= 0; j--) restStarts[j] = least = Math.min(least, starts[j]);
	return { headerBytes, blocksize, nbytes, count, starts, ends, restStarts };
}
