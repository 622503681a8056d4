import { Dt64ExportError } from "../../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "./codec.js";

/**
 * Eight lookup tables of 256 entries: `tables[k * 256 + b]` is the CRC of byte b followed by k zero bytes, so that
 * eight bytes are folded in per step (slicing-by-8) instead of one.
 */
let tables: Uint32Array | undefined;

function crcTables(): Uint32Array {
	const t = new Uint32Array(8 * 256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	for (let n = 0; n < 256; n++) {
		for (let k = 1; k < 8; k++) t[k * 256 + n] = (t[(k - 1) * 256 + n] >>> 8) ^ t[t[(k - 1) * 256 + n] & 0xff];
	}
	return t;
}

/** CRC-32C (Castagnoli), the checksum of the Zarr v3 crc32c codec. */
export function crc32c(bytes: Uint8Array): number {
	const t = (tables ??= crcTables());
	let crc = 0xffffffff;
	let i = 0;
	// Bytes up to a 4-byte boundary one at a time, then pairs of words (read as little-endian uint32: the platforms
	// Node runs on are little endian), then the last bytes.
	const head = Math.min((4 - (bytes.byteOffset & 3)) & 3, bytes.length);
	for (; i < head; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
	const wordCount = ((bytes.length - head) >>> 3) << 1;
	const words = wordCount === 0 ? new Uint32Array(0) : new Uint32Array(bytes.buffer, bytes.byteOffset + head, wordCount);
	for (let w = 0; w < words.length; w += 2) {
		const low = words[w] ^ crc;
		const high = words[w + 1];
		crc =
			t[7 * 256 + (low & 0xff)] ^
			t[6 * 256 + ((low >>> 8) & 0xff)] ^
			t[5 * 256 + ((low >>> 16) & 0xff)] ^
			t[4 * 256 + (low >>> 24)] ^
			t[3 * 256 + (high & 0xff)] ^
			t[2 * 256 + ((high >>> 8) & 0xff)] ^
			t[256 + ((high >>> 16) & 0xff)] ^
			t[high >>> 24];
	}
	i += words.length * 4;
	for (; i < bytes.length; i++) crc = t[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

/** The `crc32c` codec: zarrita's strips the checksum without checking it; this one refuses bytes that fail it. */
export const crc32cCodec: CodecFactory = (): BytesToBytesCodec => ({
	kind: "bytes_to_bytes",
	decode(bytes) {
		if (bytes.byteLength < 4) throw new Dt64ExportError("CHUNK_CORRUPT", `crc32c: ${bytes.byteLength} bytes, shorter than the 4-byte checksum`);
		const payload = bytes.subarray(0, bytes.byteLength - 4);
		const stored = new DataView(bytes.buffer, bytes.byteOffset + payload.byteLength, 4).getUint32(0, true);
		const computed = crc32c(payload);
		if (computed !== stored) throw new Dt64ExportError("CHUNK_CORRUPT", `crc32c: checksum mismatch (stored ${hex(stored)}, computed ${hex(computed)})`);
		return payload;
	},
});

const hex = (n: number) => `0x${n.toString(16).padStart(8, "0")}`;
