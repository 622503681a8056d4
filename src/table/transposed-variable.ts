/**
 * A variable whose dimensions are the table's in another order (`mask(lon, lat)` beside `t2m(time, lat, lon)`),
 * read as if transposed to the table's order, as xarray's `to_dataframe` transposes it. Its chunk source is seen
 * through a view whose chunk grid is permuted and whose chunks are reordered into C order of the permuted chunk
 * shape as they are read: bands, broadcasting, time selection and chunk order then meet a variable in table order,
 * and memory stays one reordered copy per chunk in flight (never the whole variable).
 */
import type { TableColumn } from "../open-table.js";
import type { ChunkSource } from "../zarr/chunk-source.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import { cStrides, toCOrder } from "../zarr/grid.js";

/** `order[i]` is the source axis that becomes axis i. */
function permute<T>(values: readonly T[], order: readonly number[]): T[] {
	return order.map((axis) => values[axis]);
}

/** The chunks of `source` with its axes in `order`: chunk coordinates and values both permuted. */
export function transposedSource<V extends ChunkValues>(source: ChunkSource<V>, order: readonly number[]): ChunkSource<V> {
	const chunkShape = permute(source.chunkShape, order);
	// Where each value of the permuted chunk lies in the stored one: the source's C-order strides, permuted.
	const strides = permute(cStrides(source.chunkShape), order);
	const sourceCoords = (coords: readonly number[]) => {
		const own = new Array<number>(order.length);
		order.forEach((axis, i) => (own[axis] = coords[i]));
		return own;
	};
	return {
		chunkShape,
		gridShape: permute(source.gridShape, order),
		...(source.chunksPerRequest === undefined ? {} : { chunksPerRequest: permute(source.chunksPerRequest, order) }),
		read: async (coords, signal, within) =>
			toCOrder(await source.read(sourceCoords(coords), signal, within && { start: sourceCoords(within.start), end: sourceCoords(within.end) }), chunkShape, strides),
		describe: (coords) => source.describe(sourceCoords(coords)),
	};
}

/**
 * The column of a variable whose axes fall on the table axes `axes`: as it is when they increase, else read
 * through a transposed view (its shape, chunk shape and dimension names in table order, so that its axes increase).
 */
export function inTableOrder(column: Omit<TableColumn, "axes">, axes: readonly number[]): TableColumn {
	if (axes.every((axis, k) => k === 0 || axes[k - 1] < axis)) return { ...column, axes } as TableColumn;
	const order = axes.map((_, k) => k).sort((a, b) => axes[a] - axes[b]);
	const { metadata } = column;
	const transposed = {
		...metadata,
		shape: permute(metadata.shape, order),
		chunkShape: permute(metadata.chunkShape, order),
		...(metadata.dimensionNames === undefined ? {} : { dimensionNames: permute(metadata.dimensionNames, order) }),
	};
	const chunks = transposedSource(column.chunks as ChunkSource<ChunkValues>, order);
	return { ...column, metadata: transposed, chunks, axes: permute(axes, order) } as TableColumn;
}
