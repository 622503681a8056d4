// A small Zarr v3 store writer for tests, sample data and benchmarks. It encodes numpy.datetime64 (int64) chunks,
// and chunks of the plain data types (any typed array; bool as a Uint8Array of 0/1; strings as a JS array with
// the vlen-utf8 codec), with the codecs named in the metadata, so a store can be made with any codec chain a reader must handle:
// transpose, bytes, sharding_indexed, gzip, zlib, zstd, blosc, crc32c. It is deliberately independent of any
// Zarr reader, so that tests of the reader are not checked against the reader itself.
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import * as zlib from "node:zlib";

/** numpy's NaT: the int64 -2^63. */
export const NAT = -(2n ** 63n);

/** The sharding index's marker for an absent inner chunk, 2^64-1, as the int64 it shares its bits with. */
const ABSENT = -1n;

// Chunk bytes are made by copying the BigInt64Array's buffer, which is in the platform's byte order.
if (os.endianness() !== "LE") throw new Error("zarr-writer: only little-endian platforms are supported");

const gzip = promisify(zlib.gzip);
const deflate = promisify(zlib.deflate);

/**
 * @typedef {BigInt64Array | BigUint64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | Float32Array | Float64Array | string[]} Values
 * @typedef {{ name: string, configuration?: Record<string, any> }} CodecMetadata
 * @typedef {{ name: "default" | "v2" | string, configuration?: { separator?: "/" | "." } }} ChunkKeyEncoding
 * @typedef {object} ArraySpec
 * @property {number[]} shape
 * @property {number[]} chunks chunk shape; for a sharded array this is the shard shape (the sharding codec names
 *   the inner chunk_shape)
 * @property {Values} values the logical array in C order (numpy ravel order), length prod(shape): a BigInt64Array
 *   for datetime64, another typed array for a plain data type (set dataType to match), string[] for "string"
 * @property {unknown} [dataType] written verbatim as data_type; default numpy.datetime64 unit "s" scale 1
 * @property {bigint | "NaT" | unknown} [fillValue] a bigint is written as its exact digits (a JSON number);
 *   anything else verbatim. Default -9223372036854775808n, as zarr-python writes NaT
 * @property {CodecMetadata[]} [codecs] written verbatim and used to encode; default [bytes little]
 * @property {ChunkKeyEncoding} [chunkKeyEncoding] default {name: "default", configuration: {separator: "/"}}
 * @property {boolean} [writeEmptyChunks] write chunks (and inner chunks) that are all fill; default false
 * @property {(coords: number[]) => boolean} [omitChunks] leave these chunks (shards) out on purpose
 * @property {(coords: number[], bytes: Uint8Array) => Uint8Array} [corruptChunk] rewrite a stored object's bytes
 * @property {string[]} [dimensionNames]
 * @property {Record<string, unknown>} [attributes]
 * @property {Record<string, unknown>} [extraMetadata] merged last into zarr.json (a key set to undefined is
 *   removed), so metadata can differ from what the chunks were encoded with
 * @property {string} [rawMetadata] written as zarr.json verbatim instead of the generated metadata
 * @property {number} [concurrency] chunks encoded and written at once; default 4
 */

/**
 * Serializes JSON like JSON.stringify(value, null, indent), except that a bigint is written as its exact
 * decimal digits, a JSON number: zarr.json fill values past 2^53 must not be rounded or quoted.
 * @param {unknown} value
 * @param {number} [indent]
 * @returns {string}
 */
