// The test-store writer is checked by hand-computed bytes and independent decoders (node:zlib, numcodecs), never
// by a Zarr reader, so that reader tests built on it stand on their own.
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import Blosc from "numcodecs/blosc";
import Zstd from "numcodecs/zstd";
import { describe, expect, it } from "vitest";
import { crc32c, stringifyJson, writeArray, writeGroup, xxh64 } from "../scripts/lib/zarr-writer.mjs";
import { FIXTURES, tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
const ABSENT = 2n ** 64n - 1n;
const LE = { name: "bytes", configuration: { endian: "little" } };

const work = tempDir("zarr-writer-");
let counter = 0;
const freshRoot = () => path.join(work, `s${counter++}.zarr`);

type Spec = Parameters<typeof writeArray>[2];
async function store(spec: Spec, arrayPath = ""): Promise<string> {
	const root = freshRoot();
	await writeArray(root, arrayPath, spec);
	return root;
}

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));
const read = (root: string, key: string) => new Uint8Array(fs.readFileSync(path.join(root, key)));
/** The files of a store, relative and with "/" separators, sorted. */
function files(root: string): string[] {
	return (fs.readdirSync(root, { recursive: true }) as string[])
		.filter((f) => fs.statSync(path.join(root, f)).isFile())
		.map((f) => f.split(path.sep).join("/"))
		.sort();
}
/** Little-endian int64s of a byte range. */
function int64s(bytes: Uint8Array, from = 0, to = bytes.length): bigint[] {
	const view = new DataView(bytes.buffer, bytes.byteOffset + from, to - from);
	return Array.from({ length: (to - from) / 8 }, (_, i) => view.getBigInt64(8 * i, true));
}
function uint64s(bytes: Uint8Array, from = 0, to = bytes.length): bigint[] {
	return int64s(bytes, from, to).map((v) => BigInt.asUintN(64, v));
}
const i64 = (...xs: (number | bigint)[]) => BigInt64Array.from(xs, (x) => BigInt(x));

describe("crc32c", () => {
	it("matches the standard check value and the RFC 3720 (iSCSI) vectors", () => {
		const ascii = (s: string) => new TextEncoder().encode(s);
		expect(crc32c(ascii("123456789"))).toBe(0xe3069283);
		expect(crc32c(new Uint8Array(0))).toBe(0);
		expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
		expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
		expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
		expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => 31 - i))).toBe(0x113fdb5c);
	});
});

