/**
 * Sharded arrays on a local store: one read per shard for its inner chunks (and one for its index), never one
 * per inner chunk; inner chunks of one shard decoded at once; values exact.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AbsolutePath, AsyncReadable, RangeQuery } from "@zarrita/storage";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { DirectoryStore } from "../src/store/directory-store.js";
import { parseNodeJson, parseTimeArrayMetadata } from "../src/zarr/array-metadata.js";
import { createChunkSource } from "../src/zarr/chunk-source.js";
import { tempDir } from "./support/cli.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/** A DirectoryStore that counts its reads by key. */
function counting(root: string): { store: AsyncReadable; reads: Map<string, number> } {
	const inner = new DirectoryStore(root);
	const reads = new Map<string, number>();
	const count = (key: string) => reads.set(key, (reads.get(key) ?? 0) + 1);
	const store: AsyncReadable = {
		get: (key: AbsolutePath) => (count(key), inner.get(key)),
		getRange: (key: AbsolutePath, range: RangeQuery) => (count(key), inner.getRange(key, range)),
	};
	return { store, reads };
}

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
});
