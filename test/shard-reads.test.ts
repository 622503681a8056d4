/**
 * Sharded arrays on a local store: one read per shard for its inner chunks (and one for its index), never one
 * per inner chunk; inner chunks of one shard decoded at once; values exact.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { crc32c, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BufferPool, capacityFor } from "../src/memory/buffer-pool.js";
import { DirectoryStore, readIntoPieces } from "../src/store/directory-store.js";
import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "../src/store/readable.js";
import { parseNodeJson, parseTimeArrayMetadata } from "../src/zarr/array-metadata.js";
import { readChunksInOrder } from "../src/stream/chunk-bands.js";
import { createChunkSource } from "../src/zarr/chunk-source.js";
import { transposedSource } from "../src/table/transposed-variable.js";
import { openTimeArray } from "../src/open-array.js";
import { tempDir } from "./support/cli.js";
import { CountingPool } from "./support/counting-pool.js";
import { withIndexEntry } from "./support/shard-index.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/**
 * A DirectoryStore (reading into `pool`, if given) that counts its reads by key; with `ranges`, it reads several
 * ranges in one go too (getRanges), as the DirectoryStore does.
 */
function counting(root: string, pool?: BufferPool, ranges = false): { store: AsyncReadable; reads: Map<string, number> } {
	const inner = new DirectoryStore(root, pool);
	const reads = new Map<string, number>();
	const count = (key: string) => reads.set(key, (reads.get(key) ?? 0) + 1);
	const store: AsyncReadable = {
		get: (key: AbsolutePath, options?: GetOptions) => (count(key), inner.get(key, options)),
		getRange: (key: AbsolutePath, range: RangeQuery, options?: GetOptions) => (count(key), inner.getRange(key, range, options)),
	};
	if (ranges) store.getRanges = (key, list, options) => (count(key), inner.getRanges(key, list, options));
	return { store, reads };
}

/** Random int64 counts: they hardly compress, as the bench's do. */
function randomCounts(length: number): BigInt64Array {
	const values = new BigInt64Array(length);
	let state = 0x2545f491n;
	for (let i = 0; i < length; i++) {
		state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
		values[i] = BigInt.asIntN(64, state) >> 8n;
	}
	return values;
}

const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };

