/**
 * Runs of a batch's rows kept where the batch's values are: moved to the front of each column's bytes, the batch
 * then viewing that front. The time filter's alternative to a copy (CopiedRows) for a batch whose every column is a
 * region of a pool buffer marked as its own (BufferPool.markOwned, by the reader that knows it: no other batch views
 * it, nothing writes there any more): a two-sided range of 7.8M rows of 20M with a NaT or two in every batch copied
 * every batch, 37 MiB of copies in flight beside the shards.
 */
import { type Data, makeData, RecordBatch, Struct } from "apache-arrow";
import type { BufferPool } from "../memory/buffer-pool.js";
import { isFixedWidth, strideOf } from "./fixed-width.js";
import { Validity } from "./validity-bits.js";

/** 32-bit words of a run at most moved one by one; longer runs are moved by copyWithin. */
const SHORT_RUN_WORDS = 64;

/**
 * Rows `runs` ([from, to), in order, apart) of `batch` as a batch of their own, moved in place; undefined, nothing
 * changed, unless every column is of fixed-width values that are exactly a region marked owned in `pool` (the marks
 * are then taken). The bytes of the rows left behind are said dead to the pool, and so are the batch's validity
 * bitmaps: a column whose kept rows are all valid has none, another a new one of its kept rows.
 */
export function compactedInPlace(batch: RecordBatch, runs: readonly (readonly [number, number])[], pool: BufferPool): RecordBatch | undefined {
	const rows = batch.numRows;
	const columns = batch.data.children;
	const regions: Uint8Array[] = [];
	for (const column of columns) {
		const values = column.values as unknown;
		if (!isFixedWidth(column.type) || column.offset !== 0 || column.length !== rows || !ArrayBuffer.isView(values)) return undefined;
		const element = (values as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT;
		if (element === undefined || values.byteLength !== rows * element * strideOf(column.type)) return undefined;
		regions.push(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
	}
	if (rows === 0 || !pool.takeOwned(regions)) return undefined;
	const kept = runs.reduce((sum, [from, to]) => sum + (to - from), 0);
	const children = columns.map((column, c) => compactedColumn(column, regions[c], rows, runs, kept, pool));
	return new RecordBatch(batch.schema, makeData({ type: new Struct(batch.schema.fields), length: kept, nullCount: 0, children }));
}

function compactedColumn(column: Data, region: Uint8Array, rows: number, runs: readonly (readonly [number, number])[], kept: number, pool: BufferPool): Data {
	const width = region.byteLength / rows;
	if (width % 4 === 0) moveRuns(new Int32Array(region.buffer, region.byteOffset, region.byteLength / 4), width / 4, runs);
	else moveRuns(region, width, runs);
	if (kept < rows) pool.release(region.subarray(kept * width));
	const { nullBitmap, nullCount } = keptValidity(column, runs, kept);
	const before = column.nullBitmap;
	if (before !== undefined && before.byteLength > 0) pool.release(before);
	const values = column.values as unknown as { subarray(start: number, end: number): ArrayBufferView };
	return makeData({ type: column.type, length: kept, nullCount, nullBitmap, data: values.subarray(0, (kept * width) / (column.values as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT) } as never);
}

/** Moves rows `runs` of `unit` elements each of `elements` to its front, one after another (never forward: in place). */
function moveRuns(elements: Int32Array | Uint8Array, unit: number, runs: readonly (readonly [number, number])[]): void {
	let at = 0;
	for (const [from, to] of runs) {
		const start = from * unit;
		const end = to * unit;
		if (start !== at) {
			if (end - start > SHORT_RUN_WORDS) elements.copyWithin(at, start, end);
			else for (let i = start, j = at; i < end; i++, j++) elements[j] = elements[i];
		}
		at += end - start;
	}
}

/**
 * The validity of the kept rows of `column`, copied run by run as CopiedRows copies it (Validity): none when they are
 * all valid (the time column's: a missing time is in no range), else a new bitmap of them.
 */
function keptValidity(column: Data, runs: readonly (readonly [number, number])[], kept: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
	const validity = new Validity();
	validity.resize(Math.ceil(kept / 8) * 8);
	let at = 0;
	for (const [from, to] of runs) {
		validity.copy(column, from, to, at);
		at += to - from;
	}
	return { nullBitmap: validity.bitmap(kept), nullCount: validity.nullCount };
}
