/**
 * The N-d kernels that work by runs (index columns, chunk-into-band copies, strided chunks into C order) against
 * plain value-by-value references, over random shapes, chunkings, regions, edge chunks and axis orders. Seeded, so
 * that every run checks the same cases (a failure is reproducible), and each case is compared whole, with one
 * assertion: an assertion per value made a run's time depend on the shapes drawn, up to millions of assertions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BandIndexColumns, rowIndexColumns, unravelIndex, type RowRegion } from "../src/table/row-index.js";
import { copyChunkIntoBand, cStrides, product, toCOrder } from "../src/zarr/grid.js";

const shapes = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 4 });

describe("index columns by runs", () => {
	it("equal np.indices row by row, for flat ranges and boxes", () => {
		fc.assert(
			fc.property(shapes, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), (shape, a, b, flat) => {
				const size = product(shape);
				let region: RowRegion;
				let length: number;
				if (flat) {
					const offset = Math.min(size - 1, Math.floor(a * size));
					length = Math.floor(b * (size - offset + 1));
					region = { kind: "flat", offset };
				} else {
					const extent = shape.map((n) => 1 + Math.floor(a * n) - (a === 1 ? 1 : 0));
					region = { kind: "box", origin: shape.map((n, axis) => 1000 * axis + Math.floor(b * n)), extent };
					length = product(extent);
				}
				const columns = rowIndexColumns(shape, region, length);
				const expected = shape.map(() => new BigInt64Array(length));
				for (let row = 0; row < length; row++) {
					const position = region.kind === "flat" ? unravelIndex(region.offset + row, shape) : unravelIndex(row, region.extent).map((local, axis) => region.origin[axis] + local);
					position.forEach((value, axis) => (expected[axis][row] = BigInt(value)));
				}
				expect(columns).toEqual(expected);
			}),
			{ numRuns: 300, seed: 14 },
		);
	});
});

describe("index columns kept from band to band", () => {
	/** The boxes of an export's bands: whole rows in C order, or each chunk's box cut into rows in chunk order. */
	function bandBoxes(shape: number[], chunkShape: number[], rowsPerBand: number, chunkOrder: boolean): { origin: number[]; extent: number[] }[] {
		const boxes: { origin: number[]; extent: number[] }[] = [];
		if (!chunkOrder) {
			for (let row = 0; row < shape[0]; row += rowsPerBand) boxes.push({ origin: shape.map((_, axis) => (axis === 0 ? row : 0)), extent: [Math.min(rowsPerBand, shape[0] - row), ...shape.slice(1)] });
			return boxes;
		}
		const grid = shape.map((n, axis) => Math.ceil(n / chunkShape[axis]));
		for (let flat = 0; flat < product(grid); flat++) {
			const coords = unravelIndex(flat, grid);
			const origin = coords.map((c, axis) => c * chunkShape[axis]);
			const extent = origin.map((o, axis) => Math.min(chunkShape[axis], shape[axis] - o));
			for (let row = 0; row < extent[0]; row += rowsPerBand) boxes.push({ origin: [origin[0] + row, ...origin.slice(1)], extent: [Math.min(rowsPerBand, extent[0] - row), ...extent.slice(1)] });
		}
		return boxes;
	}

	it("equal np.indices for every band, and a column given out is never written again", () => {
		fc.assert(
			fc.property(
				fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
				fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 4, maxLength: 4 }),
				fc.integer({ min: 1, max: 4 }),
				fc.boolean(),
				(shape, chunking, rowsPerBand, chunkOrder) => {
					const chunkShape = shape.map((_, axis) => chunking[axis]);
					let allocated = 0;
					const columns = new BandIndexColumns((length) => {
						allocated++;
						// Memory handed out dirty, as the pool's is.
						return new BigInt64Array(length).fill(-7n);
					});
					const given: { columns: BigInt64Array[]; copies: BigInt64Array[] }[] = [];
					const boxes = bandBoxes(shape, chunkShape, rowsPerBand, chunkOrder);
					for (const { origin, extent } of boxes) {
						const length = product(extent);
						const band = columns.of(origin, extent, length);
						expect(band).toEqual(rowIndexColumns(extent, { kind: "box", origin, extent }, length));
						given.push({ columns: band, copies: band.map((column) => column.slice()) });
					}
					// Every column given out still holds its values after all the bands after it.
					for (const { columns: band, copies } of given) expect(band).toEqual(copies);
					// In C order only the first axis' column is made per band; the others once.
					if (!chunkOrder) expect(allocated).toBe(boxes.length);
				},
			),
			{ numRuns: 300, seed: 1515 },
		);
	});

	it("makes a longer column when a later band with the same box is longer", () => {
		const columns = new BandIndexColumns();
		const short = columns.of([0, 0, 0], [1, 3, 4], 12);
		const long = columns.of([1, 0, 0], [3, 3, 4], 36);
		expect(long).toEqual(rowIndexColumns([3, 3, 4], { kind: "box", origin: [1, 0, 0], extent: [3, 3, 4] }, 36));
		expect(short).toEqual(rowIndexColumns([1, 3, 4], { kind: "box", origin: [0, 0, 0], extent: [1, 3, 4] }, 12));
		expect(columns.of([4, 0, 0], [1, 3, 4], 12)[2].buffer).toBe(long[2].buffer);
	});
});