describe("sharded arrays on a local store", () => {
	for (const [location, ranges] of [["end", false], ["start", false], ["end", true], ["start", true]] as const) {
		it(`read each shard twice (index, inner chunks), whatever its inner chunk count (index at the ${location}${ranges ? ", ranges read in one go" : ""})`, async () => {
			const root = path.join(tempDir("dt64-shard-reads-"), "a.zarr");
			const values = BigInt64Array.from({ length: 400 }, (_, i) => BigInt(1_700_000_000 + 7 * i));
			const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [10], codecs: [LE, { name: "zstd", configuration: { level: 1, checksum: false } }], index_codecs: [LE, { name: "crc32c" }], index_location: location } }];
			await writeArray(root, "", { shape: [400], chunks: [100], dataType: seconds, values, codecs });
			const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
			const pool = new BufferPool();
			const { store, reads } = counting(root, ranges ? pool : undefined, ranges);
			const source = createChunkSource(store, meta, "a.zarr", { bufferPool: ranges ? pool : undefined });
			expect(source.gridShape).toEqual([40]);
			const chunks = await Promise.all(Array.from({ length: 40 }, (_, c) => source.read([c])));
			expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values));
			expect(Object.fromEntries(reads)).toEqual({ "/c/0": 2, "/c/1": 2, "/c/2": 2, "/c/3": 2 });
		});
	}

	// Inner chunks of 16 bytes and a checksum: the second starts at byte 20 of the shard (24 with a 4-byte index
	// head), which no 8-byte value may start at in the shard's buffer. A valid shard: the spec puts no alignment on offsets.
	for (const endian of ["little", "big"] as const) {
		for (const location of ["end", "start"] as const) {
			it(`read inner chunks at offsets that are not multiples of 8 (${endian} endian, crc32c each, index at the ${location}, into the pool)`, async () => {
				const root = path.join(tempDir("dt64-shard-unaligned-"), "a.zarr");
				const values = BigInt64Array.from({ length: 8 }, (_, i) => BigInt(86_400 * i));
				const inner = [{ name: "bytes", configuration: { endian } }, { name: "crc32c" }];
				const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: inner, index_codecs: [LE, { name: "crc32c" }], index_location: location } }];
				await writeArray(root, "", { shape: [8], chunks: [8], dataType: seconds, values, codecs });
				const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
				const pool = new BufferPool();
				const source = createChunkSource(new DirectoryStore(root, pool), meta, "a.zarr", { bufferPool: pool });
				const chunks = await Promise.all(Array.from({ length: 4 }, (_, c) => source.read([c])));
				expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values));
			});
		}
	}

	it("decode two index entries naming the same big-endian bytes alike, read as a Node Buffer: they are swapped in a copy, not where they were read", async () => {
		const root = path.join(tempDir("dt64-shard-shared-"), "a.zarr");
		const values = BigInt64Array.of(1_000n, 2_000n, 1_000n, 2_000n);
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: [{ name: "bytes", configuration: { endian: "big" } }], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape: [4], chunks: [4], dataType: seconds, values, codecs });
		// Inner chunk 1 holds what inner chunk 0 holds: its entry is made to name inner chunk 0's bytes.
		const shardPath = path.join(root, "c", "0");
		fs.writeFileSync(shardPath, withIndexEntry(fs.readFileSync(shardPath), 1, 0n, 16n, 2));
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		// A store that hands out Node Buffers (as the buffer pool does), whose slice() is a view of the same memory.
		const inner = new DirectoryStore(root);
		const asBuffer = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
		const store: AsyncReadable = {
			get: async (key, options) => asBuffer(await inner.get(key, options)),
			getRange: async (key, range, options) => asBuffer(await inner.getRange(key, range, options)),
		};
		const source = createChunkSource(store, meta, "a.zarr");
		const chunks = await Promise.all([source.read([0]), source.read([1])]);
		expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values));
	});

	it("read a shard into the pool, give each inner chunk's bytes out once, and take the buffer back after the last", async () => {
		const root = path.join(tempDir("dt64-shard-pool-"), "a.zarr");
		const values = BigInt64Array.from({ length: 20_000 }, (_, i) => BigInt(1_700_000_000 + 13 * i));
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [1000], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape: [20_000], chunks: [10_000], dataType: seconds, values, codecs });
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const pool = new BufferPool();
		const { store, reads } = counting(root, pool);
		const source = createChunkSource(store, meta, "a.zarr", { bufferPool: pool });
		// Asked for twice while its shard is held: the second time from a read of its own (index, span, then it).
		for (let twice = 0; twice < 2; twice++) expect(Array.from(await source.read([3]))).toEqual(Array.from(values.subarray(3000, 4000)));
		expect(reads.get("/c/0")).toBe(3);
		const chunks = await Promise.all(Array.from({ length: 10 }, (_, c) => source.read([c])));
		expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values.subarray(0, 10_000)));
		expect(reads.get("/c/0")).toBe(4);
		// Each inner chunk said dead by its decoder: the shard's buffer is the pool's again (the index is not pooled;
		// the decoded chunks, still the caller's, are buffers of another size).
		const spanBytes = fs.statSync(path.join(root, "c", "0")).size - (10 * 16 + 4);
		expect(pool.freeBytes).toBeGreaterThanOrEqual(capacityFor(spanBytes));
		// Another use of the buffer spoils it; an inner chunk asked for again is read again, not taken from it.
		pool.acquire(spanBytes).fill(0x5a);
		expect(Array.from(await source.read([3]))).toEqual(Array.from(values.subarray(3000, 4000)));
		expect(reads.get("/c/0")).toBe(5);
	});

	/**
	 * Writes 200,000 values in two shards of five inner chunks (20,000 values, 160 kB each: they decode on the decode
	 * threads), reads every inner chunk through a counting pool, and checks the values and the reads (two a shard).
	 */
	async function readShards(name: string, values: BigInt64Array, dataType: object, ranges: boolean): Promise<number> {
		const root = path.join(tempDir(`dt64-shard-${name}-`), "a.zarr");
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [20_000], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape: [200_000], chunks: [100_000], dataType, values, codecs });
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const pool = new CountingPool();
		const { store, reads } = counting(root, pool, ranges);
		const source = createChunkSource(store, meta, "a.zarr", { bufferPool: pool });
		const chunks = [];
		for (let c = 0; c < 10; c++) chunks.push(await source.read([c]));
		expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values));
		expect(Object.fromEntries(reads)).toEqual({ "/c/0": 2, "/c/1": 2 });
		return pool.acquired;
	}

	it("read each inner chunk of hardly compressible data into a buffer with room, and decode it there: no copy", async () => {
		const values = randomCounts(200_000);
		const nanoseconds = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
		// In one go: a buffer per inner chunk, decoded where it is. One range: a buffer per shard, and a copy of each
		// inner chunk into a buffer with room.
		expect(await readShards("room", values, nanoseconds, true)).toBe(10);
		expect(await readShards("room", values, nanoseconds, false)).toBe(12);
	});

	it("read inner chunks that compress well as views of one buffer: rooms for all of them would be many times the shard", async () => {
		const values = BigInt64Array.from({ length: 200_000 }, (_, i) => BigInt(1_700_000_000 + i));
		expect(await readShards("compressible", values, seconds, true)).toBe(12);
	});

	it("do not pool a shard whose index points two inner chunks at the same bytes", async () => {
		const root = path.join(tempDir("dt64-shard-overlap-"), "a.zarr");
		const values = BigInt64Array.from({ length: 20 }, (_, i) => BigInt(1_700_000_000 + i));
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [10], codecs: [LE, ZSTD], index_codecs: [LE] } }];
		await writeArray(root, "", { shape: [20], chunks: [20], dataType: seconds, values, codecs });
		// Inner chunk 1's entry made a copy of inner chunk 0's: both decode to chunk 0's values.
		const file = path.join(root, "c", "0");
		const shard = fs.readFileSync(file);
		const index = new DataView(shard.buffer, shard.byteOffset + shard.byteLength - 32, 32);
		index.setBigUint64(16, index.getBigUint64(0, true), true);
		index.setBigUint64(24, index.getBigUint64(8, true), true);
		fs.writeFileSync(file, shard);
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const pool = new BufferPool();
		const source = createChunkSource(counting(root, pool, true).store, meta, "a.zarr", { bufferPool: pool });
		const [first, second] = await Promise.all([source.read([0]), source.read([1])]);
		expect(Array.from(first)).toEqual(Array.from(values.subarray(0, 10)));
		expect(Array.from(second)).toEqual(Array.from(values.subarray(0, 10)));
		// Decoded buffers aside (still the caller's), nothing came back: the shard's bytes were not the pool's.
		expect(pool.freeBytes).toBe(0);
	});
});

