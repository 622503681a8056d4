import type { BufferPool } from "../memory/buffer-pool.js";
import { allocateLike, copyValues, type ChunkValues, type NumericValues } from "../zarr/chunk-values.js";
import type { TableBand } from "./table-reader.js";

/**
 * Rows of one batch gathered from small bands at most (64 Ki: 512 KiB of each int64 column). A band of a chunk of
 * ten values used to be a batch of its own: 100,000 chunks made an IPC file of 100,000 record batches, three times
 * the data (a message header and padded buffers each), and every stage paid its cost per batch 100,000 times. A band
 * of this many rows or more passes as it is, so the batches of large chunks are what they were.
 */
export const BATCH_ROWS = 1 << 16;

/** The bands being gathered into one: the first as it came, then, from the second on, copies into `columns`. */
interface Gathering {
	readonly first: TableBand;
	/** Along rows: buffers of `capacityRows` rows (from the second band on); others: the first band's values. */
	columns: ChunkValues[] | undefined;
	/** Rows along the table's first axis gathered so far. */
	rows: number;
	/** Table rows per row along the first axis (a band's rows over the other axes of its box). */
	readonly rowLength: number;
	/** Rows along the first axis the buffers hold. */
	readonly capacityRows: number;
}

/** The box of a band (bands of a TableReader are always boxes; a scalar table's has no axis). */
const boxOf = (band: TableBand) => (band.region.kind === "box" ? band.region : undefined);

/** Whether `next` continues `gathering` along the first axis, over the same box of the other axes, and fits. */
function continues(gathering: Gathering, next: TableBand): boolean {
	const box = boxOf(gathering.first);
	const nextBox = boxOf(next);
	if (box === undefined || nextBox === undefined || box.origin.length === 0 || nextBox.extent[0] === 0) return false;
	if (nextBox.origin[0] !== box.origin[0] + gathering.rows) return false;
	for (let axis = 1; axis < box.origin.length; axis++) {
		if (nextBox.origin[axis] !== box.origin[axis] || nextBox.extent[axis] !== box.extent[axis]) return false;
	}
	return gathering.rows + nextBox.extent[0] <= gathering.capacityRows;
}

/** The bytes under a typed array, for the pool; undefined for strings. */
const bytesOf = (values: ChunkValues): Uint8Array | undefined => (Array.isArray(values) ? undefined : new Uint8Array(values.buffer, values.byteOffset, values.byteLength));

/**
 * Gathers consecutive small bands of a TableReader into bands of up to `batchRows` rows (BATCH_ROWS, fewer for a
 * wide table: see BATCH_BYTES), so that a batch has a
 * sensible size whatever the chunking: chunks of ten values (an xarray append of one time step per chunk, a time
 * coordinate chunked with its data) give batches of 65,530 rows. Bands join when each continues the last along the
 * table's first axis over the same box of the other axes (1-D arrays, tables in C order, N-d chunk order when the
 * chunks span the other axes): the gathered band is then that same box, longer, its values of each column over the
 * first axis (`alongRows`) in C order of it still, those of the other columns (the same for every band) as they were.
 *
 * Memory stays flat: the first band is held as it is, and from the second on each band's values are copied into
 * buffers of `batchRows` rows taken from `pool` and its own are said dead there (its chunks come back for the next
 * reads); the gathered band's buffers go back once written, as a band's do, and are marked its own (markOwned). A band that does not join (a large one,
 * or one after a gap) ends the gathering: a lone band passes unchanged, neither copied nor said dead.
 */
export async function* joinSmallBands(bands: AsyncIterable<TableBand>, alongRows: readonly boolean[], pool?: BufferPool, batchRows = BATCH_ROWS): AsyncGenerator<TableBand> {
	let gathering: Gathering | undefined;
	for await (const band of bands) {
		if (gathering !== undefined && continues(gathering, band)) {
			append(gathering, band, alongRows, pool);
			continue;
		}
		if (gathering !== undefined) yield gathered(gathering, pool);
		gathering = startGathering(band, batchRows);
		if (gathering === undefined) yield band;
	}
	if (gathering !== undefined) yield gathered(gathering, pool);
}

/** A gathering of up to `batchRows` rows starting with `band`, or undefined when no other band could join it. */
function startGathering(band: TableBand, batchRows: number): Gathering | undefined {
	const box = boxOf(band);
	if (box === undefined || box.origin.length === 0 || box.extent[0] === 0 || band.length >= batchRows) return undefined;
	const rowLength = band.length / box.extent[0];
	const capacityRows = Math.floor(batchRows / rowLength);
	if (capacityRows < 2 * box.extent[0]) return undefined;
	return { first: band, columns: undefined, rows: box.extent[0], rowLength, capacityRows };
}

/** A buffer for `length` values like `like`: the pool's for typed arrays when there is one. */
function allocate(like: ChunkValues, length: number, pool: BufferPool | undefined): ChunkValues {
	if (pool === undefined || Array.isArray(like)) return allocateLike(like, length);
	const typed = like as NumericValues;
	const Ctor = typed.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => NumericValues;
	return new Ctor(pool.acquire(length * typed.BYTES_PER_ELEMENT).buffer as ArrayBuffer, 0, length);
}

/** Copies the values over the first axis of `band` after the `rows` rows gathered, and says its own dead. */
function copyIn(columns: ChunkValues[], band: TableBand, rows: number, rowsHere: number, alongRows: readonly boolean[], pool: BufferPool | undefined): void {
	for (let k = 0; k < columns.length; k++) {
		if (!alongRows[k]) continue;
		const values = band.columns[k];
		const perRow = values.length / rowsHere;
		copyValues(values, 0, values.length, columns[k], rows * perRow);
		const bytes = pool === undefined ? undefined : bytesOf(values);
		if (bytes !== undefined) pool!.release(bytes);
	}
}

function append(gathering: Gathering, band: TableBand, alongRows: readonly boolean[], pool: BufferPool | undefined): void {
	const rowsHere = boxOf(band)!.extent[0];
	if (gathering.columns === undefined) {
		const { first, rows, capacityRows } = gathering;
		const columns = first.columns.map((values, k) => (alongRows[k] ? allocate(values, (values.length / rows) * capacityRows, pool) : values));
		copyIn(columns, first, 0, rows, alongRows, pool);
		gathering.columns = columns;
	}
	copyIn(gathering.columns, band, gathering.rows, rowsHere, alongRows, pool);
	gathering.rows += rowsHere;
}

/** The band gathered: the first as it came when no other joined it, else the gathered rows of each column. */
function gathered(gathering: Gathering, pool: BufferPool | undefined): TableBand {
	const { first, columns, rows, rowLength } = gathering;
	if (columns === undefined) return first;
	const box = boxOf(first)!;
	const values = columns.map((column, k) => {
		if (column === first.columns[k]) return column;
		const used = (column.length / gathering.capacityRows) * rows;
		if (Array.isArray(column)) {
			column.length = used;
			return column;
		}
		const typed = column as NumericValues;
		const Ctor = typed.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => NumericValues;
		const view = new Ctor(typed.buffer, 0, used);
		// The buffer's use is what the batch holds: once that is written, all of it is dead and it comes back.
		pool?.shorten(new Uint8Array(typed.buffer, 0, view.byteLength));
		// Made here for this band, which alone views it: the batch made of it may rewrite it where it is (see markOwned).
		pool?.markOwned(view);
		return view;
	});
	return { columns: values, length: rows * rowLength, region: { kind: "box", origin: box.origin, extent: [rows, ...box.extent.slice(1)] } };
}
