import { Dt64ExportError } from "../../errors.js";

/** The sizes in a Blosc 1 header (16 bytes: version, versionlz, flags, typesize, nbytes, blocksize, cbytes). */
export interface BloscHeader {
	/** Uncompressed bytes, which the decoder allocates before it reads anything else. */
	readonly nbytes: number;
	readonly blocksize: number;
	/** The whole compressed buffer, header included. */
	readonly cbytes: number;
}

export const BLOSC_HEADER_BYTES = 16;

/** The sizes a Blosc header says, unchecked; `bytes` holds at least BLOSC_HEADER_BYTES. */
export function bloscSizes(bytes: Uint8Array): BloscHeader {
	const view = new DataView(bytes.buffer, bytes.byteOffset, BLOSC_HEADER_BYTES);
	return { nbytes: view.getUint32(4, true), blocksize: view.getUint32(8, true), cbytes: view.getUint32(12, true) };
}

/** Reads and checks a Blosc header against the buffer it heads, before the decoder trusts it. */
export function readBloscHeader(bytes: Uint8Array): BloscHeader {
	if (bytes.byteLength < BLOSC_HEADER_BYTES) {
		throw new Dt64ExportError("CHUNK_CORRUPT", `blosc: ${bytes.byteLength} bytes, shorter than the ${BLOSC_HEADER_BYTES}-byte header`);
	}
	const header = bloscSizes(bytes);
	if (header.cbytes !== bytes.byteLength) {
		throw new Dt64ExportError("CHUNK_CORRUPT", `blosc: the header says ${header.cbytes} compressed bytes, the chunk has ${bytes.byteLength}`);
	}
	if (header.nbytes > 0 && (header.blocksize === 0 || header.blocksize > header.nbytes)) {
		throw new Dt64ExportError("CHUNK_CORRUPT", `blosc: invalid block size ${header.blocksize} for ${header.nbytes} bytes`);
	}
	return header;
}