export function stringifyJson(value, indent = 2) {
	const pad = " ".repeat(indent);
	/** @param {unknown} v @param {string} at @returns {string | undefined} */
	const write = (v, at) => {
		if (typeof v === "bigint") return v.toString();
		if (v !== null && typeof v === "object" && typeof (/** @type {any} */ (v).toJSON) === "function") v = /** @type {any} */ (v).toJSON();
		if (Array.isArray(v)) {
			if (v.length === 0) return "[]";
			const inner = at + pad;
			const items = v.map((item) => write(item, inner) ?? "null");
			return indent ? `[\n${inner}${items.join(`,\n${inner}`)}\n${at}]` : `[${items.join(",")}]`;
		}
		if (v !== null && typeof v === "object") {
			const inner = at + pad;
			const items = [];
			for (const [key, item] of Object.entries(v)) {
				const text = write(item, inner);
				if (text !== undefined) items.push(`${JSON.stringify(key)}:${indent ? " " : ""}${text}`);
			}
			if (items.length === 0) return "{}";
			return indent ? `{\n${inner}${items.join(`,\n${inner}`)}\n${at}}` : `{${items.join(",")}}`;
		}
		return JSON.stringify(v);
	};
	return write(value, "") ?? "null";
}

/** @type {Uint32Array | undefined} */
let crc32cTable;

/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as the Zarr v3 crc32c codec appends it.
 * @param {Uint8Array} bytes
 * @returns {number} the checksum as an unsigned 32-bit integer
 */
export function crc32c(bytes) {
	if (!crc32cTable) {
		crc32cTable = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
			crc32cTable[n] = c >>> 0;
		}
	}
	const table = crc32cTable;
	let crc = 0xffffffff;
	for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

const U64 = 0xffffffffffffffffn;
const XXH_P1 = 11400714785074694791n;
const XXH_P2 = 14029467366897019727n;
const XXH_P3 = 1609587929392839161n;
const XXH_P4 = 9650029242287828579n;
const XXH_P5 = 2870177450012600261n;
/** @param {bigint} x @param {bigint} r */
const rotl64 = (x, r) => ((x << r) | (x >> (64n - r))) & U64;
/** @param {bigint} acc @param {bigint} lane */
const xxhRound = (acc, lane) => (rotl64((acc + lane * XXH_P2) & U64, 31n) * XXH_P1) & U64;
/** @param {bigint} acc @param {bigint} v */
const xxhMerge = (acc, v) => (((acc ^ xxhRound(0n, v)) * XXH_P1 + XXH_P4) & U64);

/**
 * XXH64, which a zstd frame's content checksum is the low 32 bits of. BigInt arithmetic: meant for test-sized
 * data, not for benchmarks.
 * @param {Uint8Array} bytes
 * @param {bigint} [seed]
 * @returns {bigint}
 */
export function xxh64(bytes, seed = 0n) {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const n = bytes.length;
	let i = 0;
	let h;
	if (n >= 32) {
		let v1 = (seed + XXH_P1 + XXH_P2) & U64;
		let v2 = (seed + XXH_P2) & U64;
		let v3 = seed & U64;
		let v4 = (seed - XXH_P1) & U64;
		for (; i + 32 <= n; i += 32) {
			v1 = xxhRound(v1, view.getBigUint64(i, true));
			v2 = xxhRound(v2, view.getBigUint64(i + 8, true));
			v3 = xxhRound(v3, view.getBigUint64(i + 16, true));
			v4 = xxhRound(v4, view.getBigUint64(i + 24, true));
		}
		h = (rotl64(v1, 1n) + rotl64(v2, 7n) + rotl64(v3, 12n) + rotl64(v4, 18n)) & U64;
		h = xxhMerge(h, v1);
		h = xxhMerge(h, v2);
		h = xxhMerge(h, v3);
		h = xxhMerge(h, v4);
	} else {
		h = (seed + XXH_P5) & U64;
	}
	h = (h + BigInt(n)) & U64;
	for (; i + 8 <= n; i += 8) h = (rotl64(h ^ xxhRound(0n, view.getBigUint64(i, true)), 27n) * XXH_P1 + XXH_P4) & U64;
	if (i + 4 <= n) {
		h = (rotl64(h ^ ((BigInt(view.getUint32(i, true)) * XXH_P1) & U64), 23n) * XXH_P2 + XXH_P3) & U64;
		i += 4;
	}
	for (; i < n; i++) h = (rotl64(h ^ ((BigInt(bytes[i]) * XXH_P5) & U64), 11n) * XXH_P1) & U64;
	h ^= h >> 33n;
	h = (h * XXH_P2) & U64;
	h ^= h >> 29n;
	h = (h * XXH_P3) & U64;
	h ^= h >> 32n;
	return h;
}

