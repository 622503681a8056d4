/**
 * Sharded arrays on a local store: one read per shard for its inner chunks (and one for its index), never one
 * per inner chunk; inner chunks of one shard decoded at once; values exact.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AbsolutePath, AsyncReadable, RangeQuery } from "@zarrita/storage";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BufferPool, capacityFor } from "../src/memory/buffer-pool.js";
import { DirectoryStore } from "../src/store/directory-store.js";
import type { GetOptions } from "../src/store/readable.js";
import { parseNodeJson, parseTimeArrayMetadata } from "../src/zarr/array-metadata.js";
import { createChunkSource } from "../src/zarr/chunk-source.js";
import { tempDir } from "./support/cli.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/** A DirectoryStore (reading into `pool`, if given) that counts its reads by key. */
function counting(root: string, pool?: BufferPool): { store: AsyncReadable; reads: Map<string, number> } {
	const inner = new DirectoryStore(root, pool);
	const reads = new Map<string, number>();
	const count = (key: string) => reads.set(key, (reads.get(key) ?? 0) + 1);
	const store: AsyncReadable = {
		get: (key: AbsolutePath, options?: GetOptions) => (count(key), inner.get(key, options)),
		getRange: (key: AbsolutePath, range: RangeQuery, options?: GetOptions) => (count(key), inner.getRange(key, range, options)),
	};
	return { store, reads };
}

const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };

describe("sharded arrays on a local store", () => {
	for (const location of ["end", "start"] as const) {
		it(`read each shard twice (index, inner chunks), whatever its inner chunk count (index at the ${location})`, async () => {
			const root = path.join(tempDir("dt64-shard-reads-"), "a.zarr");
			const values = BigInt64Array.from({ length: 400 }, (_, i) => BigInt(1_700_000_000 + 7 * i));
			const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [10], codecs: [LE, { name: "zstd", configuration: { level: 1, checksum: false } }], index_codecs: [LE, { name: "crc32c" }], index_location: location } }];
			await writeArray(root, "", { shape: [400], chunks: [100], dataType: seconds, values, codecs });
			const meta = parseTimeArrayMetadata(parseNodeJson(fs.readFileSync(path.join(root, "zarr.json"), "utf8"), "", "a.zarr"), "a.zarr");
			const { store, reads } = counting(root);
			const source = createChunkSource(store, meta, "a.zarr");
			expect(source.gridShape).toEqual([40]);
			const chunks = await Promise.all(Array.from({ length: 40 }, (_, c) => source.read([c])));
			expect(chunks.flatMap((chunk) => Array.from(chunk))).toEqual(Array.from(values));
			expect(Object.fromEntries(reads)).toEqual({ "/c/0": 2, "/c/1": 2, "/c/2": 2, "/c/3": 2 });
		});
	}

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
		const source = createChunkSource(counting(root, pool).store, meta, "a.zarr", { bufferPool: pool });
		const [first, second] = await Promise.all([source.read([0]), source.read([1])]);
		expect(Array.from(first)).toEqual(Array.from(values.subarray(0, 10)));
		expect(Array.from(second)).toEqual(Array.from(values.subarray(0, 10)));
		// Decoded buffers aside (still the caller's), nothing came back: the shard's bytes were not the pool's.
		expect(pool.freeBytes).toBe(0);
	});
});
