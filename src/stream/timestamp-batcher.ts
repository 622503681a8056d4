import { Transform, type TransformCallback } from "node:stream";
import { RecordBatch, Schema, Struct, makeData, type Field } from "apache-arrow";
import { arrowTimeData, type TimeArrowType } from "../arrow/time-field.js";
import type { Datetime64Type } from "../dtype/datetime64.js";
import { convertWithPlan } from "../convert/to-arrow-timestamps.js";
import type { NormalizedConversionOptions } from "../convert/options.js";
import { planConversion, type ConversionPlan } from "../convert/plan.js";
import { cStrides } from "../zarr/grid.js";
import type { ValueBand } from "./chunk-reader.js";

export interface TimestampBatcherOptions {
	field: Field<TimeArrowType>;
	source: Datetime64Type;
	conversion: NormalizedConversionOptions;
	/** The array's shape, to name N-d positions in messages. */
	shape: readonly number[];
	/**
	 * Convert each band over its own values (no new buffer per batch). Only for bands nobody else reads, such as
	 * those of a ChunkReader, which decodes every chunk into memory of its own; off by default.
	 */
	convertInPlace?: boolean;
	/** Where validity bitmaps' memory comes from (a BufferPool's, when the output hands buffers back); default new. */
	allocateBitmap?: (bytes: number) => Uint8Array;
}

/** Turns bands of int64 counts into Arrow RecordBatches of one timestamp column, through the pure core. */
export class TimestampBatcher extends Transform {
	readonly schema: Schema;
	readonly #plan: ConversionPlan;
	readonly #options: TimestampBatcherOptions;
	readonly #strides: number[];

	constructor(options: TimestampBatcherOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.schema = new Schema([options.field]);
		this.#plan = planConversion(options.source, options.conversion.unit);
		this.#strides = cStrides(options.shape);
	}

	#position(flat: number): string {
		if (this.#options.shape.length <= 1) return `index ${flat}`;
		const coords = this.#strides.map((stride, axis) => Math.floor(flat / stride) % this.#options.shape[axis]);
		return `index ${flat} (position [${coords.join(", ")}])`;
	}

	override _transform(band: ValueBand, _encoding: BufferEncoding, callback: TransformCallback): void {
		let batch: RecordBatch;
		try {
			const converted = convertWithPlan(band.values, this.#plan, {
				...this.#options.conversion,
				describePosition: (i) => this.#position(band.offset + i),
				inPlace: this.#options.convertInPlace ?? false,
				allocateBitmap: this.#options.allocateBitmap,
			});
			const column = arrowTimeData(this.#options.field.type, converted);
			const struct = makeData({ type: new Struct(this.schema.fields), length: column.length, nullCount: 0, children: [column] });
			batch = new RecordBatch(this.schema, struct);
		} catch (error) {
			callback(error as Error);
			return;
		}
		callback(null, batch);
	}
}