/** @param {number[]} xs */
const product = (xs) => xs.reduce((a, b) => a * b, 1);

/** C-order strides, in elements. @param {number[]} shape */
function stridesOf(shape) {
	const strides = new Array(shape.length);
	let step = 1;
	for (let a = shape.length - 1; a >= 0; a--) {
		strides[a] = step;
		step *= shape[a];
	}
	return strides;
}

/**
 * Every coordinate of a grid, in C order (the last axis fastest). A 0-d grid has one coordinate, [].
 * @param {number[]} extent
 * @returns {Generator<number[]>}
 */
export function* cOrder(extent) {
	if (extent.some((n) => n === 0)) return;
	const c = extent.map(() => 0);
	for (;;) {
		yield [...c];
		let a = extent.length - 1;
		while (a >= 0 && ++c[a] === extent[a]) c[a--] = 0;
		if (a < 0) return;
	}
}

/**
 * The int64 a fill value stands for, used to pad edge chunks and to recognise empty ones. A fill value a
 * datetime64 reader must refuse (a test writing a bad one) pads with NaT.
 * @param {unknown} fillValue
 * @returns {bigint}
 */
export function fillInt64(fillValue) {
	if (typeof fillValue === "bigint") return BigInt.asIntN(64, fillValue);
	if (typeof fillValue === "number" && Number.isInteger(fillValue)) return BigInt.asIntN(64, BigInt(fillValue));
	return NAT;
}

/**
 * The value a fill value stands for in an array of the kind of `values` (see fillInt64 for int64): the number of a
 * JSON number, NaN and the infinities of their strings, the float of a "0x..." bit pattern, 1/0 for a bool.
 * @param {Values} values
 * @param {unknown} fillValue
 * @returns {bigint | number | string}
 */
export function padValue(values, fillValue) {
	if (values instanceof BigInt64Array) return fillInt64(fillValue);
	if (Array.isArray(values)) return typeof fillValue === "string" ? fillValue : "";
	if (values instanceof BigUint64Array) return BigInt.asUintN(64, BigInt(/** @type {any} */ (fillValue ?? 0)));
	if (typeof fillValue === "boolean") return fillValue ? 1 : 0;
	if (typeof fillValue === "string") {
		const special = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[fillValue];
		if (special !== undefined) return special;
		if (/^0x[0-9a-f]+$/i.test(fillValue)) {
			const bits = new (values instanceof Float32Array ? Uint32Array : BigUint64Array)(1);
			bits[0] = /** @type {any} */ (values instanceof Float32Array ? Number(fillValue) : BigInt(fillValue));
			return new (values instanceof Float32Array ? Float32Array : Float64Array)(bits.buffer)[0];
		}
	}
	return Number(fillValue ?? 0);
}

/** A new array of the same kind as `like`. @template {Values} V @param {V} like @param {number} n @returns {V} */
function allocLike(like, n) {
	if (Array.isArray(like)) return /** @type {V} */ (new Array(n).fill(""));
	return new /** @type {any} */ (like.constructor)(n);
}

/** `to[at..] = from[start..end)`. @param {Values} from @param {number} start @param {number} end @param {Values} to @param {number} at */
function copyRun(from, start, end, to, at) {
	if (Array.isArray(from)) for (let i = start; i < end; i++) /** @type {string[]} */ (to)[at + i - start] = from[i];
	else /** @type {any} */ (to).set(from.subarray(start, end), at);
}

/**
 * The store key of a chunk: `c/0/1` (default, "/"), `c.0.1` (default, "."), `0.1` (v2). A 0-d array's only
 * chunk is `c` (default) or `0` (v2).
 * @param {ChunkKeyEncoding} encoding
 * @param {number[]} coords
 * @returns {string}
 */
