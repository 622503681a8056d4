/**
 * A variable over the table's dimensions in another order, read through its transposed view: for every
 * permutation of a 3-D array with edge chunks, the bands the table reader assembles equal numpy's
 * `transpose(order).ravel()`, computed here value by value.
 */
import { describe, expect, it } from "vitest";
import { readBands } from "../src/stream/chunk-bands.js";
import { transposedSource } from "../src/table/transposed-variable.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { cStrides, product } from "../src/zarr/grid.js";
import { unravelIndex } from "../src/table/row-index.js";

/** A source over `shape` in chunks of `chunkShape` whose value at position p is its flat C-order index. */
function indexSource(shape: number[], chunkShape: number[]): ChunkSource<Float64Array> {
	const strides = cStrides(shape);
	return {
		chunkShape,
		gridShape: shape.map((n, axis) => Math.ceil(n / chunkShape[axis])),
		describe: (coords) => coords.join("."),
		async read(coords) {
			// Past the array's edge a chunk holds -1, as a fill value would.
			return Float64Array.from({ length: product(chunkShape) }, (_, i) => {
				const position = unravelIndex(i, chunkShape).map((local, axis) => coords[axis] * chunkShape[axis] + local);
				return position.every((p, axis) => p < shape[axis]) ? position.reduce((flat, p, axis) => flat + p * strides[axis], 0) : -1;
			});
		},
	};
}

const PERMUTATIONS = [
	[0, 1, 2],
	[0, 2, 1],
	[1, 0, 2],
	[1, 2, 0],
	[2, 0, 1],
	[2, 1, 0],
];

describe("transposed variables", () => {
	it.each(PERMUTATIONS)("reads %i,%i,%i as numpy's transpose, edge chunks included", async (...order) => {
		const shape = [5, 4, 7];
		const source = indexSource(shape, [2, 3, 3]);
		const view = transposedSource(source, order);
		const viewShape = order.map((axis) => shape[axis]);
		expect(view.chunkShape).toEqual(order.map((axis) => [2, 3, 3][axis]));
		const read: number[] = [];
		for await (const band of readBands(view, viewShape, 2, new AbortController().signal)) read.push(...band.values);
		const strides = cStrides(shape);
		const expected = Array.from({ length: product(shape) }, (_, i) => unravelIndex(i, viewShape).reduce((flat, p, k) => flat + p * strides[order[k]], 0));
		expect(read).toEqual(expected);
		expect(view.describe([1, 0, 2])).toBe(order.reduce((own, axis, k) => ((own[axis] = [1, 0, 2][k]), own), [0, 0, 0]).join("."));
	});
});
