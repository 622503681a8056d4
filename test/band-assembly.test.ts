/**
 * N-d bands are copied from a row of chunks in cuts of at most `maxRows` rows, with the chunks handed back to the
 * buffer pool once copied into their last band. Over random (seeded) shapes, chunkings, cuts and row ranges the
 * bands must give the array value by value in C order, whatever the cut, and a chunk spoilt the moment it comes
 * back (PoisoningPool) must not show in any band.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readBands } from "../src/stream/chunk-bands.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { chunksPerAxis, cStrides, product } from "../src/zarr/grid.js";
import { unravelIndex } from "../src/table/row-index.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

/** A source whose chunk at `coords` holds, at each position, the flat C-order index of that position in the array + 1 (0 past the edge). */
function indexSource(shape: number[], chunkShape: number[], pool: PoisoningPool): ChunkSource<Float64Array> {
	const strides = cStrides(shape);
	return {
		chunkShape,
		gridShape: chunksPerAxis(shape, chunkShape),
		describe: (coords) => coords.join("."),
		async read(coords) {
			const size = product(chunkShape);
			const chunk = new Float64Array(pool.acquire(size * 8).buffer, 0, size);
			for (let i = 0; i < size; i++) {
				const position = unravelIndex(i, chunkShape).map((local, axis) => coords[axis] * chunkShape[axis] + local);
				chunk[i] = position.every((p, axis) => p < shape[axis]) ? 1 + position.reduce((flat, p, axis) => flat + p * strides[axis], 0) : 0;
			}
			return chunk;
		},
	};
}

describe("bands of rows from rows of chunks", () => {
	it("give the array in C order for any cut and row range, with chunks handed back once copied", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 4 }),
				fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 7, maxLength: 7 }),
				fc.integer({ min: 1, max: 9 }),
				fc.integer({ min: 1, max: 3 }),
				async (shape, r, maxRows, concurrency) => {
					const chunkShape = shape.map((n, axis) => 1 + Math.floor(r[axis] * n));
					const start = Math.floor(r[4] * shape[0]);
					const rows = r[6] < 0.3 ? undefined : { start, end: start + Math.floor(r[5] * (shape[0] - start + 1)) };
					const pool = new PoisoningPool();
					const rowSize = product(shape.slice(1));
					const got: number[] = [];
					let next = rows?.start ?? 0;
					for await (const band of readBands(indexSource(shape, chunkShape, pool), shape, concurrency, new AbortController().signal, undefined, undefined, rows, { bufferPool: pool, maxRows })) {
						expect(band.firstRow).toBe(next);
						expect(band.offset).toBe(next * rowSize);
						const bandRows = band.values.length / rowSize;
						// A 1-D band is a whole chunk (no copy); an N-d one is cut.
						if (shape.length > 1) expect(bandRows).toBeLessThanOrEqual(maxRows);
						next += bandRows;
						got.push(...band.values);
					}
					const [first, end] = rows === undefined ? [0, shape[0]] : [rows.start, rows.end];
					expect(got).toEqual(Array.from({ length: (end - first) * rowSize }, (_, i) => first * rowSize + i + 1));
					if (shape.length > 1 && end > first) expect(pool.freeBytes, "copied chunks handed back").toBeGreaterThan(0);
				},
			),
			{ numRuns: 200, seed: 15 },
		);
	});
});