/** A DirectoryStore that records each ranged read as `key offset+length` (`key -suffix` for a suffix). */
function recording(root: string): { store: AsyncReadable; ranges: string[] } {
	const inner = new DirectoryStore(root);
	const ranges: string[] = [];
	const store: AsyncReadable = {
		get: (key: AbsolutePath, options?: GetOptions) => (ranges.push(`${key} whole`), inner.get(key, options)),
		getRange: (key: AbsolutePath, range: RangeQuery, options?: GetOptions) => {
			ranges.push("suffixLength" in range ? `${key} -${range.suffixLength}` : `${key} ${range.offset}+${range.length}`);
			return inner.getRange(key, range, options);
		},
	};
	return { store, ranges };
}

describe("a few inner chunks of a sharded array", () => {
	it("read only the inner chunks of the pass, adjacent ones at once, one alone once: not the whole shard", async () => {
		// 40 x 40 in shards of 20 x 20, inner chunks of 5 x 5: 4 x 4 inner chunks a shard, written in C order.
		const root = path.join(tempDir("dt64-shard-box-"), "a.zarr");
		const values = BigInt64Array.from({ length: 1600 }, (_, i) => BigInt(1_700_000_000 + i));
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [5, 5], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape: [40, 40], chunks: [20, 20], dataType: seconds, values, codecs });
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const { store, ranges } = recording(root);
		const source = createChunkSource(store, meta, "a.zarr");
		const expected = (row: number, column: number) => Array.from({ length: 25 }, (_, k) => BigInt(1_700_000_000 + (5 * row + Math.floor(k / 5)) * 40 + 5 * column + (k % 5)));
		// Where shard c/1/0's and c/1/1's inner chunks lie, from their index (16 entries of offset, length; crc32c).
		const entries = (key: string) => {
			const shard = fs.readFileSync(path.join(root, key));
			const index = new DataView(shard.buffer, shard.byteOffset + shard.byteLength - 260, 256);
			return Array.from({ length: 16 }, (_, k) => ({ offset: Number(index.getBigUint64(16 * k, true)), length: Number(index.getBigUint64(16 * k + 8, true)) }));
		};
		const run = (key: string, first: number, last: number) => {
			const [a, b] = [entries(key)[first], entries(key)[last]];
			return `/${key} ${a.offset}+${b.offset + b.length - a.offset}`;
		};
		// A pass over row of chunks 5 (inner row 1 of shards c/1/*): the 4 inner chunks of that row in each shard, one read each.
		const row = { start: [5, 0], end: [6, 8] };
		const chunks = await Promise.all(Array.from({ length: 8 }, (_, column) => source.read([5, column], undefined, row)));
		chunks.forEach((chunk, column) => expect(Array.from(chunk), `column ${column}`).toEqual(expected(5, column)));
		// (The two shards' reads may interleave either way: compared as a set, each shard's index read before its run.)
		expect([...ranges].sort()).toEqual(["/c/1/0 -260", "/c/1/1 -260", run("c/1/0", 4, 7), run("c/1/1", 4, 7)].sort());
		for (const key of ["c/1/0", "c/1/1"]) expect(ranges.indexOf(`/${key} -260`)).toBeLessThan(ranges.indexOf(run(key, 4, 7)));
		// One inner chunk alone (a probe): its own bytes, kept: asked for again, not read again.
		ranges.length = 0;
		for (let twice = 0; twice < 2; twice++) expect(Array.from(await source.read([6, 2], undefined, { start: [6, 2], end: [7, 3] }))).toEqual(expected(6, 2));
		expect(ranges).toEqual([run("c/1/0", 10, 10)]);
		// Through a transposed view, the pass is the source's own box: inner row 3 of shard c/1/1, one read.
		ranges.length = 0;
		const transposed = transposedSource(source, [1, 0]);
		const columns = await Promise.all(Array.from({ length: 4 }, (_, k) => transposed.read([4 + k, 7], undefined, { start: [4, 7], end: [8, 8] })));
		for (const chunk of columns) expect(chunk.length).toBe(25);
		expect(ranges).toEqual([run("c/1/1", 12, 15)]);
		// A whole read: the shard's index, then all of its inner chunks in one read, as before.
		ranges.length = 0;
		await Promise.all(Array.from({ length: 16 }, (_, k) => source.read([Math.floor(k / 4), k % 4])));
		expect(ranges).toEqual(["/c/0/0 -260", `/c/0/0 0+${fs.statSync(path.join(root, "c", "0", "0")).size - 260}`]);
	});

	it("read a box of inner chunks written in Morton order as its runs, each once", async () => {
		// 20 x 40 in two shards of 20 x 20 across, 4 x 4 inner chunks of 5 x 5 each, in Morton order.
		const root = path.join(tempDir("dt64-shard-morton-"), "a.zarr");
		const values = BigInt64Array.from({ length: 800 }, (_, i) => BigInt(1_700_000_000 + i));
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [5, 5], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape: [20, 40], chunks: [20, 20], dataType: seconds, values, codecs });
		for (const shard of ["0", "1"]) toMortonOrder(path.join(root, "c", "0", shard));
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const { store, ranges } = recording(root);
		const source = createChunkSource(store, meta, "a.zarr");
		// Rows of chunks 1 and 2: Morton positions 2-3, 6-9 and 12-13 of each shard, three runs that rows 1 and 2 share.
		const read: { coords: number[]; data: BigInt64Array }[] = [];
		for await (const chunk of readChunksInOrder(source, 6, new AbortController().signal, undefined, { start: 1, end: 3 })) read.push(chunk);
		for (const { coords, data } of read) {
			const expected = Array.from({ length: 25 }, (_, k) => BigInt(1_700_000_000 + (5 * coords[0] + Math.floor(k / 5)) * 40 + 5 * coords[1] + (k % 5)));
			expect(Array.from(data), JSON.stringify(coords)).toEqual(expected);
		}
		expect(read.map(({ coords }) => coords.join())).toEqual([1, 2].flatMap((row) => Array.from({ length: 8 }, (_, column) => `${row},${column}`)));
		const dataRanges = ranges.filter((range) => !range.endsWith(" -260"));
		expect(ranges.filter((range) => range.endsWith(" -260")).sort()).toEqual(["/c/0/0 -260", "/c/0/1 -260"]);
		expect(new Set(dataRanges).size).toBe(dataRanges.length);
		expect(dataRanges.length).toBe(6);
	});
});

