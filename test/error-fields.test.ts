/**
 * The structured fields of errors, as an embedder reads them through the public API (a service logging `path` and
 * `key`, an ETL job deciding what to retry): METADATA_INVALID names the document (`temp/zarr.json`, `.zarray`,
 * `.zmetadata`) and the field at fault; CHUNK_CORRUPT, CHUNK_MISSING and READ_FAILED of a chunk name its store key
 * (a shard's, for an inner chunk) and the array, whichever step failed: the store, the shard index, a codec on the
 * calling thread or on a decode thread.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportTable, exportToFile, inspectStore, type ExportOptions } from "../src/index.js";
import { tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";
import { writeStoredZip } from "./support/zip.js";
import { withIndexEntry } from "./support/shard-index.js";

// Small arrays decode on the calling thread unless a count is asked for: these decode on two threads, except where a
// case asks for the calling thread (0).
process.env.DT64_DECODE_THREADS = "2";
afterEach(() => {
	process.env.DT64_DECODE_THREADS = "2";
});

const LE = { name: "bytes", configuration: { endian: "little" } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const ZSTD = { name: "zstd", configuration: { level: 3, checksum: false } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const CRC32C = { name: "crc32c" };

const work = tempDir("dt64-error-fields-");
let stores = 0;

/** A fresh store folder holding a root group. */
async function freshStore(): Promise<string> {
	const root = path.join(work, `s${stores++}.zarr`);
	await writeGroup(root, "");
	return root;
}

type Corrupt = (coords: number[], bytes: Uint8Array) => Uint8Array;

/** A store with the datetime64 array `temp` of 1024 seconds in chunks of 256 (or shards), chunk 1 rewritten by `corrupt`. */
async function tempStore(spec: { codecs?: object[]; chunks?: number[]; corrupt?: Corrupt; extraMetadata?: Record<string, unknown>; attributes?: Record<string, unknown> } = {}): Promise<string> {
	const root = await freshStore();
	await writeArray(root, "temp", {
		shape: [1024],
		chunks: spec.chunks ?? [256],
		values: BigInt64Array.from({ length: 1024 }, (_, i) => BigInt(1_600_000_000 + i * 60)),
		codecs: spec.codecs ?? [LE],
		corruptChunk: spec.corrupt === undefined ? undefined : (coords: number[], bytes: Uint8Array) => (coords[0] === 1 ? spec.corrupt!(coords, bytes) : bytes),
		...(spec.extraMetadata === undefined ? {} : { extraMetadata: spec.extraMetadata }),
		...(spec.attributes === undefined ? {} : { attributes: spec.attributes }),
	});
	return root;
}

/** Writes a Zarr v2 array at `arrayPath` (int64 seconds, chunks of 2, no compressor): its `.zarray` with `changes`, its chunks. */
function v2Store(root: string, arrayPath: string, changes: Record<string, unknown> = {}, attributes?: Record<string, unknown>): string {
	const dir = path.join(root, arrayPath);
	fs.mkdirSync(dir, { recursive: true });
	if (!fs.existsSync(path.join(root, ".zgroup"))) fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	const zarray = { zarr_format: 2, shape: [4], chunks: [2], dtype: "<M8[s]", compressor: null, fill_value: null, filters: null, order: "C", ...changes };
	fs.writeFileSync(path.join(dir, ".zarray"), JSON.stringify(zarray));
	if (attributes !== undefined) fs.writeFileSync(path.join(dir, ".zattrs"), JSON.stringify(attributes));
	for (const chunk of [0, 1]) fs.writeFileSync(path.join(dir, String(chunk)), new Uint8Array(BigInt64Array.of(BigInt(chunk * 2), BigInt(chunk * 2 + 1)).buffer));
	return root;
}

/** Every shard with its index entry `slot` rewritten (see withIndexEntry). */
const withEntry =
	(slot: number, offset: bigint, length: bigint): Corrupt =>
	(_coords, bytes) =>
		withIndexEntry(bytes, slot, offset, length);

/**
 * The store in a zip of STORED entries, entry `broken` made one the zip library fails to read: its local header
 * overwritten (a whole read checks it), and its compression method in the central directory one it does not know (a
 * range read of a compressed entry reads it whole).
 */
function zipWithBrokenEntry(root: string, broken: string): string {
	const zip = `${root}.zip`;
	writeStoredZip(root, zip);
	const bytes = fs.readFileSync(zip);
	const name = Buffer.from(broken);
	bytes.writeUInt32LE(0xdeadbeef, bytes.indexOf(name) - 30);
	bytes.writeUInt16LE(99, bytes.lastIndexOf(name) - 46 + 10);
	fs.writeFileSync(zip, bytes);
	return zip;
}

