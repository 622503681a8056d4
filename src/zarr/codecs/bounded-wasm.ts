import { Dt64ExportError } from "../../errors.js";
import { decodeBloscChecked } from "./blosc-decode.js";
import { readBloscHeader } from "./blosc-header.js";
import type { BytesToBytesCodec, CodecFactory } from "./codec.js";
import { DECODED_SLACK_BYTES } from "./decoded-size.js";
import { zstdContentBound } from "./zstd-frame.js";

/**
 * zstd, blosc and lz4 are decoded by numcodecs' WebAssembly builds, which allocate whatever the compressed header
 * declares (zstd's Frame_Content_Size, blosc's nbytes, the size before numcodecs' lz4 block) or, for a zstd frame
 * without a size, grow until the content ends: a few kilobytes can claim gigabytes. The headers are read here
 * first, and a chunk that would decode past its expected size is refused before the decoder runs.
 */
interface BytesCodec {
	encode(bytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
	decode(bytes: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/** Throws when the headers of `bytes` say they decode to more than `maxBytes`; reads headers only. */
type SizeCheck = (bytes: Uint8Array, maxBytes: number) => void;
type Decode = (inner: BytesCodec, bytes: Uint8Array) => Promise<Uint8Array> | Uint8Array;
const plainDecode: Decode = (inner, bytes) => inner.decode(bytes);

/**
 * A zstd frame without a declared size is only bounded by its block count, which overestimates split blocks;
 * it is refused when even that bound is far past the chunk, so a bomb can take a few times a chunk at most.
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
};

const checkBlosc: SizeCheck = (bytes, maxBytes) => {
	const { nbytes } = readBloscHeader(bytes);
	if (nbytes > maxBytes) throw new Dt64ExportError("CHUNK_CORRUPT", `blosc: chunk declares ${nbytes} bytes, more than its expected ${maxBytes - DECODED_SLACK_BYTES}`);
};

const checkLz4: SizeCheck = (bytes, maxBytes) => {
	if (bytes.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: ${bytes.byteLength} bytes, shorter than the 4-byte size header`);
	const declared = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
	if (declared > maxBytes) throw new Dt64ExportError("CHUNK_CORRUPT", `lz4: chunk declares ${declared} bytes, more than its expected ${maxBytes - DECODED_SLACK_BYTES}`);
};

interface NumcodecsClass {
	fromConfig(configuration: Record<string, unknown>): BytesCodec;
}

/**
 * A numcodecs codec held to the chunk's size: its module is loaded on first use (each holds a WebAssembly build of
 * several hundred kilobytes), and each chunk's headers are checked before the decoder allocates.
 */
function bounded(load: () => Promise<NumcodecsClass>, check: SizeCheck, decode: Decode): CodecFactory {
	let loaded: Promise<NumcodecsClass> | undefined;
	return (configuration, spec): BytesToBytesCodec => {
		const maxBytes = spec.maxDecodedBytes;
		let inner: Promise<BytesCodec> | undefined;
		return {
			kind: "bytes_to_bytes",
			async decode(bytes) {
				check(bytes, maxBytes);
				loaded ??= load();
				inner ??= loaded.then((Codec) => Codec.fromConfig({ ...configuration }));
				return decode(await inner, bytes);
			},
		};
	};
}

export const zstdCodec = bounded(async () => (await import("numcodecs/zstd")).default as unknown as NumcodecsClass, checkZstd, plainDecode);
export const bloscCodec = bounded(async () => (await import("numcodecs/blosc")).default as unknown as NumcodecsClass, checkBlosc, decodeBloscChecked);
export const lz4Codec = bounded(async () => (await import("numcodecs/lz4")).default as unknown as NumcodecsClass, checkLz4, plainDecode);
