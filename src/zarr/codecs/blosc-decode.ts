import { Dt64ExportError } from "../../errors.js";
import { BLOSC_HEADER_BYTES, readBloscHeader } from "./blosc-header.js";

interface BloscDecoder {
	decode(bytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/**
 * numcodecs' Blosc ignores what `blosc_decompress` returns: a chunk that fails inside blosc (a corrupt lz4 stream)
 * comes back as the output buffer as malloc left it, holding whatever earlier chunks left in the WebAssembly heap,
 * and is exported as data. Blosc stops at the first block it cannot decode, so such an output ends with bytes it
 * never wrote. Before each decode the heap is filled with a known byte by decoding an uncompressed ("memcpyed")
 * blosc buffer of the same size, whose freed memory the next output reuses; an output whose block ends still hold
 * that byte is decoded once more over another byte, and refused if the two outputs differ (a successful decode is
 * deterministic, so real data that happens to end with the byte passes). Decodes are serialized so that no other
 * chunk's decode runs between the fill and the decode it prepares. The detection relies on numcodecs' allocator
 * handing the freed fill memory to the next output (measured with numcodecs 0.3.2: it does); it can never refuse a
 * chunk that decodes. Cost: one memcpy-sized decode more per chunk.
 */
const FILL = 0xa5;
const SECOND_FILL = 0x5a;
const MEMCPYED = 0x02;

let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(task: () => Promise<T>): Promise<T> {
	const run = queue.then(task, task);
	queue = run.catch(() => undefined);
	return run;
}

/** An uncompressed blosc buffer of `nbytes` copies of `byte`: decoding it is a memcpy of exactly that size. */
function fillFrame(nbytes: number, byte: number): Uint8Array {
	const frame = new Uint8Array(BLOSC_HEADER_BYTES + nbytes).fill(byte);
	const view = new DataView(frame.buffer);
	frame.set([2, 1, MEMCPYED, 1]);
	view.setUint32(4, nbytes, true);
	view.setUint32(8, nbytes, true);
	view.setUint32(12, BLOSC_HEADER_BYTES + nbytes, true);
	return frame;
}

let cachedFill: Uint8Array | undefined;

function fillFor(nbytes: number): Uint8Array {
	if (cachedFill?.byteLength !== BLOSC_HEADER_BYTES + nbytes) cachedFill = fillFrame(nbytes, FILL);
	return cachedFill;
}

/** True when the last 8 bytes (or fewer) before the end of some block are all `byte`: blosc may not have written them. */
function blockEndsHold(out: Uint8Array, blocksize: number, byte: number): boolean {
	for (let end = Math.min(blocksize, out.byteLength); ; end = Math.min(end + blocksize, out.byteLength)) {
		let held = true;
		for (let i = Math.max(0, end - 8); i < end && held; i++) held = out[i] === byte;
		if (held) return true;
		if (end === out.byteLength) return false;
	}
}

/** Decodes a blosc chunk through numcodecs, refusing one that blosc failed to decode. */
export async function decodeBloscChecked(decoder: BloscDecoder, bytes: Uint8Array): Promise<Uint8Array> {
	const { nbytes, blocksize } = readBloscHeader(bytes);
	if (nbytes === 0) return decoder.decode(bytes);
	const first = await serialized(async () => {
		await decoder.decode(fillFor(nbytes));
		return decoder.decode(bytes);
	});
	if (!blockEndsHold(first, blocksize, FILL)) return first;
	const second = await serialized(async () => {
		await decoder.decode(fillFrame(nbytes, SECOND_FILL));
		return decoder.decode(bytes);
	});
	if (second.byteLength !== first.byteLength || second.some((byte, i) => byte !== first[i])) {
		throw new Dt64ExportError("CHUNK_CORRUPT", "blosc: the chunk does not decompress (corrupt compressed data)");
	}
	return first;
}
