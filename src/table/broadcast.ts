/**
 * Broadcasting a variable over the table's dimensions, numpy's rule on named axes: the values of a variable over
 * some of the table's axes, repeated along the others, in C order of the table. Runs are copied whole: the last
 * axis as one copy (or one fill when the variable lacks it), and each block along an axis the variable lacks
 * is written once and then copied (`copyWithin`), so repeating costs a memcpy, not an index computation per value.
 */
import { allocateLike, copyValues, type ChunkValues, type NumericValues } from "../zarr/chunk-values.js";
import { cStrides, product } from "../zarr/grid.js";

/**
 * The C-order strides of a variable of `shape` whose axes fall on the table axes `axes`, per table axis of a
 * table of `rank` axes: 0 where the variable lacks the axis.
 */
export function broadcastStrides(shape: readonly number[], axes: readonly number[], rank: number): number[] {
	const strides = new Array<number>(rank).fill(0);
	const own = cStrides(shape);
	axes.forEach((axis, k) => {
		// A length-1 axis is read at position 0 whatever the table position (it is the same value).
		if (shape[k] > 1) strides[axis] = own[k];
	});
	return strides;
}

function fillRun(values: ChunkValues, at: number, out: ChunkValues, start: number, length: number): void {
	if (Array.isArray(out)) {
		const value = (values as string[])[at];
		for (let i = start; i < start + length; i++) out[i] = value;
		return;
	}
	(out as { fill(value: number | bigint, start: number, end: number): unknown }).fill((values as NumericValues)[at], start, start + length);
}

function repeatBlock(out: ChunkValues, start: number, blockLength: number, times: number): void {
	if (Array.isArray(out)) {
		for (let k = 1; k < times; k++) for (let i = 0; i < blockLength; i++) out[start + k * blockLength + i] = out[start + i];
		return;
	}
	// Doubling: each copy repeats everything written so far, log2(times) calls.
	const typed = out as NumericValues;
	let written = blockLength;
	const total = blockLength * times;
	while (written < total) {
		const count = Math.min(written, total - written);
		typed.copyWithin(start + written, start, start + count);
		written += count;
	}
}

/**
 * `values` (C order over their own axes) laid out over `outShape`, with `strides[axis]` the step in `values`
 * along each table axis (0: repeated). `origin` is the position in `values` of the first output value.
 */
export function broadcastValues<V extends ChunkValues>(values: V, strides: readonly number[], outShape: readonly number[], origin = 0): V {
	const total = product(outShape);
	const rank = outShape.length;
	if (rank === 0) return allocateFilled(values, origin, 1);
	const out = allocateLike(values, total);
	if (total === 0) return out;
	const inner = outShape.map((_, axis) => product(outShape.slice(axis + 1)));
	const last = rank - 1;
	const write = (axis: number, from: number, at: number): void => {
		if (axis === last) {
			if (strides[last] === 0) fillRun(values, from, out, at, outShape[last]);
			else copyValues(values, from, from + outShape[last], out, at);
			return;
		}
		if (strides[axis] === 0) {
			write(axis + 1, from, at);
			repeatBlock(out, at, inner[axis], outShape[axis]);
			return;
		}
		for (let i = 0; i < outShape[axis]; i++) write(axis + 1, from + i * strides[axis], at + i * inner[axis]);
	};
	write(0, origin, 0);
	return out;
}

function allocateFilled<V extends ChunkValues>(values: V, at: number, length: number): V {
	const out = allocateLike(values, length);
	fillRun(values, at, out, 0, length);
	return out;
}
