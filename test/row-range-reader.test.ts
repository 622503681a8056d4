import { describe, expect, it } from "vitest";
import { tableReaderWith, type TableBand } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { cStrides, product } from "../src/zarr/grid.js";

/** An array of `shape` whose value is its flat C-order position, read in chunks of `chunkShape`, recording reads. */
function positions(shape: number[], chunkShape: number[]): ChunkSource & { reads: string[] } {
	const reads: string[] = [];
	const strides = cStrides(shape);
	return {
		reads,
		chunkShape,
		gridShape: shape.map((n, axis) => Math.ceil(n / chunkShape[axis])),
		describe: (coords) => coords.join("."),
		async read(coords) {
			reads.push(coords.join("."));
			const values = new BigInt64Array(product(chunkShape));
			const inner = cStrides(chunkShape);
			for (let i = 0; i < values.length; i++) {
				let flat = 0;
				for (let axis = 0; axis < shape.length; axis++) flat += (coords[axis] * chunkShape[axis] + Math.floor(i / inner[axis]) % chunkShape[axis]) * strides[axis];
				values[i] = BigInt(flat);
			}
			return values;
		},
	};
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
	const items: T[] = [];
	for await (const item of stream) items.push(item);
	return items;
}

describe("readers limited to rows along the first axis", () => {
	for (const [shape, chunkShape] of [
		[[50], [7]],
		[[11, 3, 4], [3, 2, 3]],
	] as const) {
		it(`read only the chunks of the rows, and exactly those rows (shape ${JSON.stringify(shape)})`, async () => {
			const rowSize = product(shape.slice(1));
			for (const rows of [{ start: 0, end: shape[0] }, { start: 4, end: 9 }, { start: 3, end: 3 }, { start: 6, end: shape[0] }]) {
				const source = positions([...shape], [...chunkShape]);
				const reader = tableReaderWith([source], shape, { rows, concurrency: 2 });
				const bands = (await collect<TableBand>(reader)).flatMap((band) => [...(band.columns[0] as BigInt64Array)]);
				expect(bands).toEqual(Array.from({ length: (rows.end - rows.start) * rowSize }, (_, i) => BigInt(rows.start * rowSize + i)));
				expect(reader.totalRows).toBe(bands.length);
				const firstChunk = Math.floor(rows.start / chunkShape[0]);
				const lastChunk = rows.end === rows.start ? firstChunk - 1 : Math.ceil(rows.end / chunkShape[0]) - 1;
				expect(source.reads.every((key) => Number(key.split(".")[0]) >= firstChunk && Number(key.split(".")[0]) <= lastChunk)).toBe(true);
				for (const order of ["c", "chunk"] as const) {
					const table = tableReaderWith([positions([...shape], [...chunkShape]), positions([...shape], [...chunkShape])], shape, { rows, order });
					const tableBands = await collect<TableBand>(table);
					const flat = tableBands.flatMap((band) => [...(band.columns[1] as BigInt64Array)]).sort((a, b) => (a < b ? -1 : 1));
					expect(flat, order).toEqual(bands);
					expect(table.totalRows).toBe(bands.length);
				}
			}
		});
	}
});