/** Rewrites a shard of 4 x 4 inner chunks (index at the end, crc32c) with its inner chunks in Morton order, as zarr-python 3 writes N-d shards. */
function toMortonOrder(file: string): void {
	const shard = fs.readFileSync(file);
	const index = new DataView(shard.buffer, shard.byteOffset + shard.byteLength - 260, 256);
	const chunks = Array.from({ length: 16 }, (_, slot) => {
		const offset = Number(index.getBigUint64(16 * slot, true));
		return shard.subarray(offset, offset + Number(index.getBigUint64(16 * slot + 8, true)));
	});
	// The Morton code of (row, column): their bits interleaved, the row's above the column's.
	const morton = (slot: number) => [0, 1].reduce((code, bit) => code | (((slot >> (2 + bit)) & 1) << (2 * bit + 1)) | (((slot >> bit) & 1) << (2 * bit)), 0);
	const order = Array.from({ length: 16 }, (_, slot) => slot).sort((a, b) => morton(a) - morton(b));
	const entries = Buffer.alloc(256);
	let at = 0;
	for (const slot of order) {
		entries.writeBigUInt64LE(BigInt(at), 16 * slot);
		entries.writeBigUInt64LE(BigInt(chunks[slot].length), 16 * slot + 8);
		at += chunks[slot].length;
	}
	const checksum = Buffer.alloc(4);
	checksum.writeUInt32LE(crc32c(entries));
	fs.writeFileSync(file, Buffer.concat([...order.map((slot) => chunks[slot]), entries, checksum]));
}