describe("chunk into band by runs", () => {
	it("places every value of every (edge) chunk where its coordinates say", () => {
		fc.assert(
			fc.property(shapes, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 8, maxLength: 8 }), (arrayShape, r) => {
				const rank = arrayShape.length;
				const chunkShape = arrayShape.map((n, axis) => 1 + Math.floor(r[axis] * (n + 1)));
				const coords = arrayShape.map((n, axis) => Math.min(Math.ceil(n / chunkShape[axis]) - 1, Math.floor(r[axis + 4] * Math.ceil(n / chunkShape[axis]))));
				const bandShape = [chunkShape[0], ...arrayShape.slice(1)];
				const chunk = Float64Array.from({ length: product(chunkShape) }, (_, i) => i + 1);
				const band = new Float64Array(product(bandShape));
				copyChunkIntoBand(chunk, chunkShape, coords, band, bandShape, arrayShape);
				const expected = new Float64Array(band.length);
				const origin = coords.map((c, axis) => c * chunkShape[axis]);
				const extent = origin.map((o, axis) => Math.min(chunkShape[axis], arrayShape[axis] - o));
				const [chunkStrides, bandStrides] = [cStrides(chunkShape), cStrides(bandShape)];
				for (let k = 0; k < product(extent); k++) {
					const local = unravelIndex(k, extent);
					let from = 0;
					let to = 0;
					for (let axis = 0; axis < rank; axis++) {
						from += local[axis] * chunkStrides[axis];
						to += (axis === 0 ? local[axis] : origin[axis] + local[axis]) * bandStrides[axis];
					}
					expected[to] = chunk[from];
				}
				expect(Array.from(band)).toEqual(Array.from(expected));
			}),
			{ numRuns: 500, seed: 1414 },
		);
	});
});

describe("strided chunks into C order by rows", () => {
	it("puts the value at (i0, i1, …) of a chunk stored in any axis order at its C-order position, for int64, numbers and strings", () => {
		const orders = shapes.chain((shape) => fc.tuple(fc.constant(shape), fc.shuffledSubarray(shape.map((_, axis) => axis), { minLength: shape.length })));
		fc.assert(
			fc.property(orders, ([shape, order]) => {
				// Stored as the transpose codec stores it: C order of the permuted shape; strides say where (i0, i1, …) is.
				const storedStrides = cStrides(order.map((axis) => shape[axis]));
				const strides = new Array<number>(shape.length);
				order.forEach((axis, i) => (strides[axis] = storedStrides[i]));
				const size = product(shape);
				const int64 = BigInt64Array.from({ length: size }, (_, i) => BigInt(i) * 0x1_0000_0001n - 3n);
				const numbers = Float64Array.from({ length: size }, (_, i) => i / 4);
				const strings = Array.from({ length: size }, (_, i) => `v${i}`);
				const positions = Array.from({ length: size }, (_, row) => unravelIndex(row, shape).reduce((sum, i, axis) => sum + i * strides[axis], 0));
				expect([Array.from(toCOrder(int64, shape, strides)), Array.from(toCOrder(numbers, shape, strides)), toCOrder(strings, shape, strides)]).toEqual([
					positions.map((at) => int64[at]),
					positions.map((at) => numbers[at]),
					positions.map((at) => strings[at]),
				]);
			}),
			{ numRuns: 300, seed: 141414 },
		);
	});
});
