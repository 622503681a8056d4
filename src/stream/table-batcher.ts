import { Transform, type TransformCallback } from "node:stream";
import { type Data, type Field, makeData, RecordBatch, Schema, Struct, Type } from "apache-arrow";
import { plainArrowData } from "../arrow/column-types.js";
import { arrowTimeData, type TimeArrowType } from "../arrow/time-field.js";
import type { NormalizedConversionOptions } from "../convert/options.js";
import { planConversion, type ConversionPlan } from "../convert/plan.js";
import { convertWithPlan } from "../convert/to-arrow-timestamps.js";
import type { Datetime64Type } from "../dtype/datetime64.js";
import { rowIndexColumns, rowPosition } from "../table/row-index.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";
import type { CfTimeCoding } from "../cf/cf-time-coding.js";
import { decodeCfTimes } from "../cf/decode-cf-times.js";
import type { MissingValueMarkers } from "../cf/missing-value.js";
import type { TargetUnit } from "../dtype/units.js";
import type { TableBand } from "./table-reader.js";

/** No values of a companion column's type: its Arrow type's own array type, or no strings. */
function allocateEmpty(field: Field): ChunkValues {
	const ArrayType = (field.type as { ArrayType?: new (length: number) => ChunkValues }).ArrayType;
	return ArrayType === undefined || field.type.typeId === Type.Utf8 ? [] : new ArrayType(0);
}

/** How one value column of a table becomes Arrow data. */
export type TableColumnPlan =
	| { readonly kind: "time"; readonly field: Field<TimeArrowType>; readonly source: Datetime64Type; readonly conversion: NormalizedConversionOptions }
	| { readonly kind: "cf-time"; readonly field: Field<TimeArrowType>; readonly cf: CfTimeDecoding }
	| { readonly kind: "plain"; readonly field: Field };

/** How a CF time column's numbers are decoded: the coding, markers and the Arrow unit, resolved. */
export interface CfTimeDecoding {
	readonly coding: CfTimeCoding;
	readonly markers: MissingValueMarkers;
	readonly dataType: string;
	readonly conversion: Omit<NormalizedConversionOptions, "unit"> & { readonly unit: TargetUnit };
}

export interface TableBatcherOptions {
	/** One int64 field per dimension, written before the value columns; empty for no index. */
	indexFields: readonly Field[];
	columns: readonly TableColumnPlan[];
	/** The arrays' shape, for index columns and to name N-d positions in messages. */
	shape: readonly number[];
}

/**
 * Turns table bands into Arrow RecordBatches: index columns first, then each value column, time columns through
 * the exact conversion core (NaT to null), CF time columns through the exact CF decoding, the others as stored.
 */
export class TableBatcher extends Transform {
	readonly schema: Schema;
	readonly #options: TableBatcherOptions;
	readonly #plans: (ConversionPlan | undefined)[];
	#rows = 0;
	#batches = 0;

	constructor(options: TableBatcherOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		this.#options = options;
		this.schema = new Schema([...options.indexFields, ...options.columns.map((column) => column.field)]);
		this.#plans = options.columns.map((column) => (column.kind === "time" ? planConversion(column.source, column.conversion.unit) : undefined));
	}

	#describe(band: TableBand, i: number): string {
		const { shape } = this.#options;
		const row = `row ${this.#rows + i}`;
		return shape.length <= 1 ? row : `${row} (position [${rowPosition(shape, band.region, i).join(", ")}])`;
	}

	#batch(band: TableBand): RecordBatch {
		const { shape, indexFields, columns } = this.#options;
		const children: Data[] = indexFields.length === 0 ? [] : rowIndexColumns(shape, band.region, band.length).map((values, axis) => plainArrowData(indexFields[axis], values));
		columns.forEach((column, k) => {
			const values = band.columns[k];
			if (column.kind === "plain") {
				children.push(plainArrowData(column.field, values));
				return;
			}
			if (column.kind === "cf-time") {
				const { coding, markers, dataType, conversion } = column.cf;
				const decoded = decodeCfTimes(values as NumericValues, coding, markers, {
					...conversion,
					dataType,
					describePosition: (i) => `${this.#describe(band, i)} of column "${column.field.name}"`,
				});
				children.push(arrowTimeData(column.field.type, decoded));
				return;
			}
			const converted = convertWithPlan(values as BigInt64Array, this.#plans[k]!, {
				...column.conversion,
				describePosition: (i) => `${this.#describe(band, i)} of column "${column.field.name}"`,
			});
			children.push(arrowTimeData(column.field.type, converted));
		});
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
		this.#rows += band.length;
		this.#batches++;
		callback(null, batch);
	}

	/** An empty array still gives one (empty) batch: a Parquet file takes its schema from the first batch. */
	override _flush(callback: TransformCallback): void {
		if (this.#batches > 0) {
			callback();
			return;
		}
		const columns = this.#options.columns.map((column) => (column.kind === "plain" ? allocateEmpty(column.field) : new BigInt64Array(0)));
		try {
			callback(null, this.#batch({ columns, length: 0, region: { kind: "flat", offset: 0 } }));
		} catch (error) {
			callback(error as Error);
		}
	}
}