const SHARDED = (innerCodecs: object[] = [LE]) => ({
	chunks: [256],
	codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [64], codecs: innerCodecs, index_codecs: [LE, CRC32C], index_location: "end" } }],
});

type Call = (store: string) => Promise<unknown>;
const exporting =
	(options: ExportOptions = { array: "temp" }): Call =>
	(store) =>
		exportTable(store, new PassThrough().resume(), options);
const toFile =
	(options: ExportOptions = { array: "temp" }): Call =>
	(store) =>
		exportToFile(store, path.join(work, `out-${stores++}.arrow`), options);
const inspecting: Call = (store) => inspectStore(store);

interface Case {
	readonly name: string;
	readonly store: () => Promise<string>;
	readonly call: Call;
	/** The code and fields; a function of the store's location for those that name it. */
	readonly expected: (store: string) => Record<string, unknown>;
	/** `DT64_DECODE_THREADS` for this case. */
	readonly threads?: string;
}

const metadataCases: Case[] = [
	{
		name: "a zarr.json shape that is not a list of integers",
		store: () => tempStore({ extraMetadata: { shape: [-1] } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "shape" }),
	},
	{
		name: "a zarr.json data_type without a unit",
		store: () => tempStore({ extraMetadata: { data_type: { name: "numpy.datetime64", configuration: { scale_factor: 1 } } } }),
		call: toFile(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "data_type" }),
	},
	{
		name: "a zarr.json that is not JSON (inspect, the root)",
		store: async () => {
			const root = await freshStore();
			fs.writeFileSync(path.join(root, "zarr.json"), '{"zarr_format": 3,');
			return root;
		},
		call: inspecting,
		expected: () => ({ code: "METADATA_INVALID", path: "zarr.json" }),
	},
	{
		name: "a zarr.json of another zarr_format",
		store: () => tempStore({ extraMetadata: { zarr_format: 4 } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "zarr_format" }),
	},
	{
		name: "a fractional fill_value",
		store: () => tempStore({ extraMetadata: { fill_value: 1.5 } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "fill_value" }),
	},
	{
		name: "an unknown chunk key encoding",
		store: () => tempStore({ extraMetadata: { chunk_key_encoding: { name: "v4" } } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "chunk_key_encoding" }),
	},
	{
		name: "a bytes codec with an unknown endian",
		store: () => tempStore({ extraMetadata: { codecs: [{ name: "bytes", configuration: { endian: "middle" } }] } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "bytes" }),
	},
	{
		name: "a shard shape that is not a multiple of its inner chunks",
		store: () => tempStore({ ...SHARDED(), extraMetadata: { codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [LE] } }] } }),
		call: exporting(),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "sharding_indexed" }),
	},
	{
		name: "a .zarray order that is neither C nor F (the store root)",
		store: async () => {
			const root = path.join(work, `s${stores++}.zarr`);
			return v2Store(root, "", { order: "Q" });
		},
		call: exporting({}),
		expected: () => ({ code: "METADATA_INVALID", path: ".zarray", field: "order" }),
	},
	{
		name: "a .zarray chunks of another rank",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "t", { chunks: [2, 2] }),
		call: exporting({ array: "t" }),
		expected: () => ({ code: "METADATA_INVALID", path: "t/.zarray", field: "chunks" }),
	},
	{
		name: "a .zarray dtype that is not a time",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "t", { dtype: "<M8[fortnight]" }),
		call: exporting({ array: "t" }),
		expected: () => ({ code: "METADATA_INVALID", path: "t/.zarray", field: "dtype" }),
	},
	{
		name: "a .zarray fill_value that is not an int64",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "t", { fill_value: "soon" }),
		call: exporting({ array: "t" }),
		expected: () => ({ code: "METADATA_INVALID", path: "t/.zarray", field: "fill_value" }),
	},
	{
		name: "a .zattrs that is not JSON",
		store: async () => {
			const root = v2Store(path.join(work, `s${stores++}.zarr`), "t");
			fs.writeFileSync(path.join(root, "t/.zattrs"), "{");
			return root;
		},
		call: exporting({ array: "t" }),
		expected: () => ({ code: "METADATA_INVALID", path: "t/.zattrs" }),
	},
	{
		name: "a .zmetadata without its metadata member",
		store: async () => {
			const root = path.join(work, `s${stores++}.zarr`);
			fs.mkdirSync(root);
			fs.writeFileSync(path.join(root, ".zmetadata"), JSON.stringify({ zarr_consolidated_format: 1 }));
			return root;
		},
		call: exporting({}),
		expected: () => ({ code: "METADATA_INVALID", path: ".zmetadata", field: "metadata" }),
	},
	{
		name: "a .zmetadata that is not JSON",
		store: async () => {
			const root = path.join(work, `s${stores++}.zarr`);
			fs.mkdirSync(root);
			fs.writeFileSync(path.join(root, ".zmetadata"), "{ not json");
			return root;
		},
		call: inspecting,
		expected: () => ({ code: "METADATA_INVALID", path: ".zmetadata" }),
	},
	{
		name: "a CF calendar attribute that is not a string (v3: in zarr.json)",
		store: async () => {
			const root = await freshStore();
			await writeArray(root, "time", { shape: [4], chunks: [2], dataType: "int64", fillValue: 0n, values: BigInt64Array.of(1n, 2n, 3n, 4n), attributes: { units: "days since 2000-01-01", calendar: 5 } });
			return root;
		},
		call: exporting({ array: "time" }),
		expected: () => ({ code: "METADATA_INVALID", path: "time/zarr.json", field: "calendar" }),
	},
	{
		name: "CF units with a reference date that is not one (v2: in .zattrs)",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "time", { dtype: "<i8", fill_value: 0 }, { units: "days since 2000-13-45" }),
		call: exporting({ array: "time" }),
		expected: () => ({ code: "METADATA_INVALID", path: "time/.zattrs", field: "units" }),
	},
	{
		name: "a column of a data type no column holds (a usage error: another choice of columns)",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "s", { dtype: "<c16", fill_value: null }),
		call: exporting({ columns: ["s"] }),
		expected: (store) => ({ code: "COLUMN_UNSUPPORTED", option: "columns", path: "s", message: `columns: array s (${store}/s/.zarray): dtype "<c16" cannot be exported as a column (Arrow has no complex type)` }),
	},
	{
		name: "a column whose v2 filter this package does not read: the same usage error, naming the codec",
		store: async () => v2Store(path.join(work, `s${stores++}.zarr`), "x", { dtype: "<i8", fill_value: 0, filters: [{ id: "fixedscaleoffset", offset: 0, scale: 1, dtype: "<i8" }] }),
		call: exporting({ columns: ["x"] }),
		expected: (store) => ({ code: "COLUMN_UNSUPPORTED", option: "columns", path: "x", field: "filters[0]", message: expect.stringMatching(new RegExp(`^columns: array x \\(${store}/x/\\.zarray\\): filters\\[0\\]: codec id "fixedscaleoffset" is not supported`)) }),
	},
	{
		name: "a datetime64 column whose v3 codec this package does not read",
		store: () => tempStore({ extraMetadata: { codecs: [LE, { name: "lzma9000" }] } }),
		call: exporting({ columns: ["temp"] }),
		expected: (store) => ({ code: "COLUMN_UNSUPPORTED", option: "columns", path: "temp", message: `columns: array temp (${store}/temp/zarr.json): unknown codec "lzma9000"` }),
	},
	{
		name: "dimension names that are not strings (a table column)",
		store: async () => {
			const root = await freshStore();
			await writeArray(root, "temp", { shape: [4], chunks: [2], values: BigInt64Array.of(1n, 2n, 3n, 4n), extraMetadata: { dimension_names: [7] } });
			return root;
		},
		call: exporting({ columns: ["temp"], index: true }),
		expected: () => ({ code: "METADATA_INVALID", path: "temp/zarr.json", field: "dimension_names" }),
	},
];

