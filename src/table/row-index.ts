/**
 * Where each exported row comes from in an N-d array: one int64 column per dimension (numpy's
 * `np.indices(shape).reshape(ndim, -1)` for rows in C order), for a run of rows in C order of the array or for
 * the rows of one chunk's box. Written on the 32-bit halves of each int64: no BigInt per value.
 */
import { cStrides } from "../zarr/grid.js";

const TWO_POW_32 = 4294967296;

/** The rows covered by one band: a flat C-order range of the array, or a box (one chunk clipped at the edge). */
export type RowRegion = { readonly kind: "flat"; readonly offset: number } | { readonly kind: "box"; readonly origin: readonly number[]; readonly extent: readonly number[] };

/** Coordinates of `length` rows, the first at `start`, counting in C order over a box of `extent` at `origin`. */
function indexColumnsOver(start: readonly number[], extent: readonly number[], origin: readonly number[], length: number): BigInt64Array[] {
	const rank = extent.length;
	const columns = Array.from({ length: rank }, () => new BigInt64Array(length));
	const words = columns.map((column) => new Int32Array(column.buffer));
	const local = [...start];
	for (let row = 0; row < length; row++) {
		for (let axis = 0; axis < rank; axis++) {
			const value = origin[axis] + local[axis];
			words[axis][2 * row] = value % TWO_POW_32;
			words[axis][2 * row + 1] = Math.floor(value / TWO_POW_32);
		}
		let axis = rank - 1;
		while (axis >= 0 && ++local[axis] === extent[axis]) local[axis--] = 0;
	}
	return columns;
}

/** The coordinates of a flat C-order index. */
export function unravelIndex(flat: number, shape: readonly number[]): number[] {
	return cStrides(shape).map((stride, axis) => Math.floor(flat / stride) % shape[axis]);
}

/** One int64 column per dimension for `length` rows of `region`, in the array of `shape`. */
export function rowIndexColumns(shape: readonly number[], region: RowRegion, length: number): BigInt64Array[] {
	if (region.kind === "flat") return indexColumnsOver(unravelIndex(region.offset, shape), shape, shape.map(() => 0), length);
	return indexColumnsOver(region.extent.map(() => 0), region.extent, region.origin, length);
}

/** The array coordinates of row `i` of a region. */
export function rowPosition(shape: readonly number[], region: RowRegion, i: number): number[] {
	if (region.kind === "flat") return unravelIndex(region.offset + i, shape);
	return unravelIndex(i, region.extent).map((local, axis) => region.origin[axis] + local);
}
