/**
 * A table whose one row along the first dimension holds more than a band may (2 x 12000 x 12000: 144M values, over
 * the 2^27 of MAX_CHUNK_VALUES) with columns over the other dimensions (index columns lat, lon): C order refuses it
 * as a row too large to assemble, naming chunk order; chunk order streams it, each such column cut to each box of
 * chunks (trial 28, finding 01: chunk order was refused too, by the C-order bound, a dead end). Sources are made
 * lazily: nothing of the 288M values is held but the boxes read.
 */
import { describe, expect, it } from "vitest";
import { Dt64ExportError } from "../src/errors.js";
import { TableReader, type TableBand } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import type { ChunkValues } from "../src/zarr/chunk-values.js";

const SHAPE = [2, 12_000, 12_000];

/** The variable: value (row * 12000 + lat) * 12000 + lon, as float64, in chunks of [1, 1000, 1000]. */
function variable(): ChunkSource<ChunkValues> {
	const chunk = [1, 1000, 1000];
	return {
		chunkShape: chunk,
		gridShape: [2, 12, 12],
		describe: (coords: readonly number[]) => `t2m/c/${coords.join("/")}`,
		read: async (coords: readonly number[]) =>
			Float64Array.from({ length: 1_000_000 }, (_, i) => (coords[0] * SHAPE[1] + coords[1] * 1000 + Math.floor(i / 1000)) * SHAPE[2] + coords[2] * 1000 + (i % 1000)),
	};
}

/** A coordinate of 12000 values, value = position + offset, in one chunk. */
function coordinate(offset: number): ChunkSource<ChunkValues> {
	return { chunkShape: [12_000], gridShape: [1], describe: () => "c/0", read: async () => Float64Array.from({ length: 12_000 }, (_, i) => i + offset) };
}

function columns() {
	return [variable(), { source: coordinate(0.5), shape: [12_000], axes: [1] }, { source: coordinate(0.25), shape: [12_000], axes: [2] }];
}

describe("a table wider than a band along its first dimension", () => {
	it("C order refuses it as a row too large to assemble (BAND_TOO_LARGE, whose advice is chunk order)", () => {
		let error: unknown;
		try {
			// The index columns come first, as an export with index columns orders them.
			new TableReader([...columns().slice(1), variable()], SHAPE, { order: "c", concurrency: 2 });
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(Dt64ExportError);
		expect(error).toMatchObject({ code: "BAND_TOO_LARGE", value: 144_000_000 });
		expect((error as Error).message).toBe("table shape [2,12000,12000]: one row along its first dimension holds 144000000 values, too many to repeat a column along it (at most 134217728, 1 GiB of int64)");
	});

	it("chunk order streams it box by box, the columns over the other dimensions cut to each box", async () => {
		const reader = new TableReader(columns(), SHAPE, { order: "chunk", concurrency: 2 });
		const boxes: TableBand[] = [];
		for await (const band of reader as AsyncIterable<TableBand>) {
			boxes.push(band);
			if (boxes.length === 2) break;
		}
		reader.destroy();
		const [first, second] = boxes;
		if (first.region.kind !== "box" || second.region.kind !== "box") throw new Error("chunk order gives boxes");
		expect(first.region.origin).toEqual([0, 0, 0]);
		expect(second.region.origin).toEqual([0, 0, 1000]);
		expect(first.region.extent).toEqual([1, 1000, 1000]);
		const values = first.columns[0] as Float64Array;
		expect(values.length).toBe(1_000_000);
		expect([values[0], values[1], values[1000], values[999_999]]).toEqual([0, 1, 12_000, 999 * 12_000 + 999]);
		// Each coordinate's own values over the box, as the batcher repeats them along it.
		expect(Array.from((first.columns[1] as Float64Array).subarray(0, 3))).toEqual([0.5, 1.5, 2.5]);
		expect(Array.from((second.columns[2] as Float64Array).subarray(0, 2))).toEqual([1000.25, 1001.25]);
	});

	it("chunk order still bounds a column held whole by its own values", () => {
		const big = { chunkShape: [1000, 1000], gridShape: [12, 12], describe: () => "c", read: async () => new Float64Array(1_000_000) };
		expect(() => new TableReader([variable(), { source: big, shape: [12_000, 12_000], axes: [1, 2] }], SHAPE, { order: "chunk", concurrency: 2 })).toThrow(
			expect.objectContaining({ code: "TOO_LARGE", message: "a column of shape [12000,12000] holds 144000000 values, too many to hold whole beside the table's chunks (at most 134217728)" }),
		);
	});
});