describe("zarr.json", () => {
	it("has zarr-python's key set, the default data type and NaT fill as an exact JSON number", async () => {
		const root = await store({ shape: [3], chunks: [2], values: i64(1, 2, 3) });
		const text = fs.readFileSync(path.join(root, "zarr.json"), "utf8");
		expect(text).toContain('"fill_value": -9223372036854775808,');
		expect(readJson(path.join(root, "zarr.json"))).toEqual({
			shape: [3],
			data_type: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
			chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
			chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
			// biome-ignore lint/correctness/noPrecisionLoss: -2^63 is a double exactly, as JSON.parse reads the file's text
			fill_value: -9223372036854775808,
			codecs: [LE],
			attributes: {},
			zarr_format: 3,
			node_type: "array",
			storage_transformers: [],
		});
	});

	it("writes a bigint fill value as its exact digits, past 2^53", async () => {
		const root = await store({ shape: [2], chunks: [2], values: i64(1, 2), fillValue: 9007199254740993n, codecs: [LE] });
		const text = fs.readFileSync(path.join(root, "zarr.json"), "utf8");
		expect(text).toMatch(/"fill_value": 9007199254740993,\n/);
		expect(stringifyJson({ a: [1n, -(2n ** 63n), 2n ** 64n - 1n], b: "x", c: undefined, d: null }, 0)).toBe(
			'{"a":[1,-9223372036854775808,18446744073709551615],"b":"x","d":null}',
		);
	});

	it("writes other fill values, the data type, names, attributes and extra keys verbatim", async () => {
		const dataType = { name: "numpy.datetime64", configuration: { unit: "Q", scale_factor: 0 } };
		const root = await store({
			shape: [2, 1],
			chunks: [1, 1],
			values: i64(1, 2),
			dataType,
			fillValue: "NaT",
			dimensionNames: ["time", null as unknown as string],
			attributes: { units: "s", nested: { k: [1, 2] } },
			extraMetadata: { storage_transformers: undefined, custom: true },
		});
		const meta = readJson(path.join(root, "zarr.json"));
		expect(meta.data_type).toEqual(dataType);
		expect(meta.fill_value).toBe("NaT");
		expect(meta.dimension_names).toEqual(["time", null]);
		expect(meta.attributes).toEqual({ units: "s", nested: { k: [1, 2] } });
		expect(meta.custom).toBe(true);
		expect("storage_transformers" in meta).toBe(false);
		expect(Object.keys(meta)).toEqual(["shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs", "attributes", "dimension_names", "zarr_format", "node_type", "custom"]);
	});

	it("writes rawMetadata verbatim", async () => {
		const root = await store({ shape: [1], chunks: [1], values: i64(7), rawMetadata: "{not json" });
		expect(fs.readFileSync(path.join(root, "zarr.json"), "utf8")).toBe("{not json");
		expect(int64s(read(root, "c/0"))).toEqual([7n]);
	});

	it("creates the root and parent groups (as zarr-python writes them) and keeps existing ones", async () => {
		const root = freshRoot();
		await writeGroup(root, "a", { title: "kept" });
		await writeArray(root, "a/b/t", { shape: [1], chunks: [1], values: i64(1) });
		const group = { attributes: {}, zarr_format: 3, consolidated_metadata: null, node_type: "group" };
		expect(readJson(path.join(root, "zarr.json"))).toEqual(group);
		expect(readJson(path.join(root, "a/zarr.json"))).toEqual({ ...group, attributes: { title: "kept" } });
		expect(readJson(path.join(root, "a/b/zarr.json"))).toEqual(group);
		expect(readJson(path.join(root, "a/b/t/zarr.json")).node_type).toBe("array");
		expect(files(root)).toEqual(["a/b/t/c/0", "a/b/t/zarr.json", "a/b/zarr.json", "a/zarr.json", "zarr.json"]);
	});

	it("refuses values that do not fill the shape, and codecs it cannot encode", async () => {
		await expect(store({ shape: [3], chunks: [2], values: i64(1, 2) })).rejects.toThrow(/BigInt64Array of 3/);
		await expect(store({ shape: [2], chunks: [2], values: i64(1, 2), codecs: [{ name: "nope" }] })).rejects.toThrow(/nope/);
		await expect(store({ shape: [2], chunks: [2], values: i64(1, 2), codecs: [{ name: "gzip", configuration: { level: 1 } }] })).rejects.toThrow(/before an array-to-bytes/);
	});
});

describe("chunk keys", () => {
	const values = i64(...Array.from({ length: 6 }, (_, i) => i + 1));
	it.each([
		[{ name: "default", configuration: { separator: "/" } }, ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]],
		[{ name: "default", configuration: { separator: "." } }, ["c.0.0", "c.0.1", "c.1.0", "c.1.1"]],
		[{ name: "v2", configuration: { separator: "." } }, ["0.0", "0.1", "1.0", "1.1"]],
		[{ name: "v2", configuration: { separator: "/" } }, ["0/0", "0/1", "1/0", "1/1"]],
	])("%j", async (chunkKeyEncoding, keys) => {
		const root = await store({ shape: [2, 3], chunks: [1, 2], values, chunkKeyEncoding });
		expect(files(root)).toEqual([...keys, "zarr.json"].sort());
		expect(readJson(path.join(root, "zarr.json")).chunk_key_encoding).toEqual(chunkKeyEncoding);
		// Chunk (1, 1) is row 1, columns 2..3: the value 6, padded with the fill value.
		expect(int64s(read(root, keys[3]))).toEqual([6n, NAT]);
	});

	it("names a 0-d array's only chunk c (default) or 0 (v2)", async () => {
		const def = await store({ shape: [], chunks: [], values: i64(5) });
		expect(files(def)).toEqual(["c", "zarr.json"]);
		expect(int64s(read(def, "c"))).toEqual([5n]);
		const v2 = await store({ shape: [], chunks: [], values: i64(5), chunkKeyEncoding: { name: "v2", configuration: { separator: "." } } });
		expect(files(v2)).toEqual(["0", "zarr.json"]);
	});
});

