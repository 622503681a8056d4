/** Pure geometry of a regular chunk grid: counts, C-order coordinates, and the clipped extent of edge chunks. */
import { allocateLike, copyValues, type ChunkValues } from "./chunk-values.js";

export function product(values: readonly number[]): number {
	let result = 1;
	for (const value of values) result *= value;
	return result;
}

export function chunksPerAxis(shape: readonly number[], chunkShape: readonly number[]): number[] {
	return shape.map((size, axis) => Math.ceil(size / chunkShape[axis]));
}

/** All coordinates of a grid of the given extent, in C order (last axis fastest). */
export function* cOrderCoordinates(extent: readonly number[]): Generator<number[]> {
	if (extent.some((n) => n === 0)) return;
	const coords = extent.map(() => 0);
	for (;;) {
		yield [...coords];
		let axis = extent.length - 1;
		while (axis >= 0 && ++coords[axis] === extent[axis]) coords[axis--] = 0;
		if (axis < 0) return;
	}
}

export function cStrides(shape: readonly number[]): number[] {
	const strides = new Array<number>(shape.length);
	let stride = 1;
	for (let axis = shape.length - 1; axis >= 0; axis--) {
		strides[axis] = stride;
		stride *= shape[axis];
	}
	return strides;
}

/**
 * Copies the part of a C-order chunk that lies inside the array into a C-order band of rows.
 * The band holds full rows of the array along every axis but the first, starting at row `bandStart`.
 * Copies are flat runs: the last axis, merged with the axes before it while the chunk covers them whole in both
 * the chunk and the band (their values are then contiguous in both), one memcpy per run.
 */
export function copyChunkIntoBand<V extends ChunkValues>(
	chunk: V,
	chunkShape: readonly number[],
	chunkCoords: readonly number[],
	band: V,
	bandShape: readonly number[],
	arrayShape: readonly number[],
): void {
	const rank = chunkShape.length;
	const origin = chunkCoords.map((c, axis) => c * chunkShape[axis]);
	const extent = origin.map((start, axis) => Math.min(chunkShape[axis], arrayShape[axis] - start));
	const chunkStrides = cStrides(chunkShape);
	const bandStrides = cStrides(bandShape);
	// Axes [runAxis, rank) form one contiguous run in both the chunk and the band.
	let runAxis = rank - 1;
	let runLength = extent[rank - 1];
	while (runAxis > 0 && extent[runAxis] === chunkShape[runAxis] && extent[runAxis] === bandShape[runAxis]) {
		runAxis--;
		runLength *= extent[runAxis];
	}
	// The band's first axis starts at the chunk's first row; its other axes are the array's.
	let from = 0;
	let to = 0;
	for (let axis = 1; axis < rank; axis++) to += origin[axis] * bandStrides[axis];
	const index = new Array<number>(runAxis).fill(0);
	if (extent.some((n) => n === 0)) return;
	for (;;) {
		copyValues(chunk, from, from + runLength, band, to);
		let axis = runAxis - 1;
		while (axis >= 0 && ++index[axis] === extent[axis]) {
			index[axis] = 0;
			from -= (extent[axis] - 1) * chunkStrides[axis];
			to -= (extent[axis] - 1) * bandStrides[axis];
			axis--;
		}
		if (axis < 0) return;
		from += chunkStrides[axis];
		to += bandStrides[axis];
	}
}

/** The part of a chunk inside the array (its clipped extent), in C order of that extent; no copy when whole. */
export function clipChunk<V extends ChunkValues>(chunk: V, chunkShape: readonly number[], chunkCoords: readonly number[], arrayShape: readonly number[]): { values: V; extent: number[] } {
	const origin = chunkCoords.map((c, axis) => c * chunkShape[axis]);
	const extent = origin.map((start, axis) => Math.min(chunkShape[axis], arrayShape[axis] - start));
	if (extent.every((n, axis) => n === chunkShape[axis])) return { values: chunk, extent };
	const values = allocateLike(chunk, product(extent));
	// The clipped box is a band of the chunk seen as an array of shape `extent` starting at row 0.
	copyChunkIntoBand(chunk, chunkShape, chunkShape.map(() => 0), values, extent, extent);
	return { values, extent };
}

/** Reorders a strided chunk into C order, e.g. after a `transpose` codec. */
export function toCOrder<V extends ChunkValues>(data: V, shape: readonly number[], strides: readonly number[]): V {
	const wanted = cStrides(shape);
	if (strides.every((s, axis) => s === wanted[axis] || shape[axis] === 1)) return data;
	if (!(data instanceof BigInt64Array || data instanceof BigUint64Array)) return reorderValues(data, shape, strides);
	const out = allocateLike(data, product(shape));
	// Copy the two 32-bit words of each value: indexing the BigInt64Array would create a BigInt per value.
	const from = new Int32Array(data.buffer, data.byteOffset, data.length * 2);
	const to = new Int32Array((out as BigInt64Array).buffer);
	forEachStridedRun(shape, strides, (source, step, length, target) => {
		for (let i = 0; i < length; i++) {
			const at = 2 * (source + i * step);
			to[2 * (target + i)] = from[at];
			to[2 * (target + i) + 1] = from[at + 1];
		}
	});
	return out;
}

/** `toCOrder` for values whose element access creates no BigInt: numbers, and strings. */
function reorderValues<V extends ChunkValues>(data: V, shape: readonly number[], strides: readonly number[]): V {
	const out = allocateLike(data, product(shape));
	const from = data as ArrayLike<number | string>;
	const to = out as unknown as { [index: number]: number | string };
	forEachStridedRun(shape, strides, (source, step, length, target) => {
		for (let i = 0; i < length; i++) to[target + i] = from[source + i * step];
	});
	return out;
}

/**
 * Walks a strided array of `shape` in C order one run along the last axis at a time (not value by value, which
 * made a reorder cost an array allocation per value): `run(first source index, source step, length, first
 * target index)`, targets counting in C order from 0.
 */
function forEachStridedRun(shape: readonly number[], strides: readonly number[], run: (source: number, step: number, length: number, target: number) => void): void {
	const rank = shape.length;
	if (rank === 0) {
		run(0, 1, 1, 0);
		return;
	}
	if (shape.some((n) => n === 0)) return;
	const last = rank - 1;
	const index = new Array<number>(last).fill(0);
	let source = 0;
	let target = 0;
	for (;;) {
		run(source, strides[last], shape[last], target);
		target += shape[last];
		let axis = last - 1;
		while (axis >= 0 && ++index[axis] === shape[axis]) {
			index[axis] = 0;
			source -= (shape[axis] - 1) * strides[axis];
			axis--;
		}
		if (axis < 0) return;
		source += strides[axis];
	}
}
