/**
 * numcodecs' 4-byte checksums `crc32` (zlib's CRC-32) and `adler32` (zlib's Adler-32), as zarr-python 2 writes them
 * (numcodecs 0.11: the checksum first, little endian; numcodecs 0.12+ says where with `location`, "start" by default)
 * and zarr-python 3 names them (`numcodecs.crc32`, `numcodecs.adler32`). A chunk that fails its checksum is refused.
 */
import { Dt64ExportError } from "../../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "./codec.js";

/** node:zlib is loaded where it is first needed (the CLI starts without it, test/cli-bundle.test.ts). */
const zlib = () => process.getBuiltinModule("node:zlib");

const ADLER_MODULUS = 65521;
/** Bytes summed before the sums are reduced: the most for which they stay below 2^53 (zlib's NMAX is 5552 for 32 bits). */
const ADLER_BLOCK = 1 << 20;

/** zlib's Adler-32 of `bytes` (start value 1). */
export function adler32(bytes: Uint8Array): number {
	let a = 1;
	let b = 0;
	for (let start = 0; start < bytes.length; start += ADLER_BLOCK) {
		const end = Math.min(bytes.length, start + ADLER_BLOCK);
		for (let i = start; i < end; i++) {
			a += bytes[i];
			b += a;
		}
		a %= ADLER_MODULUS;
		b %= ADLER_MODULUS;
	}
	return ((b << 16) | a) >>> 0;
}

/** Where a checksum codec's configuration puts the checksum: "start" (numcodecs' default) or "end"; refused otherwise. */
export function checksumLocation(name: string, location: unknown): "start" | "end" {
	if (location === undefined || location === null || location === "start") return "start";
	if (location === "end") return "end";
	throw new Dt64ExportError("METADATA_INVALID", `${name}: location must be "start" or "end", got ${JSON.stringify(location)}`, { field: name });
}

function checksumCodec(name: string, checksum: (bytes: Uint8Array) => number): CodecFactory {
	return (configuration): BytesToBytesCodec => {
		const location = checksumLocation(name, configuration.location);
		return {
			kind: "bytes_to_bytes",
			decode(bytes) {
				if (bytes.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `${name}: ${bytes.byteLength} bytes, shorter than the 4-byte checksum`);
				const at = location === "start" ? 0 : bytes.byteLength - 4;
				const payload = location === "start" ? bytes.subarray(4) : bytes.subarray(0, at);
				const stored = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
				const computed = checksum(payload) >>> 0;
				if (computed !== stored) throw new Dt64ExportError("CHUNK_CORRUPT", `${name}: checksum mismatch (stored ${hex(stored)}, computed ${hex(computed)})`);
				return payload;
			},
		};
	};
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;

export const crc32Codec = checksumCodec("crc32", (bytes) => zlib().crc32(bytes));
export const adler32Codec = checksumCodec("adler32", adler32);
