/**
 * Where each exported row comes from in an N-d array: one int64 column per dimension (numpy's
 * `np.indices(shape).reshape(ndim, -1)` for rows in C order), for a run of rows in C order of the array or for
 * the rows of one chunk's box. Built by runs: one fill per run of equal coordinates, and the repeating pattern of
 * the last axes copied over, never value by value.
 */
import { cStrides } from "../zarr/grid.js";

/** The rows covered by one band: a flat C-order range of the array, or a box (one chunk clipped at the edge). */
export type RowRegion = { readonly kind: "flat"; readonly offset: number } | { readonly kind: "box"; readonly origin: readonly number[]; readonly extent: readonly number[] };

/** Below this many rows per value, an axis' column is built as one period of fills, then copied over: few fills. */
const TILE_BELOW = 64;

/**
 * Fills `column` with the coordinate along one axis of `length` rows counted in C order from flat position
 * `first`: the coordinate is `origin + floor(flat / inner) % count`, so it holds for runs of `inner` rows (one fill
 * each), and repeats every `count * inner` rows (for the last axes, one period is filled, then copied doubling).
 */
function fillAxisColumn(column: BigInt64Array, first: number, length: number, count: number, inner: number, origin: number): void {
	const period = count * inner;
	const filled = inner < TILE_BELOW ? Math.min(length, period) : length;
	let row = 0;
	while (row < filled) {
		const flat = first + row;
		const end = Math.min(filled, row + inner - (flat % inner));
		column.fill(BigInt(origin + (Math.floor(flat / inner) % count)), row, end);
		row = end;
	}
	for (let done = filled; done < length; done *= 2) column.copyWithin(done, 0, Math.min(done, length - done));
}

/** Where an index column's memory comes from: its content is undefined, every value is written. */
export type AllocateInt64 = (length: number) => BigInt64Array;

const newInt64: AllocateInt64 = (length) => new BigInt64Array(length);

/** The coordinate along `axis` of `length` rows, the first at flat position `first`, counting in C order over a box of `extent` at `origin`. */
function axisColumn(first: number, extent: readonly number[], origin: readonly number[], axis: number, length: number, allocate: AllocateInt64): BigInt64Array {
	const column = allocate(length);
	if (length > 0) fillAxisColumn(column, first, length, extent[axis], cStrides(extent)[axis], origin[axis]);
	return column;
}

/** Coordinates of `length` rows, the first at flat position `first`, counting in C order over a box of `extent` at `origin`. */
function indexColumnsOver(first: number, extent: readonly number[], origin: readonly number[], length: number, allocate: AllocateInt64): BigInt64Array[] {
	return extent.map((_, axis) => axisColumn(first, extent, origin, axis, length, allocate));
}

/** The coordinates of a flat C-order index. */
export function unravelIndex(flat: number, shape: readonly number[]): number[] {
	return cStrides(shape).map((stride, axis) => Math.floor(flat / stride) % shape[axis]);
}

/** One int64 column per dimension for `length` rows of `region`, in the array of `shape`. */
export function rowIndexColumns(shape: readonly number[], region: RowRegion, length: number, allocate: AllocateInt64 = newInt64): BigInt64Array[] {
	if (region.kind === "flat") return indexColumnsOver(region.offset, shape, shape.map(() => 0), length, allocate);
	return indexColumnsOver(0, region.extent, region.origin, length, allocate);
}

/**
 * The index columns of the bands of one table, band after band (each band a box counted from its corner). Along an
 * axis after the first, a band's coordinates depend only on the box along that axis and the axes after it, and a
 * shorter band's are the start of a longer one's: when those stay the same from band to band (every such axis in C
 * order, where a band is whole rows; in chunk order, the axes the chunks span whole), the column is made once and
 * every band's is a view of it, never written again. That is one column of memory for all the batches in the
 * pipeline, and one fill for the whole export. Along the first axis, and along an axis whose box changes (from the
 * first change on), each band's column is made anew from `allocate`.
 */
export class BandIndexColumns {
	/** Per axis: the column kept for the box along it and after it, or "changes" once that box has changed. */
	readonly #kept: ({ box: string; column: BigInt64Array } | "changes" | undefined)[] = [];

	constructor(readonly allocate: AllocateInt64 = newInt64) {}

	/** One int64 column per dimension for the `length` rows of the box of `extent` at `origin`. */
	of(origin: readonly number[], extent: readonly number[], length: number): BigInt64Array[] {
		return extent.map((_, axis) => this.#column(origin, extent, axis, length));
	}

	#column(origin: readonly number[], extent: readonly number[], axis: number, length: number): BigInt64Array {
		const kept = this.#kept[axis];
		if (axis === 0 || kept === "changes") return axisColumn(0, extent, origin, axis, length, this.allocate);
		const box = `${origin[axis]} ${extent[axis]} ${cStrides(extent)[axis]}`;
		if (kept !== undefined && kept.box !== box) {
			this.#kept[axis] = "changes";
			return axisColumn(0, extent, origin, axis, length, this.allocate);
		}
		if (kept !== undefined && kept.column.length >= length) return kept.column.subarray(0, length);
		// Its own memory, never the pool's: batches still in the pipeline hold views of it, and a longer band replaces it.
		const column = axisColumn(0, extent, origin, axis, length, newInt64);
		this.#kept[axis] = { box, column };
		return column;
	}
}