export function chunkKey(encoding, coords) {
	if (encoding.name === "v2") return coords.length === 0 ? "0" : coords.join(encoding.configuration?.separator ?? ".");
	if (encoding.name === "default") return ["c", ...coords].join(encoding.configuration?.separator ?? "/");
	throw new Error(`zarr-writer: unknown chunk_key_encoding ${JSON.stringify(encoding.name)}`);
}

/**
 * The values of the chunk at `origin` (in array coordinates), in C order of `chunkShape`, with the part outside
 * the array filled with `fill`.
 * @template {Values} V
 * @param {V} values
 * @param {number[]} shape
 * @param {number[]} chunkShape
 * @param {number[]} origin
 * @param {bigint | number | string} fill
 * @returns {V}
 */
export function extractChunk(values, shape, chunkShape, origin, fill) {
	const out = allocLike(values, product(chunkShape));
	const nd = shape.length;
	if (nd === 0) {
		out[0] = values[0];
		return out;
	}
	const extent = chunkShape.map((c, a) => Math.max(0, Math.min(c, shape[a] - origin[a])));
	if (extent.some((e, a) => e < chunkShape[a])) /** @type {any} */ (out).fill(fill);
	if (extent.some((e) => e === 0)) return out;
	const src = stridesOf(shape);
	const dst = stridesOf(chunkShape);
	const last = nd - 1;
	const run = extent[last];
	// One contiguous copy per row along the last axis; the odometer walks the other axes.
	const idx = new Array(last).fill(0);
	let srcOffset = origin.reduce((s, o, a) => s + o * src[a], 0);
	let dstOffset = 0;
	for (;;) {
		copyRun(values, srcOffset, srcOffset + run, out, dstOffset);
		let a = last - 1;
		for (; a >= 0; a--) {
			idx[a]++;
			srcOffset += src[a];
			dstOffset += dst[a];
			if (idx[a] < extent[a]) break;
			srcOffset -= src[a] * extent[a];
			dstOffset -= dst[a] * extent[a];
			idx[a] = 0;
		}
		if (a < 0) return out;
	}
}

/**
 * Whether every value equals `fill`: int64 compared as 32-bit halves (no BigInt per element), NaN equal to NaN.
 * @param {Values} data
 * @param {bigint | number | string} fill
 */
export function isAllFill(data, fill) {
	if (!(data instanceof BigInt64Array)) {
		for (let i = 0; i < data.length; i++) if (!Object.is(data[i], fill) && data[i] !== fill) return false;
		return true;
	}
	if (typeof fill !== "bigint") return false;
	const words = new Uint32Array(data.buffer, data.byteOffset, data.length * 2);
	const lo = Number(BigInt.asUintN(32, fill));
	const hi = Number(BigInt.asUintN(32, fill >> 32n));
	for (let i = 0; i < words.length; i += 2) if (words[i] !== lo || words[i + 1] !== hi) return false;
	return true;
}

/**
 * The transpose codec's encoding, numpy.transpose(chunk, order): the result has shape
 * [shape[order[0]], shape[order[1]], ...] and result[i_0, i_1, ...] = chunk[j] with j[order[k]] = i_k.
 * @param {Values} data C order of `shape`
 * @param {number[]} shape
 * @param {number[]} order
 * @returns {{ data: Values, shape: number[] }}
 */
export function transposeChunk(data, shape, order) {
	const nd = shape.length;
	if (!Array.isArray(order) || order.length !== nd || [...order].sort((a, b) => a - b).some((a, k) => a !== k)) {
		throw new Error(`zarr-writer: transpose order ${JSON.stringify(order)} is not a permutation of ${nd} axes`);
	}
	const newShape = order.map((a) => shape[a]);
	const src = stridesOf(shape);
	const step = order.map((a) => src[a]);
	const n = data.length;
	const out = allocLike(data, n);
	const wide = data instanceof BigInt64Array || data instanceof BigUint64Array;
	// 64-bit values are copied as two 32-bit words: indexing them would create a BigInt per value.
	const from = wide ? new Uint32Array(data.buffer, data.byteOffset, n * 2) : undefined;
	const to = wide ? new Uint32Array(/** @type {BigInt64Array} */ (out).buffer) : undefined;
	const idx = new Array(nd).fill(0);
	let s = 0;
	for (let i = 0; i < n; i++) {
		if (from && to) {
			to[2 * i] = from[2 * s];
			to[2 * i + 1] = from[2 * s + 1];
		} else {
			/** @type {any} */ (out)[i] = data[s];
		}
		for (let a = nd - 1; a >= 0; a--) {
			idx[a]++;
			s += step[a];
			if (idx[a] < newShape[a]) break;
			s -= step[a] * newShape[a];
			idx[a] = 0;
		}
	}
	return { data: out, shape: newShape };
}