describe("empty chunks", () => {
	it("skips chunks that are all fill, counting the padding of edge chunks, unless writeEmptyChunks", async () => {
		// chunks of 3: [1 NaT NaT] [NaT NaT NaT] [NaT 2 NaT] [NaT + padding]
		const values = i64(1, NAT, NAT, NAT, NAT, NAT, NAT, 2, NAT, NAT);
		const skipped = await store({ shape: [10], chunks: [3], values });
		expect(files(skipped)).toEqual(["c/0", "c/2", "zarr.json"]);
		const all = await store({ shape: [10], chunks: [3], values, writeEmptyChunks: true });
		expect(files(all)).toEqual(["c/0", "c/1", "c/2", "c/3", "zarr.json"]);
		expect(int64s(read(all, "c/3"))).toEqual([NAT, NAT, NAT]);
	});

	it("uses a bigint fill value for the padding and the emptiness test", async () => {
		const root = await store({ shape: [5], chunks: [2], values: i64(7, 7, 1, 7, 9), fillValue: 7n });
		expect(files(root)).toEqual(["c/1", "c/2", "zarr.json"]);
		expect(int64s(read(root, "c/2"))).toEqual([9n, 7n]);
	});

	it("leaves out omitted chunks and lets a test corrupt the stored bytes", async () => {
		const root = await store({
			shape: [6],
			chunks: [2],
			values: i64(1, 2, 3, 4, 5, 6),
			omitChunks: ([c]) => c === 1,
			corruptChunk: ([c], bytes) => (c === 2 ? bytes.subarray(0, 5) : bytes),
		});
		expect(files(root)).toEqual(["c/0", "c/2", "zarr.json"]);
		expect(read(root, "c/2").length).toBe(5);
	});
});

describe("bytes codec", () => {
	const values = i64(1, -2, NAT, 0x0102030405060708n);
	it("writes little-endian int64", async () => {
		const root = await store({ shape: [4], chunks: [4], values, codecs: [LE] });
		expect(Array.from(read(root, "c/0"))).toEqual([
			1, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x80, 8, 7, 6, 5, 4, 3, 2, 1,
		]);
	});
	it("writes big-endian int64", async () => {
		const root = await store({ shape: [4], chunks: [4], values, codecs: [{ name: "bytes", configuration: { endian: "big" } }] });
		expect(Array.from(read(root, "c/0"))).toEqual([
			0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8,
		]);
	});
	it("lays a 2-D chunk out in C order", async () => {
		const root = await store({ shape: [2, 3], chunks: [2, 3], values: i64(1, 2, 3, 4, 5, 6) });
		expect(int64s(read(root, "c/0/0"))).toEqual([1n, 2n, 3n, 4n, 5n, 6n]);
	});
});

