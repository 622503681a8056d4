/**
 * The table reader's memory bound, checked structurally instead of by timing or RSS: however far the consumer
 * lags, each column has read no more than the chunks of the rows handed out, its current band and its chunks in
 * flight.
 */
import { describe, expect, it } from "vitest";
import { TableReader, type TableBand } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import type { ChunkValues } from "../src/zarr/chunk-values.js";

/** A 1-D source whose chunk k holds k * chunk + i, counting the chunks read. */
function countingSource(length: number, chunk: number): ChunkSource<ChunkValues> & { reads: number } {
	const source = {
		reads: 0,
		chunkShape: [chunk],
		gridShape: [Math.ceil(length / chunk)],
		describe: (coords: readonly number[]) => `c/${coords[0]}`,
		async read(coords: readonly number[]) {
			source.reads++;
			return Float64Array.from({ length: chunk }, (_, i) => coords[0] * chunk + i);
		},
	};
	return source;
}

describe("TableReader", () => {
	it("aligns columns of different chunkings and reads ahead a bounded number of chunks per column", async () => {
		const length = 10_000;
		const concurrency = 3;
		const columns = [countingSource(length, 10), countingSource(length, 64), countingSource(length, 1000)];
		const reader = new TableReader(columns, [length], { concurrency });
		let rows = 0;
		for await (const band of reader as AsyncIterable<TableBand>) {
			for (const values of band.columns) expect(Array.from(values as Float64Array)).toEqual(Array.from({ length: band.length }, (_, i) => rows + i));
			rows += band.length;
			// Let any read-ahead run before measuring it.
			await new Promise((resolve) => setTimeout(resolve, 1));
			for (const column of columns) {
				const chunk = column.chunkShape[0];
				expect(column.reads).toBeLessThanOrEqual(Math.ceil(rows / chunk) + 1 + concurrency + 1);
			}
		}
		expect(rows).toBe(length);
	});
});
