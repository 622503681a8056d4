import { registry } from "zarrita";
import { Dt64ExportError } from "../../errors.js";
import { decodeBloscChecked } from "./blosc-decode.js";
import { readBloscHeader } from "./blosc-header.js";
import { DECODED_SLACK_BYTES, maxDecodedBytes } from "./decoded-size.js";
import { zstdContentBound } from "./zstd-frame.js";

/**
 * zstd, blosc and lz4 are decoded by numcodecs' WebAssembly builds, which allocate whatever the compressed header
 * declares (zstd's Frame_Content_Size, blosc's nbytes, the size before numcodecs' lz4 block) or, for a zstd frame
 * without a size, grow until the content ends: a few kilobytes can claim gigabytes. The headers are read here
 * first, and a chunk that would decode past its expected size is refused before the decoder runs.
 */
type Entry = Parameters<typeof registry.set>[1];
type LoadedCodec = Awaited<ReturnType<Entry>>;
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

function bounded(load: Entry, check: SizeCheck, decode: Decode): Entry {
	return (async () => {
		const Codec = (await load()) as unknown as { fromConfig(configuration: unknown, meta: { shape: number[] }): BytesCodec };
		return {
			fromConfig(configuration: unknown, meta: { shape: number[] }) {
				const inner = Codec.fromConfig(configuration, meta);
				const maxBytes = maxDecodedBytes(meta.shape);
				return {
					kind: "bytes_to_bytes" as const,
					encode: (bytes: Uint8Array) => inner.encode(bytes),
					async decode(bytes: Uint8Array): Promise<Uint8Array> {
						check(bytes, maxBytes);
						return decode(inner, bytes);
					},
				};
			},
		} as unknown as LoadedCodec;
	}) as Entry;
}

let installed = false;

/** Wraps zarrita's zstd, blosc and lz4 entries (numcodecs) in its registry with the size checks, and blosc's
 * decode with the check that it wrote its output (idempotent). */
export function installBoundedWasmCodecs(): void {
	if (installed) return;
	installed = true;
	for (const [names, check, decode] of [
		[["zstd", "numcodecs.zstd"], checkZstd, plainDecode],
		[["blosc", "numcodecs.blosc"], checkBlosc, decodeBloscChecked],
		[["lz4", "numcodecs.lz4"], checkLz4, plainDecode],
	] as const) {
		for (const name of names) {
			const load = registry.get(name);
			if (load !== undefined) registry.set(name, bounded(load, check, decode));
		}
	}
}
