// A small Zarr v3 writer for numpy.datetime64 test, sample and benchmark stores: it encodes chunks with the
// codecs named in the metadata (bytes, transpose, gzip, zlib, zstd, blosc, crc32c, sharding_indexed).
import * as fs from "node:fs/promises";
import * as path from "node:path";
import * as zlib from "node:zlib";

const NAT = -(2n ** 63n);

/** JSON with bigints written as exact integer literals (zarr.json fill values past 2^53). */
export function stringifyWithBigInt(value) {
	const marks = [];
	const text = JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? `@@BIG${marks.push(v.toString()) - 1}@@` : v), 2);
	return text.replace(/"@@BIG(\d+)@@"/g, (_m, i) => marks[Number(i)]);
}

let crcTable;
export function crc32c(bytes) {
	if (!crcTable) {
		crcTable = new Uint32Array(256);
		for (let n = 0; n < 256; n++) {
			let c = n;
			for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
			crcTable[n] = c >>> 0;
		}
	}
	let crc = 0xffffffff;
	for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

const product = (xs) => xs.reduce((a, b) => a * b, 1);
function* cOrder(extent) {
	if (extent.some((n) => n === 0)) return;
	const c = extent.map(() => 0);
	for (;;) {
		yield [...c];
		let a = extent.length - 1;
		while (a >= 0 && ++c[a] === extent[a]) c[a--] = 0;
		if (a < 0) return;
	}
}
const strides = (shape) => {
	const s = new Array(shape.length);
	let k = 1;
	for (let a = shape.length - 1; a >= 0; a--) (s[a] = k), (k *= shape[a]);
	return s;
};

/** The values of one chunk (padded with fill) in C order of the chunk shape. */
function chunkValues(values, shape, chunkShape, coords, fill) {
	const out = new BigInt64Array(product(chunkShape)).fill(fill);
	const arrayStrides = strides(shape);
	const origin = coords.map((c, a) => c * chunkShape[a]);
	let i = 0;
	for (const idx of cOrder(chunkShape)) {
		const pos = idx.map((x, a) => x + origin[a]);
		if (pos.every((p, a) => p < shape[a])) out[i] = values[pos.reduce((s, p, a) => s + p * arrayStrides[a], 0)];
		i++;
	}
	return out;
}

async function encodeBytes(bytes, codec) {
	const c = codec.configuration ?? {};
	switch (codec.name) {
		case "gzip":
			return new Uint8Array(zlib.gzipSync(bytes, { level: c.level ?? 1 }));
		case "zlib":
			return new Uint8Array(zlib.deflateSync(bytes, { level: c.level ?? 1 }));
		case "zstd": {
			const { default: Zstd } = await import("numcodecs/zstd");
			return Zstd.fromConfig({ id: "zstd", level: c.level ?? 0 }).encode(bytes);
		}
		case "blosc": {
			const { default: Blosc } = await import("numcodecs/blosc");
			const shuffle = { noshuffle: 0, shuffle: 1, bitshuffle: 2 }[c.shuffle ?? "shuffle"] ?? c.shuffle;
			return Blosc.fromConfig({ id: "blosc", cname: c.cname ?? "lz4", clevel: c.clevel ?? 5, shuffle, blocksize: c.blocksize ?? 0 }).encode(bytes);
		}
		case "crc32c": {
			const out = new Uint8Array(bytes.length + 4);
			out.set(bytes);
			new DataView(out.buffer).setUint32(bytes.length, crc32c(bytes), true);
			return out;
		}
		default:
			throw new Error(`write-zarr: cannot encode with ${codec.name}`);
	}
}

/** Encodes C-order chunk values through a v3 codec chain. */
export async function encodeChunk(chunk, chunkShape, codecs, fill) {
	let data = chunk;
	let shape = chunkShape;
	let bytes;
	for (const codec of codecs) {
		if (codec.name === "transpose") {
			const order = codec.configuration.order;
			const newShape = order.map((a) => shape[a]);
			const src = strides(shape);
			const out = new BigInt64Array(data.length);
			let i = 0;
			for (const idx of cOrder(newShape)) out[i++] = data[idx.reduce((s, x, k) => s + x * src[order[k]], 0)];
			data = out;
			shape = newShape;
		} else if (codec.name === "bytes") {
			bytes = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
			if (codec.configuration?.endian === "big") for (let i = 0; i < bytes.length; i += 8) bytes.subarray(i, i + 8).reverse();
		} else if (codec.name === "sharding_indexed") {
			bytes = await encodeShard(data, shape, codec.configuration, fill);
		} else {
			bytes ??= new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
			bytes = await encodeBytes(bytes, codec);
		}
	}
	return bytes ?? new Uint8Array(data.buffer.slice(0));
}

async function encodeShard(shardValues, shardShape, config, fill) {
	const inner = config.chunk_shape;
	const perShard = shardShape.map((n, a) => n / inner[a]);
	const count = product(perShard);
	const index = new BigUint64Array(count * 2).fill(2n ** 64n - 1n);
	const parts = [];
	const indexCodecs = config.index_codecs ?? [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
	const indexSize = count * 16 + (indexCodecs.some((c) => c.name === "crc32c") ? 4 : 0);
	let offset = config.index_location === "start" ? indexSize : 0;
	let slot = 0;
	for (const coords of cOrder(perShard)) {
		const values = chunkValues(shardValues, shardShape, inner, coords, fill);
		if (!values.every((v) => v === fill)) {
			const encoded = await encodeChunk(values, inner, config.codecs, fill);
			index[2 * slot] = BigInt(offset);
			index[2 * slot + 1] = BigInt(encoded.length);
			parts.push(encoded);
			offset += encoded.length;
		}
		slot++;
	}
	let indexBytes = new Uint8Array(index.buffer);
	for (const codec of indexCodecs) {
		if (codec.name === "bytes") {
			if (codec.configuration?.endian === "big") for (let i = 0; i < indexBytes.length; i += 8) indexBytes.subarray(i, i + 8).reverse();
		} else indexBytes = await encodeBytes(indexBytes, codec);
	}
	if (parts.length === 0) return undefined;
	return Buffer.concat(config.index_location === "start" ? [indexBytes, ...parts] : [...parts, indexBytes]);
}

function keyFor(encoding, coords) {
	const sep = encoding?.configuration?.separator ?? (encoding?.name === "v2" ? "." : "/");
	if (encoding?.name === "v2") return coords.length ? coords.join(sep) : "0";
	return ["c", ...coords].join(sep);
}

/**
 * Writes a datetime64 array (and the group zarr.json of its parents). `values` is the logical array in C order.
 * Chunks equal to the fill value everywhere are not written, like zarr-python, unless writeEmptyChunks.
 */
export async function writeArray(root, arrayPath, spec) {
	const shape = spec.shape;
	const chunks = spec.chunks;
	const fillJson = spec.fillValue ?? NAT;
	const fill = fillJson === "NaT" ? NAT : typeof fillJson === "bigint" ? fillJson : BigInt(fillJson);
	const codecs = spec.codecs ?? [{ name: "bytes", configuration: { endian: "little" } }];
	const encoding = spec.chunkKeyEncoding ?? { name: "default", configuration: { separator: "/" } };
	const dir = path.join(root, arrayPath);
	await fs.mkdir(dir, { recursive: true });
	const parts = arrayPath.split("/").filter(Boolean);
	for (let i = 0; i < parts.length; i++) {
		const groupDir = path.join(root, ...parts.slice(0, i));
		const file = path.join(groupDir, "zarr.json");
		await fs.access(file).catch(() => fs.writeFile(file, JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }, null, 2)));
	}
	const metadata = {
		shape,
		data_type: spec.dataType ?? { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
		chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
		chunk_key_encoding: encoding,
		fill_value: fillJson,
		codecs,
		attributes: spec.attributes ?? {},
		zarr_format: 3,
		node_type: "array",
		storage_transformers: [],
		...(spec.dimensionNames ? { dimension_names: spec.dimensionNames } : {}),
	};
	await fs.writeFile(path.join(dir, "zarr.json"), spec.rawMetadata ?? stringifyWithBigInt(metadata));
	const grid = shape.map((n, a) => Math.ceil(n / chunks[a]));
	for (const coords of cOrder(grid)) {
		if (spec.omitChunks?.(coords)) continue;
		const values = chunkValues(spec.values, shape, chunks, coords, fill);
		if (!spec.writeEmptyChunks && values.every((v) => v === fill)) continue;
		let bytes = await encodeChunk(values, chunks, codecs, fill);
		if (bytes === undefined) continue;
		if (spec.corruptChunk) bytes = spec.corruptChunk(coords, bytes);
		const key = path.join(dir, ...keyFor(encoding, coords).split("/"));
		await fs.mkdir(path.dirname(key), { recursive: true });
		await fs.writeFile(key, bytes);
	}
}
