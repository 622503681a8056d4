/**
 * The V8 code cache of one chunk of the CLI bundle: the bytecode V8 compiled from the chunk's source, kept in a file
 * beside it (`<chunk>.v8cache`) so that the next run deserializes it instead of parsing and compiling the source
 * again (Node 20 has no module.enableCompileCache; vm.Script takes `cachedData`). See bundle-loader.ts.
 *
 * V8 checks its own version, flags and the source's length before it takes a cache, but not the cache's bytes (a
 * damaged cache is taken, measured on Node 20.20) nor the source's text (another source of the same length would
 * run the old bytecode). So each file says what it was made for and from: this Node and platform, and the CRC-32 of
 * the source and of the cache's bytes. A file that does not match in every respect is not given to V8 at all.
 *
 * Layout: MAGIC, then a little-endian header (u32 source length, u32 source CRC, u32 data length, u32 data CRC,
 * u32 key length), the key (ASCII), the data.
 */
import { Buffer } from "node:buffer";
import * as zlib from "node:zlib";

const MAGIC = Buffer.from("dt64-export v8 code cache 1\n", "latin1");
const HEADER_BYTES = MAGIC.length + 5 * 4;

/** zlib.crc32 (Node 20.15 and later): without it no cache is read or written. */
const crc32: ((data: Uint8Array) => number) | undefined = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** What a cache is valid for besides its source: V8 rejects a cache of another version or flags, this file first. */
export function codeCacheKey(): string {
	return `node ${process.version} ${process.platform}-${process.arch} v8 ${process.versions.v8}`;
}

/** Whether this Node can check a cache's bytes, and so read or write one. */
export function codeCacheSupported(): boolean {
	return crc32 !== undefined;
}

/** The cache file's bytes for V8's `data`, compiled from `source` (the chunk's file, as read). */
export function encodeCodeCache(source: Uint8Array, data: Uint8Array): Buffer {
	if (crc32 === undefined) throw new Error("code cache: zlib.crc32 is not available");
	const key = Buffer.from(codeCacheKey(), "latin1");
	const file = Buffer.alloc(HEADER_BYTES + key.length + data.length);
	MAGIC.copy(file, 0);
	let at = MAGIC.length;
	for (const value of [source.length, crc32(source), data.length, crc32(data), key.length]) at = file.writeUInt32LE(value >>> 0, at);
	key.copy(file, at);
	file.set(data, at + key.length);
	return file;
}

/**
 * V8's data from a cache file, or undefined when the file is not a cache of this source for this Node: another
 * layout, key, source (length or CRC), or damaged bytes (length or CRC).
 */
export function decodeCodeCache(file: Buffer, source: Uint8Array): Buffer | undefined {
	if (crc32 === undefined || file.length < HEADER_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
	let at = MAGIC.length;
	const field = () => {
		const value = file.readUInt32LE(at);
		at += 4;
		return value;
	};
	const [sourceLength, sourceCrc, dataLength, dataCrc, keyLength] = [field(), field(), field(), field(), field()];
	if (file.length !== HEADER_BYTES + keyLength + dataLength || sourceLength !== source.length) return undefined;
	if (file.toString("latin1", at, at + keyLength) !== codeCacheKey()) return undefined;
	const data = file.subarray(at + keyLength);
	if (crc32(data) !== dataCrc || crc32(source) !== sourceCrc) return undefined;
	return data;
}