describe("transpose codec", () => {
	it("stores a 2-D chunk as numpy.transpose(chunk, [1, 0])", async () => {
		// [[1, 2, 3], [4, 5, 6]] transposed is [[1, 4], [2, 5], [3, 6]].
		const root = await store({ shape: [2, 3], chunks: [2, 3], values: i64(1, 2, 3, 4, 5, 6), codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, LE] });
		expect(int64s(read(root, "c/0/0"))).toEqual([1n, 4n, 2n, 5n, 3n, 6n]);
	});

	it("stores a 3-D chunk as numpy.transpose(chunk, [2, 0, 1])", async () => {
		// a[i, j, k] = 12 i + 4 j + k, shape [2, 3, 4]; encoded shape [4, 2, 3], e[k, i, j] = a[i, j, k].
		const values = BigInt64Array.from({ length: 24 }, (_, n) => BigInt(n));
		const root = await store({ shape: [2, 3, 4], chunks: [2, 3, 4], values, codecs: [{ name: "transpose", configuration: { order: [2, 0, 1] } }, LE] });
		expect(int64s(read(root, "c/0/0/0"))).toEqual(
			[0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23].map(BigInt),
		);
	});

	it("pads an edge chunk before transposing it", async () => {
		// shape [3, 2], chunks [2, 2]: chunk (1, 0) is [[a20, a21], [fill, fill]], stored transposed.
		const root = await store({ shape: [3, 2], chunks: [2, 2], values: i64(0, 1, 10, 11, 20, 21), fillValue: -1n, codecs: [{ name: "transpose", configuration: { order: [1, 0] } }, LE] });
		expect(int64s(read(root, "c/0/0"))).toEqual([0n, 10n, 1n, 11n]);
		expect(int64s(read(root, "c/1/0"))).toEqual([20n, -1n, 21n, -1n]);
	});
});

describe("bytes-to-bytes codecs", () => {
	const values = BigInt64Array.from({ length: 1000 }, (_, i) => (i % 13 === 0 ? NAT : 1672531200n + BigInt(i) * 3600n));
	const raw = new Uint8Array(values.buffer);

	it("gzip decodes with node:zlib gunzip", async () => {
		const root = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "gzip", configuration: { level: 5 } }] });
		const stored = read(root, "c/0");
		expect(Array.from(stored.subarray(0, 2))).toEqual([0x1f, 0x8b]);
		expect(new Uint8Array(zlib.gunzipSync(stored))).toEqual(raw);
	});

	it("zlib decodes with node:zlib inflate (RFC 1950 stream)", async () => {
		const root = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "zlib", configuration: { level: 1 } }] });
		expect(new Uint8Array(zlib.inflateSync(read(root, "c/0")))).toEqual(raw);
	});

	it("zstd decodes with numcodecs, and checksum: true adds a content checksum zstd verifies", async () => {
		const plain = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "zstd", configuration: { level: 0, checksum: false } }] });
		const frame = read(plain, "c/0");
		expect(frame[4] & 0x04).toBe(0);
		expect(await Zstd.fromConfig({ level: 0 }).decode(frame)).toEqual(raw);

		const checked = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "zstd", configuration: { level: 3, checksum: true } }] });
		const withSum = read(checked, "c/0");
		expect(withSum[4] & 0x04).toBe(0x04);
		expect(new DataView(withSum.buffer, withSum.byteOffset).getUint32(withSum.length - 4, true)).toBe(Number(xxh64(raw) & 0xffffffffn));
		expect(await Zstd.fromConfig({ level: 0 }).decode(withSum)).toEqual(raw);
		const broken = withSum.slice();
		broken[broken.length - 1] ^= 1;
		await expect(Zstd.fromConfig({ level: 0 }).decode(broken)).rejects.toThrow(/checksum/);
	});

	it("xxh64 matches its reference value for empty input", () => {
		expect(xxh64(new Uint8Array(0))).toBe(0xef46db3751d8e999n);
	});

	it("blosc decodes with numcodecs", async () => {
		const root = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "blosc", configuration: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }] });
		expect(await Blosc.fromConfig({}).decode(read(root, "c/0"))).toEqual(raw);
	});

	it("crc32c appends the little-endian checksum of the bytes before it", async () => {
		const root = await store({ shape: [2], chunks: [2], values: i64(1, 2), codecs: [LE, { name: "crc32c" }] });
		const stored = read(root, "c/0");
		expect(stored.length).toBe(20);
		expect(int64s(stored, 0, 16)).toEqual([1n, 2n]);
		expect(new DataView(stored.buffer, stored.byteOffset).getUint32(16, true)).toBe(crc32c(stored.subarray(0, 16)));
	});

	it("chains compressors in the order listed", async () => {
		const root = await store({ shape: [1000], chunks: [1000], values, codecs: [LE, { name: "gzip", configuration: { level: 1 } }, { name: "crc32c" }] });
		const stored = read(root, "c/0");
		const body = stored.subarray(0, stored.length - 4);
		expect(new DataView(stored.buffer, stored.byteOffset).getUint32(stored.length - 4, true)).toBe(crc32c(body));
		expect(new Uint8Array(zlib.gunzipSync(body))).toEqual(raw);
	});
});