describe("several ranges of a file in one go", () => {
	it("fill pieces across short reads and past the readv limit, each piece in order", async () => {
		const file = Uint8Array.from({ length: 5000 }, (_, i) => (i * 31 + 7) & 0xff);
		for (const most of [1, 3, 97, 5000]) {
			let calls = 0;
			// A handle whose readv gives at most `most` bytes a call, and takes at most 1024 buffers.
			const handle = {
				readv: async (buffers: Uint8Array[], position: number) => {
					calls++;
					expect(buffers.length).toBeLessThanOrEqual(1024);
					let at = position;
					let left = most;
					for (const buffer of buffers) {
						const n = Math.min(buffer.byteLength, left, file.length - at);
						buffer.set(file.subarray(at, at + n));
						at += n;
						left -= n;
						if (left === 0 || at === file.length) break;
					}
					return { bytesRead: at - position, buffers };
				},
			};
			// 1500 pieces of 1 to 5 bytes from byte 3 (1 + 2 + ... cycles), then one past the end of the file.
			const pieces = Array.from({ length: 1500 }, (_, k) => new Uint8Array(1 + (k % 5)));
			const total = pieces.reduce((sum, piece) => sum + piece.byteLength, 0);
			const read = await readIntoPieces(handle as never, pieces, 3);
			expect(read).toBe(total);
			let at = 3;
			for (const piece of pieces) {
				expect(Array.from(piece)).toEqual(Array.from(file.subarray(at, at + piece.byteLength)));
				at += piece.byteLength;
			}
			expect(calls).toBeGreaterThanOrEqual(Math.max(2, Math.ceil(total / most)));
			const beyond = [new Uint8Array(10)];
			expect(await readIntoPieces(handle as never, beyond, file.length - 4)).toBe(4);
		}
	});

	it("read ranges with bytes between them into buffers of their own, and refuse a range outside the file", async () => {
		const dir = tempDir("dt64-ranges-");
		const bytes = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
		fs.writeFileSync(path.join(dir, "f"), bytes);
		const store = new DirectoryStore(dir);
		const ranges = [
			{ offset: 5, length: 10 },
			{ offset: 15, length: 0 },
			{ offset: 40, length: 100 },
			{ offset: 290, length: 10 },
		];
		const read = await store.getRanges("/f", ranges);
		expect(read?.map((piece) => Array.from(piece))).toEqual(ranges.map(({ offset, length }) => Array.from(bytes.subarray(offset, offset + length))));
		expect(new Set(read?.map((piece) => piece.buffer)).size).toBe(4);
		expect(await store.getRanges("/missing", ranges)).toBeUndefined();
		await expect(store.getRanges("/f", [{ offset: 295, length: 10 }])).rejects.toThrow(/byte range 295\.\.305 is outside the file \(300 bytes\)/);
		await expect(store.getRanges("/f", [{ offset: 50, length: 10 }, { offset: 55, length: 1 }])).rejects.toMatchObject({ code: "INTERNAL" });
	});
});

