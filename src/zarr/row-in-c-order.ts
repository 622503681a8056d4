/**
 * A row of chunks (the chunks along the other axes at one position along the first) rearranged in place so that,
 * taken one after the other, the chunks' values are the row's values in C order of the array: the first chunk then
 * holds the row's first values, the next chunk the next, and so on. Its bands are then copied from one chunk after
 * another, and each chunk is done with once the bands have passed it, where before every chunk of the row was needed
 * until the row's last band (each band takes a slice of every chunk). The export hands each chunk back as the bands
 * pass it, and the next row's chunks are read into them (see readBands).
 */
import type { BufferPool } from "../memory/buffer-pool.js";
import type { ChunkValues, NumericValues } from "./chunk-values.js";
import { cStrides, product } from "./grid.js";

/**
 * Whether a row of chunks can be rearranged in place: typed arrays, each a whole chunk, none past the array's edge
 * (their values are then exactly the row's, no padding), in C order of the grid. Only such rows are rearranged.
 */
function fitsInPlace(chunks: readonly ChunkValues[], chunkShape: readonly number[], shape: readonly number[], rowsHere: number): boolean {
	if (chunks.length === 0 || rowsHere !== chunkShape[0]) return false;
	const chunkValues = product(chunkShape);
	if (chunks.some((chunk) => Array.isArray(chunk) || chunk.length !== chunkValues)) return false;
	if (shape.slice(1).some((length, k) => length % chunkShape[k + 1] !== 0)) return false;
	return chunks.length === product(shape.slice(1).map((length, k) => length / chunkShape[k + 1]));
}

/**
 * Rearranges `chunks`, the row of chunks at one position along the first axis in C order of the grid (`coords[k]`
 * the grid coordinates of `chunks[k]`), so that chunk k holds the row's values [k * chunk size, (k + 1) * chunk size)
 * in C order of the array of `shape`; `rowsHere` is how many rows of the array the row of chunks covers. Returns
 * false, leaving them as they are, when the row does not fit in place (see fitsInPlace).
 *
 * The values move by runs: the axes after the last one the chunks cut, with that axis' extent in one chunk, are one
 * contiguous run in both layouts. Each run is moved once, along the cycles of the permutation, through one run of
 * scratch memory, taken from `pool` when given (a run can be half a chunk: it is then the same buffer every row).
 */
export function arrangeRowInCOrder(
	chunks: readonly ChunkValues[],
	coords: readonly (readonly number[])[],
	chunkShape: readonly number[],
	shape: readonly number[],
	rowsHere: number,
	pool?: BufferPool,
): boolean {
	if (!fitsInPlace(chunks, chunkShape, shape, rowsHere)) return false;
	const rank = shape.length;
	let cutAxis = rank - 1;
	while (cutAxis > 0 && chunkShape[cutAxis] === shape[cutAxis]) cutAxis--;
	// One chunk spans the row: it is in C order already.
	if (cutAxis === 0) return true;
	const runLength = chunkShape[cutAxis] * product(shape.slice(cutAxis + 1));
	const runsPerChunk = product(chunkShape.slice(0, cutAxis));
	const rowStrides = cStrides([chunkShape[0], ...shape.slice(1)]);
	const localStrides = cStrides(chunkShape.slice(0, cutAxis));
	// sourceOf[t]: the run (chunk * runsPerChunk + run in the chunk) whose values belong at run t of the row.
	const sourceOf = new Int32Array(chunks.length * runsPerChunk);
	for (let k = 0; k < chunks.length; k++) {
		const origin = coords[k].map((c, axis) => (axis === 0 ? 0 : c * chunkShape[axis]));
		for (let run = 0; run < runsPerChunk; run++) {
			let flat = origin[cutAxis] * rowStrides[cutAxis];
			for (let axis = 0; axis < cutAxis; axis++) flat += (origin[axis] + (Math.floor(run / localStrides[axis]) % chunkShape[axis])) * rowStrides[axis];
			sourceOf[flat / runLength] = k * runsPerChunk + run;
		}
	}
	const runs = chunks as readonly NumericValues[];
	const at = (run: number) => (run % runsPerChunk) * runLength;
	const chunkOf = (run: number) => runs[Math.floor(run / runsPerChunk)];
	const Values = runs[0].constructor as new (buffer: ArrayBuffer, offset: number, length: number) => NumericValues;
	const scratchBytes = runLength * runs[0].BYTES_PER_ELEMENT;
	// Made at the first cycle: a row already in C order (chunks of one row along the axes before the cut) needs none.
	let scratch: NumericValues | undefined;
	const moved = new Uint8Array(sourceOf.length);
	for (let start = 0; start < sourceOf.length; start++) {
		if (moved[start] === 1 || sourceOf[start] === start) continue;
		scratch ??= new Values(pool === undefined ? new ArrayBuffer(scratchBytes) : (pool.acquire(scratchBytes).buffer as ArrayBuffer), 0, runLength);
		scratch.set(chunkOf(start).subarray(at(start), at(start) + runLength) as never);
		let target = start;
		for (;;) {
			moved[target] = 1;
			const source = sourceOf[target];
			if (source === start) {
				chunkOf(target).set(scratch as never, at(target));
				break;
			}
			chunkOf(target).set(chunkOf(source).subarray(at(source), at(source) + runLength) as never, at(target));
			target = source;
		}
	}
	if (scratch !== undefined) pool?.release(new Uint8Array(scratch.buffer, 0, scratch.byteLength));
	return true;
}
