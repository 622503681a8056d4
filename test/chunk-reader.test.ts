import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ChunkReader } from "../src/stream/chunk-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";

/** A 1-D source of `chunks` chunks of 4 values that records which chunks were read. */
function countingSource(chunks: number): ChunkSource & { reads: number[] } {
	const reads: number[] = [];
	return {
		reads,
		chunkShape: [4],
		gridShape: [chunks],
		describe: (coords) => `c/${coords[0]}`,
		async read(coords) {
			reads.push(coords[0]);
			return BigInt64Array.from({ length: 4 }, (_, i) => BigInt(coords[0] * 4 + i));
		},
	};
}

const settle = async () => {
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("ChunkReader", () => {
	for (const concurrency of [1, 2, 4]) {
		it(`behind an output that stopped, holds the chunk being written and ${concurrency} read ahead, no more (concurrency ${concurrency})`, async () => {
			const source = countingSource(50);
			const reader = new ChunkReader(source, [200], { concurrency });
			// An output that never finishes its first write: a disk that stalls.
			const stalled = new Writable({ objectMode: true, highWaterMark: 1, write: () => undefined });
			reader.pipe(stalled);
			await settle();
			// Each chunk held is a chunk of memory: nothing waits in the reader's own buffer.
			expect(source.reads.length).toBe(1 + concurrency);
			reader.destroy();
		});
	}

	it("reads every chunk once, in order, whatever finishes first", async () => {
		const source = countingSource(30);
		const slow: ChunkSource = {
			...source,
			async read(coords, signal) {
				await new Promise((resolve) => setTimeout(resolve, (coords[0] * 7) % 5));
				return source.read(coords, signal);
			},
		};
		const bands: bigint[] = [];
		for await (const band of new ChunkReader(slow, [120], { concurrency: 3 })) bands.push(...(band as { values: BigInt64Array }).values);
		expect(bands).toEqual(Array.from({ length: 120 }, (_, i) => BigInt(i)));
		expect([...source.reads].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
	});
});