describe("rows of inner chunks across many shards", () => {
	/**
	 * Writes `shape` in shards of `shard` (inner chunks of `inner`, in C order, or Morton order for 4 x 4 2-D shards),
	 * reads it whole in C order of the inner chunks through readChunksInOrder, checks the values, and gives the
	 * bytes read of each shard's data (its index aside) and the count of those reads.
	 */
	async function readAcross(shape: number[], shard: number[], inner: number[], morton = false, limits = 6) {
		const root = path.join(tempDir("dt64-shard-across-"), "a.zarr");
		const size = shape.reduce((a, b) => a * b, 1);
		const values = BigInt64Array.from({ length: size }, (_, i) => BigInt(1_700_000_000 + i));
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: inner, codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } }];
		await writeArray(root, "", { shape, chunks: shard, dataType: seconds, values, codecs });
		const indexBytes = shard.reduce((n, s, axis) => n * (s / inner[axis]), 1) * 16 + 4;
		const shardFiles = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? shardFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
		if (morton) for (const file of shardFiles(path.join(root, "c"))) toMortonOrder(file);
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const { store, ranges } = recording(root);
		const source = createChunkSource(store, meta, "a.zarr");
		const strides = shape.map((_, axis) => shape.slice(axis + 1).reduce((a, b) => a * b, 1));
		const grid = source.gridShape;
		let count = 0;
		for await (const { coords, data } of readChunksInOrder(source, limits, new AbortController().signal)) {
			let k = 0;
			for (const offsets of cOrderOf(inner)) {
				const at = offsets.map((o, axis) => coords[axis] * inner[axis] + o);
				if (at.every((c, axis) => c < shape[axis])) expect(data[k], `${coords} ${offsets}`).toBe(BigInt(1_700_000_000 + at.reduce((sum, c, axis) => sum + c * strides[axis], 0)));
				k++;
			}
			count++;
		}
		expect(count).toBe(grid.reduce((a, b) => a * b, 1));
		const data = ranges.filter((range) => !range.endsWith(` -${indexBytes}`));
		expect(ranges.length - data.length).toBe(shardFiles(path.join(root, "c")).length);
		const bytes = new Map<string, number>();
		for (const range of data) {
			const [key, span] = range.split(" ");
			bytes.set(key, (bytes.get(key) ?? 0) + Number(span.split("+")[1]));
		}
		const stored = new Map(shardFiles(path.join(root, "c")).map((file) => [`/${path.relative(root, file).split(path.sep).join("/")}`, fs.statSync(file).size - indexBytes]));
		return { bytes: Object.fromEntries(bytes), stored: Object.fromEntries(stored), reads: data.length };
	}

	function* cOrderOf(extent: readonly number[]): Generator<number[]> {
		const total = extent.reduce((a, b) => a * b, 1);
		for (let flat = 0; flat < total; flat++) {
			let rest = flat;
			const coords = new Array<number>(extent.length);
			for (let axis = extent.length - 1; axis >= 0; axis--) {
				coords[axis] = rest % extent[axis];
				rest = Math.floor(rest / extent[axis]);
			}
			yield coords;
		}
	}

	for (const across of [2, 3, 4, 7]) {
		it(`read each shard's bytes once, ${across} shards of 2 x 2 inner chunks across a row`, async () => {
			const { bytes, stored, reads } = await readAcross([20, 10 * across], [10, 10], [5, 5]);
			expect(bytes).toEqual(stored);
			expect(reads).toBeLessThanOrEqual(2 * 2 * across);
		});
	}

	it("read each shard's bytes once, 6 shards of 4 x 4 inner chunks in Morton order across a row", async () => {
		const { bytes, stored } = await readAcross([40, 120], [20, 20], [5, 5], true);
		expect(bytes).toEqual(stored);
	});

	for (const [shape, shard] of [[[8, 20, 20], [4, 4, 4]], [[8, 8, 24], [4, 4, 4]], [[8, 12, 12], [4, 4, 4]]]) {
		it(`read each shard's bytes once, 3-D ${shape.join(" x ")} in shards of ${shard.join(" x ")}`, async () => {
			const { bytes, stored } = await readAcross(shape, shard, [2, 2, 2]);
			expect(bytes).toEqual(stored);
		});
	}
});

