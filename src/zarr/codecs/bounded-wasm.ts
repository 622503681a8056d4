import { Dt64ExportError } from "../../errors.js";
import { readBloscHeader } from "./blosc-header.js";
import type { BytesToBytesCodec, CodecFactory, ChunkSpec } from "./codec.js";
import { DECODED_SLACK_BYTES } from "./decoded-size.js";
import { arrayOpened, decodesIntoShared, decodeWasmCodec, decodeWasmCodecInto } from "./off-thread.js";
import { zstdContentBound } from "./zstd-frame.js";

/**
 * zstd, blosc (every inner codec, snappy included) and lz4, decoded by this package's WebAssembly build of the
 * reference C decoders (wasm/decoders.c) on the decode threads, into the export's buffer pool. Each chunk's headers
 * are read here first: a chunk whose headers claim more than its expected size is refused with a message saying so,
 * before anything is allocated, and the decoder itself is then held to the size (it refuses to write past its
 * output buffer). A corrupt chunk is refused by the decoder's own status.
 */

/** Returns the output capacity a chunk needs, or throws when its headers say it decodes past `maxBytes`. */
type SizeCheck = (bytes: Uint8Array, maxBytes: number) => number;

/**
 * A zstd frame without a declared size is only bounded by its block count, which overestimates split blocks;
 * it is refused when even that bound is far past the chunk; otherwise the decoder stops at the chunk's size.
 */
const UNKNOWN_SIZE_FACTOR = 4;
const UNKNOWN_SIZE_ALLOWANCE_BYTES = 4 * 2 ** 20;

const checkZstd: SizeCheck = (bytes, maxBytes) => {
	const bound = zstdContentBound(bytes);
	const expected = maxBytes - DECODED_SLACK_BYTES;
	if (bound.exact && bound.bytes > maxBytes) throw new Dt64ExportError("CHUNK_CORRUPT", `zstd: chunk declares ${bound.bytes} bytes, more than its expected ${expected}`);
	if (!bound.exact && bound.bytes > UNKNOWN_SIZE_FACTOR * maxBytes + UNKNOWN_SIZE_ALLOWANCE_BYTES) {
		throw new Dt64ExportError("CHUNK_CORRUPT", `zstd: chunk without a declared size has blocks for up to ${bound.bytes} bytes, far more than its expected ${expected}`);
	}
	return bound.exact ? bound.bytes : maxBytes;
};

const checkBlosc: SizeCheck = (bytes, maxBytes) => {
	const { nbytes } = readBloscHeader(bytes);
	if (nbytes > maxBytes) throw new Dt64ExportError("CHUNK_CORRUPT", `blosc: chunk declares ${nbytes} bytes, more than its expected ${maxBytes - DECODED_SLACK_BYTES}`);
	return nbytes;
};

const checkLz4: SizeCheck = (bytes, maxBytes) => {
	if (bytes.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: ${bytes.byteLength} bytes, shorter than the 4-byte size header`);
	const declared = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
	if (declared > maxBytes) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: chunk declares ${declared} bytes, more than its expected ${maxBytes - DECODED_SLACK_BYTES}`);
	return declared;
};

/**
 * The codec is made when its array is opened: the threads start then, while the rest of the export is set up; a
 * small array's chunks, and small chunks, decode on the calling thread, and start none (ChunkSpec.decodeHere).
 */
function offThread(codec: "zstd" | "lz4" | "blosc", check: SizeCheck): CodecFactory {
	return (_configuration, spec: ChunkSpec): BytesToBytesCodec => {
		const here = spec.decodeHere === true;
		arrayOpened(here);
		return {
			kind: "bytes_to_bytes",
			decode: (bytes, signal) => decodeWasmCodec(codec, bytes, check(bytes, spec.maxDecodedBytes), spec.bufferPool, spec.scanNaT === true, here, signal),
			// A chunk read into a pooled buffer this large decodes into it (see decodeWasmCodec).
			inputRoom: spec.bufferPool === undefined ? undefined : spec.maxDecodedBytes,
			// A chunk whose headers say it fits decodes into the target; any other (larger, or of no declared size) is
			// left to `decode`, whose output the chunk decoder checks and names as it does any chunk's.
			decodeInto: (bytes, target, signal) => (check(bytes, spec.maxDecodedBytes) > target.byteLength ? undefined : decodeWasmCodecInto(codec, bytes, target, spec.bufferPool, spec.scanNaT === true, here, signal)),
			sharedTarget: decodesIntoShared(here),
		};
	};
}

export const zstdCodec = offThread("zstd", checkZstd);
export const lz4Codec = offThread("lz4", checkLz4);
export const bloscCodec = offThread("blosc", checkBlosc);