describe("sharding_indexed", () => {
	// shape [5, 4], shards [4, 4], inner chunks [2, 2]; a[i, j] = 100 i + j, with inner chunk (0, 1) of shard
	// (0, 0) (rows 0-1, columns 2-3) all NaT. Shard (1, 0) holds row 4 only; its inner row 1 is all padding.
	const values = BigInt64Array.from({ length: 20 }, (_, n) => {
		const [i, j] = [Math.floor(n / 4), n % 4];
		return i < 2 && j >= 2 ? NAT : BigInt(100 * i + j);
	});
	const sharding = (index_location: "end" | "start", index_codecs: object[] = [LE, { name: "crc32c" }]) => [
		{ name: "sharding_indexed", configuration: { chunk_shape: [2, 2], codecs: [LE], index_codecs, index_location } },
	];
	const INDEX_BYTES = 4 * 16 + 4;

	/** The (offset, nbytes) pairs of an index placed at [from, from + 64), after checking its crc32c. */
	function index(shard: Uint8Array, from: number): bigint[][] {
		const body = shard.subarray(from, from + 64);
		expect(new DataView(shard.buffer, shard.byteOffset).getUint32(from + 64, true)).toBe(crc32c(body));
		const words = uint64s(shard, from, from + 64);
		return [0, 1, 2, 3].map((k) => [words[2 * k], words[2 * k + 1]]);
	}

	it('places the chunks first and the index at the end with index_location "end"', async () => {
		const root = await store({ shape: [5, 4], chunks: [4, 4], values, codecs: sharding("end") });
		expect(files(root)).toEqual(["c/0/0", "c/1/0", "zarr.json"]);
		const shard = read(root, "c/0/0");
		expect(shard.length).toBe(3 * 32 + INDEX_BYTES);
		expect(index(shard, 96)).toEqual([
			[0n, 32n],
			[ABSENT, ABSENT],
			[32n, 32n],
			[64n, 32n],
		]);
		expect(int64s(shard, 0, 32)).toEqual([0n, 1n, 100n, 101n]);
		expect(int64s(shard, 32, 64)).toEqual([200n, 201n, 300n, 301n]);
		expect(int64s(shard, 64, 96)).toEqual([202n, 203n, 302n, 303n]);

		const edge = read(root, "c/1/0");
		expect(edge.length).toBe(2 * 32 + INDEX_BYTES);
		expect(index(edge, 64)).toEqual([
			[0n, 32n],
			[32n, 32n],
			[ABSENT, ABSENT],
			[ABSENT, ABSENT],
		]);
		expect(int64s(edge, 0, 32)).toEqual([400n, 401n, NAT, NAT]);
		expect(int64s(edge, 32, 64)).toEqual([402n, 403n, NAT, NAT]);
	});

	it('places the index first with index_location "start", offsets counting it', async () => {
		const root = await store({ shape: [5, 4], chunks: [4, 4], values, codecs: sharding("start") });
		const shard = read(root, "c/0/0");
		expect(shard.length).toBe(INDEX_BYTES + 3 * 32);
		expect(index(shard, 0)).toEqual([
			[68n, 32n],
			[ABSENT, ABSENT],
			[100n, 32n],
			[132n, 32n],
		]);
		expect(int64s(shard, 68, 100)).toEqual([0n, 1n, 100n, 101n]);
		expect(int64s(shard, 132, 164)).toEqual([202n, 203n, 302n, 303n]);
	});

	it("encodes the index with big-endian bytes and no checksum when told to", async () => {
		const root = await store({ shape: [5, 4], chunks: [4, 4], values, codecs: sharding("end", [{ name: "bytes", configuration: { endian: "big" } }]) });
		const shard = read(root, "c/0/0");
		expect(shard.length).toBe(96 + 64);
		const view = new DataView(shard.buffer, shard.byteOffset);
		expect(Array.from({ length: 8 }, (_, k) => view.getBigUint64(96 + 8 * k, false))).toEqual([0n, 32n, ABSENT, ABSENT, 32n, 32n, 64n, 32n]);
	});

	it("compresses inner chunks with the inner codecs", async () => {
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [2, 2], codecs: [LE, { name: "gzip", configuration: { level: 1 } }], index_codecs: [LE, { name: "crc32c" }] } }];
		const root = await store({ shape: [5, 4], chunks: [4, 4], values, codecs });
		const shard = read(root, "c/0/0");
		const entries = index(shard, shard.length - INDEX_BYTES);
		const [offset, nbytes] = entries[3].map(Number);
		expect(int64s(new Uint8Array(zlib.gunzipSync(shard.subarray(offset, offset + nbytes))))).toEqual([202n, 203n, 302n, 303n]);
	});

	it("does not write a shard whose inner chunks are all empty, and writes every inner chunk with writeEmptyChunks", async () => {
		const sparse = BigInt64Array.from({ length: 32 }, (_, n) => (n < 16 ? BigInt(n) : NAT));
		const root = await store({ shape: [8, 4], chunks: [4, 4], values: sparse, codecs: sharding("end") });
		expect(files(root)).toEqual(["c/0/0", "zarr.json"]);
		const dense = await store({ shape: [8, 4], chunks: [4, 4], values: sparse, codecs: sharding("end"), writeEmptyChunks: true });
		expect(files(dense)).toEqual(["c/0/0", "c/1/0", "zarr.json"]);
		expect(index(read(dense, "c/1/0"), 128).map(([, n]) => n)).toEqual([32n, 32n, 32n, 32n]);
	});

	it("refuses a shard shape that is not a multiple of the inner chunk shape", async () => {
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [3, 2], codecs: [LE], index_codecs: [LE] } }];
		await expect(store({ shape: [5, 4], chunks: [4, 4], values, codecs })).rejects.toThrow(/multiple/);
	});
});