describe("an inner chunk read on its own (a range search's probe)", () => {
	it("is kept for its second read where a read is a request (the default), read again from a folder (keepsReadsAlone false)", async () => {
		const root = path.join(tempDir("dt64-shard-alone-"), "a.zarr");
		const values = BigInt64Array.from({ length: 8_000 }, (_, i) => BigInt(1_700_000_000 + i));
		await writeArray(root, "", { shape: [values.length], chunks: [4_000], values, dataType: seconds, codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [1_000], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } }] });
		const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
		const readsOfInnerChunk5 = async (keepsReadsAlone: boolean | undefined) => {
			const { store, reads } = counting(root);
			const source = createChunkSource(store, meta, "a.zarr", keepsReadsAlone === undefined ? {} : { keepsReadsAlone });
			// Twice alone (a probe's pass of one block), as the search and then the export's read of it do.
			for (let k = 0; k < 2; k++) expect(Array.from(await source.read([5], undefined, { start: [5], end: [6] }))).toEqual(Array.from(values.subarray(5_000, 6_000)));
			// The shard's index once, the inner chunk's bytes once or twice.
			return (reads.get("/c/1") ?? 0) - 1;
		};
		expect(await readsOfInnerChunk5(undefined)).toBe(1);
		expect(await readsOfInnerChunk5(true)).toBe(1);
		expect(await readsOfInnerChunk5(false)).toBe(2);
	});

	it("of a folder store is read again, not held: an array opened from a folder keeps none", async () => {
		const root = path.join(tempDir("dt64-shard-alone-folder-"), "a.zarr");
		const values = BigInt64Array.from({ length: 8_000 }, (_, i) => BigInt(1_700_000_000 + i));
		await writeArray(root, "", { shape: [values.length], chunks: [4_000], values, dataType: seconds, codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [1_000], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } }] });
		const ranges = vi.spyOn(DirectoryStore.prototype, "getRange");
		try {
			const array = await openTimeArray(root);
			ranges.mockClear();
			for (let k = 0; k < 2; k++) await array.chunks.read([5], undefined, { start: [5], end: [6] });
			// The shard's index, then inner chunk 5 twice.
			expect(ranges.mock.calls.map(([key]) => key)).toEqual(["/c/1", "/c/1", "/c/1"]);
		} finally {
			ranges.mockRestore();
		}
	});
});
