import { Bool, type Data, type Field, makeData, Utf8 } from "apache-arrow";
import { plainArrowData } from "../arrow/column-types.js";
import type { Validity } from "../cf/masking.js";
import type { ColumnsPlan } from "../export-plan.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";

/** A column's values as its Arrow field holds them, with the rows that are null. */
export interface DecodedValues {
	readonly values: ChunkValues;
	readonly validity?: Validity;
}

/**
 * How one column of a table becomes Arrow data: what TableBatcher asks of every column kind. A kind decodes a
 * column's own values (before the batcher repeats them over the table), so a coordinate or a static field is
 * decoded once per value, not once per row.
 */
export interface ColumnPlan {
	readonly field: Field;
	/** The values of one band of this column, decoded; `describePosition(i)` names its i-th value in messages. */
	decode(values: ChunkValues, describePosition: (i: number) => string): DecodedValues;
	/** The values of no rows: an empty table still gives one (empty) batch, for its schema. */
	empty(): ChunkValues;
	/**
	 * A time coordinate decoded with `dropInvalidDates`: its dates the proleptic Gregorian calendar lacks are marked
	 * (convert/dropped-dates.ts), and the batcher leaves their rows out.
	 */
	readonly dropsInvalidDates?: true;
}

/** What a column kind plans a column with, beside the column itself. */
export interface ColumnContext {
	/** The column's name in the output. */
	readonly name: string;
	readonly plan: ColumnsPlan;
	/**
	 * The bands' values are the reader's own decoded chunks, read by no one else (TableReader's): a kind may
	 * convert them where they are instead of into a new buffer per batch.
	 */
	readonly convertInPlace: boolean;
	/** Where validity bitmaps' memory comes from (a BufferPool's, when the output hands buffers back); default new. */
	readonly allocateBitmap?: (bytes: number) => Uint8Array;
	/**
	 * Where a kind that cannot convert in place (a CF time column of int32 counts) gets the int64 values it writes,
	 * from the same pool; default new. Every slot is written.
	 */
	readonly allocateValues?: (length: number) => BigInt64Array;
	/**
	 * Hands back the memory of band values a kind decoded into other memory (int32 CF time counts widened into
	 * int64): the bands are the reader's own (`convertInPlace`), dead once decoded. Only a pool's buffers go back (a
	 * store's own bytes, a copy of a kept read are left to the collector); without it, nothing does.
	 */
	readonly releaseValues?: (values: NumericValues) => void;
	/**
	 * The column is a time coordinate (an index coordinate, or the array exported alone), whose dates the proleptic
	 * Gregorian calendar lacks leave their rows out when the plan drops them (`dropInvalidDates`).
	 */
	readonly rowFilter?: boolean;
}

/** Arrow data of a field from decoded values: typed arrays without a copy, the validity as its null bitmap. */
export function arrowDataOf(field: Field, decoded: DecodedValues): Data {
	const { type } = field;
	const { validity } = decoded;
	if (type instanceof Utf8 || type instanceof Bool || validity === undefined) {
		const data = plainArrowData(field, decoded.values);
		if (validity === undefined) return data;
		return makeData({ type, length: data.length, nullCount: validity.nullCount, nullBitmap: validity.bitmap, valueOffsets: data.valueOffsets, data: data.values } as Parameters<typeof makeData>[0]);
	}
	return makeData({ type, length: decoded.values.length, nullCount: validity.nullCount, nullBitmap: validity.bitmap, data: decoded.values } as Parameters<typeof makeData>[0]);
}
