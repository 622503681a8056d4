/**
 * A row of chunks rearranged in place into C order (arrangeRowInCOrder), and the bands readBands copies from it: each
 * chunk comes back to the pool as soon as the bands have passed it, and the next row is read into the chunks come
 * back, so that a row of chunks and the next hold no more chunks at once than a row has.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BufferPool } from "../src/memory/buffer-pool.js";
import { readBands } from "../src/stream/chunk-bands.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { chunksPerAxis, cOrderCoordinates, cStrides, product } from "../src/zarr/grid.js";
import { arrangeRowInCOrder } from "../src/zarr/row-in-c-order.js";
import { unravelIndex } from "../src/table/row-index.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

/** Chunk `coords` of an array holding at each position its flat C-order index + 1 (0 past the edge), in `pool`'s buffers. */
function indexChunk(shape: readonly number[], chunkShape: readonly number[], coords: readonly number[], pool?: BufferPool): Float64Array {
	const strides = cStrides(shape);
	const size = product(chunkShape);
	const chunk = pool === undefined ? new Float64Array(size) : new Float64Array(pool.acquire(size * 8).buffer, 0, size);
	for (let i = 0; i < size; i++) {
		const position = unravelIndex(i, chunkShape).map((local, axis) => coords[axis] * chunkShape[axis] + local);
		chunk[i] = position.every((p, axis) => p < shape[axis]) ? 1 + position.reduce((flat, p, axis) => flat + p * strides[axis], 0) : 0;
	}
	return chunk;
}

/** A shape and a chunk shape that divides it along every axis but the first (and sometimes that one too). */
const dividedShapes = fc
	.array(fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 })), { minLength: 2, maxLength: 4 })
	.map((axes) => ({ chunkShape: axes.map(([chunk]) => chunk), shape: axes.map(([chunk, count]) => chunk * count) }));

describe("a row of chunks rearranged into C order", () => {
	it("holds the row's values in C order, chunk after chunk, for any shape the chunks divide", () => {
		fc.assert(
			fc.property(dividedShapes, fc.boolean(), ({ shape, chunkShape }, pooled) => {
				const grid = chunksPerAxis(shape, chunkShape);
				const coords = [...cOrderCoordinates([1, ...grid.slice(1)])];
				const chunks = coords.map((c) => indexChunk(shape, chunkShape, c));
				// Scratch from a pool that spoils what it hands out and takes back.
				expect(arrangeRowInCOrder(chunks, coords, chunkShape, shape, chunkShape[0], pooled ? new PoisoningPool() : undefined)).toBe(true);
				const rowValues = chunkShape[0] * product(shape.slice(1));
				expect(chunks.flatMap((chunk) => [...chunk])).toEqual(Array.from({ length: rowValues }, (_, i) => i + 1));
			}),
			{ numRuns: 300, seed: 7 },
		);
	});

	it("is left as it is when its chunks pass the array's edge, or the row is cut short", () => {
		const shape = [4, 5, 3];
		const chunkShape = [2, 2, 3];
		const coords = [...cOrderCoordinates([1, 3, 1])];
		const chunks = coords.map((c) => indexChunk(shape, chunkShape, c));
		const before = chunks.map((chunk) => chunk.slice());
		expect(arrangeRowInCOrder(chunks, coords, chunkShape, shape, 2)).toBe(false);
		expect(chunks).toEqual(before);
		// The last row of chunks of an array of 3 rows in chunks of 2: one row of the array.
		const lastCoords = [...cOrderCoordinates([1, 2, 1])].map((c) => [1, ...c.slice(1)]);
		const lastRow = lastCoords.map((c) => indexChunk([3, 4, 3], chunkShape, c));
		expect(arrangeRowInCOrder(lastRow, lastCoords, chunkShape, [3, 4, 3], 1)).toBe(false);
	});
});

/** A pool that counts the chunk buffers (of `chunkBytes`) out at once: acquired and not yet handed back whole. */
class CountingPool extends PoisoningPool {
	live = 0;
	mostLive = 0;
	handedBack = 0;

	constructor(readonly chunkBytes: number) {
		super();
	}

	override acquire(size: number, room?: number): Buffer {
		if (size === this.chunkBytes) this.mostLive = Math.max(this.mostLive, ++this.live);
		return super.acquire(size, room);
	}

	override release(view: Uint8Array): void {
		if (view.byteLength === this.chunkBytes) {
			this.live--;
			this.handedBack++;
		}
		super.release(view);
	}
}

describe("bands of rows rearranged in place", () => {
	it("hand each chunk back once passed, and read the next row into the chunks handed back", async () => {
		// Rows of three chunks of 4 x 2 x 4 values (256 bytes): chunk bytes no band or index column has.
		const shape = [12, 6, 4];
		const chunkShape = [4, 2, 4];
		const pool = new CountingPool(product(chunkShape) * 8);
		const source: ChunkSource<Float64Array> = {
			chunkShape,
			gridShape: chunksPerAxis(shape, chunkShape),
			describe: (coords) => coords.join("."),
			read: async (coords) => indexChunk(shape, chunkShape, coords, pool),
		};
		const rowSize = product(shape.slice(1));
		const got: number[] = [];
		const handedBackAtBand: number[] = [];
		for await (const band of readBands(source, shape, 2, new AbortController().signal, undefined, undefined, undefined, { bufferPool: pool, maxRows: 1 })) {
			got.push(...band.values);
			handedBackAtBand.push(pool.handedBack);
			// The consumer is slower than the reads: whatever may be read ahead is.
			await new Promise((resolve) => setTimeout(resolve, 1));
		}
		expect(got).toEqual(Array.from({ length: product(shape) }, (_, i) => i + 1));
		// Rows of 4 bands over 3 chunks of 4 rows: the first chunk holds the row's first 4/3 rows, passed by its second band.
		expect(handedBackAtBand.slice(0, 4)).toEqual([0, 1, 2, 3]);
		expect(pool.mostLive, "chunks out at once").toBe(3);
		expect(handedBackAtBand.length * rowSize).toBe(product(shape));
	});
});
