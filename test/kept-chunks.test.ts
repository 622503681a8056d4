/**
 * The chunks a range search reads, kept for the export, are bounded with what each costs beside its values: a time
 * column of 10^6 one-value inner chunks was kept whole within 8 MiB of values and held 500 MB (trial 28, finding
 * 05). Counted, not measured: how many chunks the bound lets be kept, by the reads a second pass makes.
 */
import { describe, expect, it } from "vitest";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import type { ChunkValues } from "../src/zarr/chunk-values.js";
import { KEPT_CHUNK_OVERHEAD_BYTES, keepingChunks } from "../src/zarr/kept-chunks.js";

/** A 1-D source of `count` chunks of one int64 each, counting its reads. */
function oneValueChunks(count: number): ChunkSource<ChunkValues> & { reads: number } {
	const source = {
		reads: 0,
		chunkShape: [1],
		gridShape: [count],
		describe: (coords: readonly number[]) => `c/${coords[0]}`,
		async read(coords: readonly number[]) {
			source.reads++;
			return BigInt64Array.of(BigInt(coords[0]));
		},
	};
	return source;
}

describe("chunks kept within a byte bound", () => {
	it("count each chunk's own cost: 10,000 one-value chunks are not all kept within 1 MiB", async () => {
		const count = 10_000;
		const maxBytes = 2 ** 20;
		const source = oneValueChunks(count);
		const kept = keepingChunks(source, maxBytes);
		for (let i = 0; i < count; i++) expect((await kept.read([i]))[0]).toBe(BigInt(i));
		kept.stopKeeping();
		source.reads = 0;
		for (let i = 0; i < count; i++) expect((await kept.read([i]))[0]).toBe(BigInt(i));
		const keptCount = count - source.reads;
		expect(keptCount).toBe(Math.floor(maxBytes / (KEPT_CHUNK_OVERHEAD_BYTES + 8)));
	});

	it("keep a few large chunks by their values", async () => {
		const source: ChunkSource<ChunkValues> & { reads: number } = {
			reads: 0,
			chunkShape: [1000],
			gridShape: [4],
			describe: (coords: readonly number[]) => `c/${coords[0]}`,
			async read() {
				source.reads++;
				return new BigInt64Array(1000);
			},
		};
		const kept = keepingChunks(source, 4 * (8000 + KEPT_CHUNK_OVERHEAD_BYTES));
		for (let i = 0; i < 4; i++) await kept.read([i]);
		for (let i = 0; i < 4; i++) await kept.read([i]);
		expect(source.reads).toBe(4);
	});

	it("once the search is over, forget at once those no read of the rows selected asks for, and each of the others at its one read", async () => {
		const source = oneValueChunks(100);
		const lastReads: { start: number; end: number }[] = [];
		const kept = keepingChunks({ ...source, read: source.read, lastReads: (chunkRows) => lastReads.push({ ...chunkRows }) }, 2 ** 20);
		for (const k of [0, 99, 40, 41, 60, 61]) await kept.read([k]);
		const each = KEPT_CHUNK_OVERHEAD_BYTES + 8;
		expect(kept.keptBytes).toBe(6 * each);
		// The rows of chunks 41 to 60: chunks 0, 99, 40 and 61 go now (a read past the rows selected is no export's).
		kept.stopKeeping({ start: 41, end: 61 });
		expect(kept.keptBytes).toBe(2 * each);
		// The source's own kept chunks are told the same chunk rows (a shard index's inner chunks, see KeptInnerChunks).
		expect(lastReads).toEqual([{ start: 41, end: 61 }]);
		const reads = source.reads;
		expect(Array.from((await kept.read([41])) as BigInt64Array)).toEqual([41n]);
		expect(source.reads).toBe(reads);
		expect(kept.keptBytes).toBe(each);
		// Read once: the second read of it is the source's.
		await kept.read([41]);
		expect(source.reads).toBe(reads + 1);
		// Nothing new is kept.
		await kept.read([50]);
		expect(kept.keptBytes).toBe(each);
	});

	it("forget all they keep once the array is read a shard at a time (the export's shard reads never ask for them)", async () => {
		const source = oneValueChunks(100);
		const opened: number[] = [];
		const shardBands = {
			innerPerShard: 10,
			innerValues: 1,
			describe: (shard: number) => `c/${shard}`,
			open: (shard: number) => (opened.push(shard), undefined as never),
			read: async (shard: number) => (opened.push(shard), new BigInt64Array(10)),
		};
		const kept = keepingChunks({ ...source, read: source.read, shardBands }, 2 ** 20);
		for (const k of [40, 41, 60, 61]) await kept.read([k]);
		kept.stopKeeping({ start: 41, end: 61 });
		expect(kept.keptBytes).toBe(2 * (KEPT_CHUNK_OVERHEAD_BYTES + 8));
		kept.shardBands!.open(4, 1, 10);
		expect(opened).toEqual([4]);
		expect(kept.keptBytes).toBe(0);
	});
});
