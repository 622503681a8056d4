import { bloscCodec, lz4Codec, zstdCodec } from "./bounded-wasm.js";
import { bytesCodec } from "./bytes.js";
import type { CodecFactory } from "./codec.js";
import { adler32Codec, crc32Codec } from "./checksum32.js";
import { crc32cCodec } from "./crc32c.js";
import { deltaCodec } from "./delta.js";
import { gzipCodec, zlibCodec } from "./node-zlib.js";
import { transposeCodec } from "./transpose.js";
import { vlenUtf8Codec } from "./vlen-utf8.js";

/**
 * The codecs this package decodes, by metadata name: its own map, never zarrita's global `registry` (which every
 * other user of zarrita in the process shares). The `numcodecs.*` names are those zarr-python 3 writes for the
 * numcodecs codecs it wraps; their chunk bytes are the same. `sharding_indexed` is read by the chunk source.
 */
export const CODECS: ReadonlyMap<string, CodecFactory> = new Map<string, CodecFactory>([
	["bytes", bytesCodec],
	["transpose", transposeCodec],
	["vlen-utf8", vlenUtf8Codec],
	["numcodecs.vlen-utf8", vlenUtf8Codec],
	["gzip", gzipCodec],
	["numcodecs.gzip", gzipCodec],
	["zlib", zlibCodec],
	["numcodecs.zlib", zlibCodec],
	["zstd", zstdCodec],
	["numcodecs.zstd", zstdCodec],
	["lz4", lz4Codec],
	["numcodecs.lz4", lz4Codec],
	["blosc", bloscCodec],
	["numcodecs.blosc", bloscCodec],
	["crc32c", crc32cCodec],
	["numcodecs.crc32", crc32Codec],
	["numcodecs.adler32", adler32Codec],
	["numcodecs.delta", deltaCodec],
]);
