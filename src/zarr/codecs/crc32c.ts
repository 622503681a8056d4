import { Dt64ExportError } from "../../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "./codec.js";

let table: Uint32Array | undefined;

/** CRC-32C (Castagnoli), the checksum of the Zarr v3 crc32c codec. */
export function crc32c(bytes: Uint8Array): number {
	if (table === undefined) {
		table = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
			table[n] = c >>> 0;
		}
	}
	let crc = 0xffffffff;
	for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
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