describe("against zarr-python's datetime64[D].zarr", () => {
	const fixture = path.join(FIXTURES, "datetime64[D].zarr");
	const present = fs.existsSync(fixture);
	if (!present) console.warn(`skipping the zarr-python comparison: ${FIXTURES} is absent`);

	it.skipIf(!present)("writes the same zarr.json and the same chunk contents", async () => {
		const root = await store({
			shape: [6],
			chunks: [5],
			values: i64(0, NAT, 12817, 12817, 12817, NAT),
			dataType: { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } },
			codecs: [LE, { name: "zstd", configuration: { level: 0, checksum: false } }],
		});
		expect(readJson(path.join(root, "zarr.json"))).toEqual(readJson(path.join(fixture, "zarr.json")));
		expect(fs.readFileSync(path.join(root, "zarr.json"), "utf8")).toBe(fs.readFileSync(path.join(fixture, "zarr.json"), "utf8"));
		expect(files(root)).toEqual(files(fixture));
		expect(files(root)).not.toContain("c/1");
		const zstd = Zstd.fromConfig({ level: 0 });
		const ours = await zstd.decode(read(root, "c/0"));
		expect(ours).toEqual(await zstd.decode(read(fixture, "c/0")));
		expect(int64s(ours)).toEqual([0n, NAT, 12817n, 12817n, 12817n]);
	});
});