/**
 * @typedef {{ fill: bigint | number | string, writeEmptyChunks: boolean }} EncodeContext
 * @typedef {(data: Values, shape: number[], config: Record<string, any>) => { data: Values, shape: number[] }} ArrayToArray
 * @typedef {(data: Values, shape: number[], config: Record<string, any>, context: EncodeContext) => Promise<Uint8Array | undefined>} ArrayToBytes
 * @typedef {(bytes: Uint8Array, config: Record<string, any>) => Promise<Uint8Array>} BytesToBytes
 */

/** @type {Map<string, ArrayToArray>} */
const arrayToArray = new Map([["transpose", (data, shape, config) => transposeChunk(data, shape, config.order)]]);

/** @type {Map<string, ArrayToBytes>} */
const arrayToBytes = new Map([
	[
		"bytes",
		async (data, _shape, config) => {
			const endian = config.endian ?? "little";
			if (endian !== "little" && endian !== "big") throw new Error(`zarr-writer: bytes endian ${JSON.stringify(endian)}`);
			if (Array.isArray(data)) throw new Error("zarr-writer: strings need the vlen-utf8 codec, not bytes");
			const bytes = Buffer.from(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
			if (endian === "big" && data.BYTES_PER_ELEMENT > 1) bytes[/** @type {"swap16" | "swap32" | "swap64"} */ (`swap${8 * data.BYTES_PER_ELEMENT}`)]();
			return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		},
	],
	[
		"vlen-utf8",
		async (data) => {
			if (!Array.isArray(data)) throw new Error("zarr-writer: vlen-utf8 encodes strings");
			// numcodecs' layout: a uint32 count, then each string's uint32 byte length and UTF-8 bytes.
			const parts = data.map((text) => Buffer.from(text, "utf8"));
			const out = Buffer.alloc(4 + parts.reduce((sum, part) => sum + 4 + part.length, 0));
			out.writeUInt32LE(data.length, 0);
			let at = 4;
			for (const part of parts) {
				out.writeUInt32LE(part.length, at);
				part.copy(out, at + 4);
				at += 4 + part.length;
			}
			return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
		},
	],
	["sharding_indexed", encodeShard],
]);

/** Blosc's shuffle names in Zarr v3 metadata, as numcodecs numbers them. */
const BLOSC_SHUFFLE = new Map([
	["noshuffle", 0],
	["shuffle", 1],
	["bitshuffle", 2],
]);

/** @type {Map<string, BytesToBytes>} */
const bytesToBytes = new Map([
	["gzip", async (bytes, config) => new Uint8Array(await gzip(bytes, { level: config.level ?? 5 }))],
	["zlib", async (bytes, config) => new Uint8Array(await deflate(bytes, { level: config.level ?? 1 }))],
	[
		"zstd",
		async (bytes, config) => {
			const { default: Zstd } = await import("numcodecs/zstd");
			const frame = await Zstd.fromConfig({ level: config.level ?? 0 }).encode(bytes);
			return config.checksum ? withZstdChecksum(frame, bytes) : frame;
		},
	],
	[
		"blosc",
		async (bytes, config) => {
			const { default: Blosc } = await import("numcodecs/blosc");
			const shuffle = typeof config.shuffle === "number" ? config.shuffle : BLOSC_SHUFFLE.get(config.shuffle ?? "shuffle");
			if (shuffle === undefined) throw new Error(`zarr-writer: blosc shuffle ${JSON.stringify(config.shuffle)}`);
			const codec = Blosc.fromConfig({ cname: config.cname ?? "lz4", clevel: config.clevel ?? 5, shuffle, blocksize: config.blocksize ?? 0 });
			return codec.encode(bytes);
		},
	],
	[
		"crc32c",
		async (bytes) => {
			const out = new Uint8Array(bytes.length + 4);
			out.set(bytes);
			new DataView(out.buffer).setUint32(bytes.length, crc32c(bytes), true);
			return out;
		},
	],
]);

/**
 * numcodecs.js cannot ask zstd for a content checksum, so one is added to its single frame: the frame header
 * descriptor's Content_Checksum_flag (bit 2) is set and the low 32 bits of XXH64(content) are appended.
 * @param {Uint8Array} frame
 * @param {Uint8Array} content
 */
function withZstdChecksum(frame, content) {
	if (new DataView(frame.buffer, frame.byteOffset).getUint32(0, true) !== 0xfd2fb528) throw new Error("zarr-writer: not a zstd frame");
	if (frame[4] & 0x04) return frame;
	const out = new Uint8Array(frame.length + 4);
	out.set(frame);
	out[4] |= 0x04;
	new DataView(out.buffer).setUint32(frame.length, Number(xxh64(content) & 0xffffffffn), true);
	return out;
}

/**
 * Encodes one chunk (C order of `chunkShape`) through a Zarr v3 codec chain: array-to-array codecs, exactly one
 * array-to-bytes codec, then bytes-to-bytes codecs. Returns undefined for a shard whose inner chunks are all
 * empty (not written).
 * @param {Values} chunk
 * @param {number[]} chunkShape
 * @param {CodecMetadata[]} codecs
 * @param {EncodeContext} context
 * @returns {Promise<Uint8Array | undefined>}
 */
export async function encodeChunk(chunk, chunkShape, codecs, context) {
	let data = chunk;
	let shape = chunkShape;
	/** @type {Uint8Array | undefined} */
	let bytes;
	let stage = "array";
	for (const codec of codecs) {
		const config = codec.configuration ?? {};
		const a2a = arrayToArray.get(codec.name);
		const a2b = arrayToBytes.get(codec.name);
		const b2b = bytesToBytes.get(codec.name);
		if (a2a) {
			if (stage !== "array") throw new Error(`zarr-writer: ${codec.name} after the array-to-bytes codec`);
			({ data, shape } = a2a(data, shape, config));
		} else if (a2b) {
			if (stage !== "array") throw new Error(`zarr-writer: a second array-to-bytes codec (${codec.name})`);
			bytes = await a2b(data, shape, config, context);
			if (bytes === undefined) return undefined;
			stage = "bytes";
		} else if (b2b) {
			if (stage !== "bytes" || !bytes) throw new Error(`zarr-writer: ${codec.name} before an array-to-bytes codec`);
			bytes = await b2b(bytes, config);
		} else {
			throw new Error(`zarr-writer: cannot encode with codec ${JSON.stringify(codec.name)}`);
		}
	}
	if (!bytes) throw new Error("zarr-writer: the codec chain has no array-to-bytes codec (bytes or sharding_indexed)");
	return bytes;
}

/**
 * sharding_indexed: the encoded non-empty inner chunks in C order of their coordinates inside the shard,
 * concatenated, with an index of (offset, nbytes) uint64 pairs (shape [...chunksPerShard, 2], 2^64-1 for an
 * absent chunk) encoded with index_codecs at the end, or at the start (offsets then count the index too).
 * @type {ArrayToBytes}
 */
async function encodeShard(data, shardShape, config, context) {
	const inner = config.chunk_shape;
	if (!Array.isArray(inner) || inner.length !== shardShape.length || inner.some((c, a) => !(c > 0) || shardShape[a] % c !== 0)) {
		throw new Error(`zarr-writer: shard shape ${JSON.stringify(shardShape)} is not a multiple of chunk_shape ${JSON.stringify(inner)}`);
	}
	const location = config.index_location ?? "end";
	if (location !== "end" && location !== "start") throw new Error(`zarr-writer: index_location ${JSON.stringify(location)}`);
	const indexCodecs = config.index_codecs ?? [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
	const perShard = shardShape.map((n, a) => n / inner[a]);
	const indexShape = [...perShard, 2];
	const index = new BigInt64Array(product(perShard) * 2).fill(ABSENT);
	/** @type {Uint8Array[]} */
	const parts = [];
	/** @type {number[]} */
	const slots = [];
	let slot = 0;
	for (const coords of cOrder(perShard)) {
		const values = extractChunk(data, shardShape, inner, coords.map((c, a) => c * inner[a]), context.fill);
		if (context.writeEmptyChunks || !isAllFill(values, context.fill)) {
			const encoded = await encodeChunk(values, inner, config.codecs ?? [], context);
			if (encoded) {
				parts.push(encoded);
				slots.push(slot);
			}
		}
		slot++;
	}
	if (parts.length === 0 && !context.writeEmptyChunks) return undefined;
	// The index codecs must give a fixed size (the spec requires it); measure it with the all-absent index.
	const indexSize = location === "start" ? (await encodeIndex(index, indexShape, indexCodecs, context)).length : 0;
	let offset = indexSize;
	parts.forEach((part, k) => {
		index[2 * slots[k]] = BigInt(offset);
		index[2 * slots[k] + 1] = BigInt(part.length);
		offset += part.length;
	});
	const indexBytes = await encodeIndex(index, indexShape, indexCodecs, context);
	if (location === "start" && indexBytes.length !== indexSize) throw new Error("zarr-writer: index_codecs do not give a fixed-size index");
	return new Uint8Array(Buffer.concat(location === "start" ? [indexBytes, ...parts] : [...parts, indexBytes]));
}

/** @param {BigInt64Array} index @param {number[]} shape @param {CodecMetadata[]} codecs @param {EncodeContext} context */
async function encodeIndex(index, shape, codecs, context) {
	const bytes = await encodeChunk(index.slice(), shape, codecs, { ...context, writeEmptyChunks: true });
	if (!bytes) throw new Error("zarr-writer: index_codecs gave no bytes");
	return bytes;
}

/**
 * The zarr.json of an array, with the key set (and order) zarr-python writes.
 * @param {ArraySpec} spec
 */
export function arrayMetadata(spec) {
	/** @type {Record<string, unknown>} */
	const metadata = {
		shape: spec.shape,
		data_type: spec.dataType ?? { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
		chunk_grid: { name: "regular", configuration: { chunk_shape: spec.chunks } },
		chunk_key_encoding: spec.chunkKeyEncoding ?? { name: "default", configuration: { separator: "/" } },
		fill_value: spec.fillValue === undefined ? NAT : spec.fillValue,
		codecs: spec.codecs ?? [{ name: "bytes", configuration: { endian: "little" } }],
		attributes: spec.attributes ?? {},
		...(spec.dimensionNames ? { dimension_names: spec.dimensionNames } : {}),
		zarr_format: 3,
		node_type: "array",
		storage_transformers: [],
	};
	return { ...metadata, ...spec.extraMetadata };
}

/** @param {string} groupDir @param {Record<string, unknown>} attributes */
async function writeGroupMetadata(groupDir, attributes) {
	await fs.mkdir(groupDir, { recursive: true });
	const metadata = { attributes, zarr_format: 3, consolidated_metadata: null, node_type: "group" };
	await fs.writeFile(path.join(groupDir, "zarr.json"), stringifyJson(metadata));
}

/** Writes a group zarr.json for the root and every parent of `nodePath` that has none. @param {string} rootDir @param {string} nodePath */
async function ensureParentGroups(rootDir, nodePath) {
	const parts = nodePath.split("/").filter(Boolean);
	for (let i = 0; i < parts.length; i++) {
		const groupDir = path.join(rootDir, ...parts.slice(0, i));
		const exists = await fs.access(path.join(groupDir, "zarr.json")).then(
			() => true,
			() => false,
		);
		if (!exists) await writeGroupMetadata(groupDir, {});
	}
}

/**
 * Writes a group zarr.json (as zarr-python does), and group zarr.json files for its parents that have none.
 * @param {string} rootDir
 * @param {string} groupPath "" for the root, or "a/b"
 * @param {Record<string, unknown>} [attributes]
 */
export async function writeGroup(rootDir, groupPath, attributes = {}) {
	await ensureParentGroups(rootDir, groupPath);
	await writeGroupMetadata(path.join(rootDir, ...groupPath.split("/").filter(Boolean)), attributes);
}

/**
 * Writes a numpy.datetime64 (int64) array: its zarr.json, every chunk (or shard) that is not all fill value
 * (unless writeEmptyChunks), and a group zarr.json for the root and each parent that has none. Chunks already
 * in the folder are not removed: write into a fresh folder.
 * @param {string} rootDir
 * @param {string} arrayPath "" for the root, or "a/b"
 * @param {ArraySpec} spec
 */
export async function writeArray(rootDir, arrayPath, spec) {
	const { shape, chunks, values } = spec;
	if (!Array.isArray(shape) || !Array.isArray(chunks) || chunks.length !== shape.length) {
		throw new Error(`zarr-writer: chunks ${JSON.stringify(chunks)} do not match shape ${JSON.stringify(shape)}`);
	}
	if (shape.some((n) => !Number.isInteger(n) || n < 0) || chunks.some((c) => !Number.isInteger(c) || c < 1)) {
		throw new Error(`zarr-writer: shape ${JSON.stringify(shape)} / chunks ${JSON.stringify(chunks)} must be (positive) integers`);
	}
	if (!(ArrayBuffer.isView(values) || Array.isArray(values)) || values.length !== product(shape)) {
		throw new Error(`zarr-writer: values must be a typed array (string[] for strings), such as a BigInt64Array of ${product(shape)} elements`);
	}
	const metadata = arrayMetadata(spec);
	const codecs = spec.codecs ?? [{ name: "bytes", configuration: { endian: "little" } }];
	const encoding = spec.chunkKeyEncoding ?? { name: "default", configuration: { separator: "/" } };
	/** @type {EncodeContext} */
	const context = { fill: padValue(values, spec.fillValue === undefined ? NAT : spec.fillValue), writeEmptyChunks: spec.writeEmptyChunks ?? false };
	const dir = path.join(rootDir, ...arrayPath.split("/").filter(Boolean));

	await ensureParentGroups(rootDir, arrayPath);
	await fs.mkdir(dir, { recursive: true });
	await fs.writeFile(path.join(dir, "zarr.json"), spec.rawMetadata ?? stringifyJson(metadata));

	const grid = shape.map((n, a) => Math.ceil(n / chunks[a]));
	const made = new Set([dir]);
	/** @param {number[]} coords */
	const writeChunk = async (coords) => {
		if (spec.omitChunks?.(coords)) return;
		const chunk = extractChunk(values, shape, chunks, coords.map((c, a) => c * chunks[a]), context.fill);
		if (!context.writeEmptyChunks && isAllFill(chunk, context.fill)) return;
		let bytes = await encodeChunk(chunk, chunks, codecs, context);
		if (bytes === undefined) return;
		if (spec.corruptChunk) bytes = spec.corruptChunk(coords, bytes);
		const file = path.join(dir, ...chunkKey(encoding, coords).split("/"));
		const parent = path.dirname(file);
		if (!made.has(parent)) {
			await fs.mkdir(parent, { recursive: true });
			made.add(parent);
		}
		await fs.writeFile(file, bytes);
	};

	// A few chunks at once: node:zlib compresses on the thread pool, so this uses several cores.
	const concurrency = Math.max(1, spec.concurrency ?? 4);
	const pending = cOrder(grid);
	const worker = async () => {
		for (let next = pending.next(); !next.done; next = pending.next()) await writeChunk(next.value);
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
}