const chunkCases: Case[] = [
	{
		name: "a zstd chunk that does not decompress",
		store: () => tempStore({ codecs: [LE, ZSTD], corrupt: (_c, b) => b.subarray(0, b.length - 3) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a blosc chunk whose compressed stream is corrupt, on the decode threads",
		store: () => tempStore({ codecs: [LE, BLOSC], corrupt: (_c, b) => b.map((x, i) => (i === 25 ? x ^ 0xff : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a blosc chunk whose compressed stream is corrupt, on the calling thread",
		store: () => tempStore({ codecs: [LE, BLOSC], corrupt: (_c, b) => b.map((x, i) => (i === 25 ? x ^ 0xff : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
		threads: "0",
	},
	{
		name: "a blosc chunk shorter than its header says",
		store: () => tempStore({ codecs: [LE, BLOSC], corrupt: (_c, b) => b.subarray(0, 20) }),
		call: toFile(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a gzip chunk that does not inflate",
		store: () => tempStore({ codecs: [LE, GZIP], corrupt: (_c, b) => b.map((x, i) => (i > 10 ? x ^ 0x5a : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a chunk of the wrong size",
		store: () => tempStore({ corrupt: (_c, b) => b.subarray(0, 24) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a chunk failing its crc32c checksum",
		store: () => tempStore({ codecs: [LE, CRC32C], corrupt: (_c, b) => b.map((x, i) => (i === 3 ? x ^ 1 : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard index failing its crc32c checksum",
		store: () => tempStore({ ...SHARDED(), corrupt: (_c, b) => b.map((x, i) => (i === b.length - 10 ? x ^ 0xff : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard index entry pointing past the shard",
		store: () => tempStore({ ...SHARDED(), corrupt: withEntry(1, 100_000n, 512n) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard index entry with an absurd offset",
		store: () => tempStore({ ...SHARDED(), corrupt: withEntry(2, 2n ** 62n, 16n) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard shorter than its index",
		store: () => tempStore({ ...SHARDED(), corrupt: (_c, b) => b.subarray(0, 30) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a corrupt zstd inner chunk of a shard",
		store: () => tempStore({ ...SHARDED([LE, ZSTD]), corrupt: (_c, b) => b.map((x, i) => (i > 4 && i < 12 ? x ^ 0x33 : x)) }),
		call: exporting(),
		expected: () => ({ code: "CHUNK_CORRUPT", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a chunk file that is a folder",
		store: async () => {
			const root = await tempStore();
			fs.rmSync(path.join(root, "temp/c/1"));
			fs.mkdirSync(path.join(root, "temp/c/1"));
			return root;
		},
		call: exporting(),
		expected: () => ({ code: "READ_FAILED", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard file that is a folder",
		store: async () => {
			const root = await tempStore(SHARDED());
			fs.rmSync(path.join(root, "temp/c/1"));
			fs.mkdirSync(path.join(root, "temp/c/1"));
			return root;
		},
		call: exporting(),
		expected: () => ({ code: "READ_FAILED", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a chunk of a zip store that the zip library cannot read",
		store: async () => zipWithBrokenEntry(await tempStore(), "temp/c/1"),
		call: exporting(),
		expected: () => ({ code: "READ_FAILED", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a shard of a zip store that the zip library cannot read",
		store: async () => zipWithBrokenEntry(await tempStore(SHARDED()), "temp/c/1"),
		call: exporting(),
		expected: () => ({ code: "READ_FAILED", path: "temp", key: "temp/c/1" }),
	},
	{
		name: "a missing chunk of a v2 array without a fill value",
		store: async () => {
			const root = v2Store(path.join(work, `s${stores++}.zarr`), "t");
			fs.rmSync(path.join(root, "t/1"));
			return root;
		},
		call: exporting({ array: "t" }),
		expected: () => ({ code: "CHUNK_MISSING", path: "t", key: "t/1" }),
	},
];

const storeCases: Case[] = [
	{
		name: "an array that is not in the store",
		store: () => tempStore(),
		call: exporting({ array: "humidity" }),
		expected: () => ({ code: "ARRAY_NOT_FOUND", path: "humidity" }),
	},
	{
		name: "a group where the array should be",
		store: async () => {
			const root = await tempStore();
			await writeGroup(root, "sub");
			return root;
		},
		call: toFile({ array: "sub" }),
		// The message names the group asked for, not the store root.
		expected: (store) => ({ code: "ARRAY_NOT_FOUND", path: "sub", message: `${store}/sub: the group holds no numpy.datetime64 array and no CF time array` }),
	},
	{
		name: "a metadata document that is a folder",
		store: async () => {
			const root = await tempStore();
			fs.rmSync(path.join(root, "temp/zarr.json"));
			fs.mkdirSync(path.join(root, "temp/zarr.json"));
			return root;
		},
		call: exporting(),
		expected: (store) => ({ code: "READ_FAILED", path: store, key: "temp/zarr.json" }),
	},
	{
		name: "a metadata document of a zip store that the zip library cannot read",
		store: async () => zipWithBrokenEntry(await tempStore(), "temp/zarr.json"),
		call: exporting(),
		expected: (store) => ({ code: "READ_FAILED", path: store, key: "temp/zarr.json" }),
	},
	{
		name: "a store that does not exist",
		store: async () => path.join(work, "nowhere.zarr"),
		call: inspecting,
		expected: (store) => ({ code: "STORE_NOT_FOUND", path: store }),
	},
	{
		name: "a store that is a file, not a folder or zip",
		store: async () => {
			const file = path.join(work, `s${stores++}.txt`);
			fs.writeFileSync(file, "");
			return file;
		},
		call: exporting(),
		expected: (store) => ({ code: "STORE_INVALID", path: store }),
	},
];

describe("error fields, through the public API", () => {
	it.each([...metadataCases, ...chunkCases, ...storeCases].map((c) => [c.name, c] as const))("%s", async (_name, c) => {
		const store = await c.store();
		if (c.threads !== undefined) process.env.DT64_DECODE_THREADS = c.threads;
		const error = await rejection(c.call(store));
		expect(error).toMatchObject(c.expected(store));
	});

	it("an existing output file names it", async () => {
		const store = await tempStore();
		const target = path.join(work, "exists.arrow");
		fs.writeFileSync(target, "");
		expect(await rejection(exportToFile(store, target, { array: "temp" }))).toMatchObject({ code: "OUTPUT_EXISTS", path: target });
	});
});
