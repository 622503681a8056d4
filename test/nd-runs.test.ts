/**
 * The N-d kernels that work by runs (index columns, chunk-into-band copies) against plain value-by-value
 * references, over random shapes, chunkings, regions and edge chunks. Seeded, so that every run checks the same
 * cases (a failure is reproducible), and each case is compared whole, with one assertion: an assertion per value
 * made a run's time depend on the shapes drawn, up to millions of assertions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rowIndexColumns, unravelIndex, type RowRegion } from "../src/table/row-index.js";
import { copyChunkIntoBand, cStrides, product } from "../src/zarr/grid.js";

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
