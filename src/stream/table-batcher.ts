import { Transform, type TransformCallback } from "node:stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct } from "apache-arrow";
import { broadcastStrides, broadcastValues } from "../table/broadcast.js";
import { arrowDataOf, type ColumnKind, type DecodedValues } from "../table/column-kinds.js";
import type { RowRegion } from "../table/row-index.js";
import type { Validity } from "../cf/masking.js";
import { cStrides, product } from "../zarr/grid.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import type { TableBand } from "./table-reader.js";

/**
 * One output column of a table: the positions along one axis (an index column without a coordinate), or the
 * values of reader column `band` over the table axes `axes` (its `shape`), decoded by `kind` and repeated along
 * the axes it lacks.
 */
export type TableColumnPlan =
	| { readonly kind: "positions"; readonly field: Field; readonly axis: number }
	| { readonly kind: "values"; readonly field: Field; readonly decoder: ColumnKind; readonly band: number; readonly name: string; readonly shape: readonly number[]; readonly axes: readonly number[] };

export interface TableBatcherOptions {
	/** In output order: index columns first, then the value columns. */
	columns: readonly TableColumnPlan[];
	/** The table's shape, to lay the columns out and to name N-d positions in messages. */
	shape: readonly number[];
}

/** The box of table positions a band covers (a flat region is a run of whole rows along the first axis). */
function boxOf(region: RowRegion, length: number, shape: readonly number[]): { origin: readonly number[]; extent: readonly number[] } {
	if (region.kind === "box") return region;
	const rowValues = product(shape.slice(1));
	const first = region.offset / rowValues;
	return { origin: shape.map((_, axis) => (axis === 0 ? first : 0)), extent: [length / rowValues, ...shape.slice(1)] };
}

function bytesOfBits(validity: Validity, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	for (let i = 0; i < length; i++) bytes[i] = (validity.bitmap[i >> 3] >> (i & 7)) & 1;
	return bytes;
}

function bitsOfBytes(bytes: Uint8Array): Validity {
	const bitmap = new Uint8Array(Math.ceil(bytes.length / 8));
	let nullCount = 0;
	for (let i = 0; i < bytes.length; i++) {
		if (bytes[i] !== 0) bitmap[i >> 3] |= 1 << (i & 7);
		else nullCount++;
	}
	return { bitmap, nullCount };
}

/**
 * Turns table bands into Arrow RecordBatches: each column's own values are decoded by its kind (once for a
 * column the reader gives whole, such as a coordinate or a static field), then repeated over the band's rows.
 */
export class TableBatcher extends Transform {
	readonly schema: Schema;
	readonly #options: TableBatcherOptions;
	/** Per column, the last raw values decoded and their result: a column read whole is decoded once. */
	readonly #decoded: ({ raw: ChunkValues; decoded: DecodedValues } | undefined)[];
	#batches = 0;
	#rows = 0;

	constructor(options: TableBatcherOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.schema = new Schema(options.columns.map((column) => column.field));
		this.#decoded = options.columns.map(() => undefined);
	}

	#decode(k: number, plan: Extract<TableColumnPlan, { kind: "values" }>, raw: ChunkValues, ownOrigin: readonly number[], ownShape: readonly number[]): DecodedValues {
		const cached = this.#decoded[k];
		if (cached !== undefined && cached.raw === raw) return cached.decoded;
		const strides = cStrides(ownShape);
		const rows = this.#rows;
		const spans = plan.axes.length === this.#options.shape.length;
		const describe = (i: number) => {
			const position = `[${ownShape.map((length, axis) => ownOrigin[axis] + (Math.floor(i / strides[axis]) % length)).join(", ")}]`;
			// A column over every axis: its i-th value is the band's i-th row; another is named by its own position.
			if (!spans) return `position ${position} of column "${plan.field.name}" (array ${plan.name})`;
			return `row ${rows + i}${ownShape.length > 1 ? ` (position ${position})` : ""} of column "${plan.field.name}"`;
		};
		const decoded = plan.decoder.decode(raw, describe);
		this.#decoded[k] = { raw, decoded };
		return decoded;
	}

	#column(k: number, plan: TableColumnPlan, band: TableBand, origin: readonly number[], extent: readonly number[]): Data {
		const rank = extent.length;
		if (plan.kind === "positions") {
			const { axis } = plan;
			const positions = BigInt64Array.from({ length: extent[axis] }, (_, i) => BigInt(origin[axis] + i));
			return arrowDataOf(plan.field, { values: broadcastValues(positions, broadcastStrides([extent[axis]], [axis], rank), extent) });
		}
		const raw = band.columns[plan.band];
		// A column over the first axis holds the band's rows of it; any other axis it has, whole (or the chunk's box).
		const spans = plan.axes.length === rank;
		const ownShape = plan.axes.map((axis, j) => (spans || axis === 0 ? extent[axis] : plan.shape[j]));
		const ownOrigin = plan.axes.map((axis) => (spans || axis === 0 ? origin[axis] : 0));
		const decoded = this.#decode(k, plan, raw, ownOrigin, ownShape);
		if (spans) return arrowDataOf(plan.field, decoded);
		const strides = broadcastStrides(ownShape, plan.axes, rank);
		const values = broadcastValues(decoded.values, strides, extent);
		const validity = decoded.validity === undefined ? undefined : bitsOfBytes(broadcastValues(bytesOfBits(decoded.validity, decoded.values.length), strides, extent));
		return arrowDataOf(plan.field, { values, validity });
	}

	#batch(band: TableBand): RecordBatch {
		const { shape, columns } = this.#options;
		const { origin, extent } = boxOf(band.region, band.length, shape);
		const children = columns.map((plan, k) => this.#column(k, plan, band, origin, extent));
		return new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: band.length, nullCount: 0, children }));
	}

	override _transform(band: TableBand, _encoding: BufferEncoding, callback: TransformCallback): void {
		let batch: RecordBatch;
		try {
			batch = this.#batch(band);
		} catch (error) {
			callback(error as Error);
			return;
		}
		this.#batches++;
		this.#rows += band.length;
		callback(null, batch);
	}

	/** An empty table still gives one (empty) batch: a Parquet file takes its schema from the first batch. */
	override _flush(callback: TransformCallback): void {
		if (this.#batches > 0) {
			callback();
			return;
		}
		try {
			const children = this.schema.fields.map((field) => makeData({ type: field.type, length: 0, nullCount: 0 } as Parameters<typeof makeData>[0]));
			callback(null, new RecordBatch(this.schema, makeData({ type: new Struct(this.schema.fields), length: 0, nullCount: 0, children })));
		} catch (error) {
			callback(error as Error);
		}
	}
}
