/**
 * Arrow types and data for companion columns, the non-time arrays exported next to datetime64 ones: each data
 * type maps to its natural Arrow type, values exactly as stored (64-bit integers stay BigInt64Array and
 * BigUint64Array, NaN stays NaN), never null.
 */
import { Bool, type Data, type DataType, Field, Float32, Float64, Int8, Int16, Int32, Int64, makeData, Uint8, Uint16, Uint32, Uint64, Utf8 } from "apache-arrow";
import { Dt64ExportError } from "../errors.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";
import type { PlainTypeName } from "../zarr/plain-dtype.js";
import { ZARR_DATA_TYPE_KEY } from "./field-metadata-keys.js";

const ARROW_TYPES: Readonly<Record<PlainTypeName, () => DataType>> = {
	bool: () => new Bool(),
	int8: () => new Int8(),
	int16: () => new Int16(),
	int32: () => new Int32(),
	int64: () => new Int64(),
	uint8: () => new Uint8(),
	uint16: () => new Uint16(),
	uint32: () => new Uint32(),
	uint64: () => new Uint64(),
	// Half floats, which neither DuckDB nor polars reads, are widened (exactly) to float32 as they are decoded.
	float16: () => new Float32(),
	float32: () => new Float32(),
	float64: () => new Float64(),
	string: () => new Utf8(),
};

/** The field of a companion column: its natural type, not nullable, with the Zarr data type in its metadata. */
export function plainArrowField(name: string, type: PlainTypeName, zarrDataType: unknown): Field {
	return new Field(name, ARROW_TYPES[type](), false, new Map([[ZARR_DATA_TYPE_KEY, JSON.stringify(zarrDataType)]]));
}

/** An int64 column without nulls and without metadata, such as an index column. */
export function int64Field(name: string): Field<Int64> {
	return new Field(name, new Int64(), false);
}

/** Arrow keeps booleans as bits; Zarr as one byte each, any non-zero byte being true (numpy's reading). */
function packBits(bytes: Uint8Array): Uint8Array {
	const bits = new Uint8Array(Math.ceil(bytes.length / 8));
	for (let i = 0; i < bytes.length; i++) if (bytes[i] !== 0) bits[i >> 3] |= 1 << (i & 7);
	return bits;
}

/** Utf8 offsets are int32: one batch of text must stay under 2 GiB. */
const MAX_UTF8_BYTES = 2 ** 31 - 1;

function utf8Data(type: Utf8, strings: string[], column: string): Data<Utf8> {
	const offsets = new Int32Array(strings.length + 1);
	let total = 0;
	for (let i = 0; i < strings.length; i++) {
		// A slot without a value (a missing chunk's, see table/missing-strings.ts) is null: no bytes.
		if (strings[i] !== undefined) total += Buffer.byteLength(strings[i], "utf8");
		if (total > MAX_UTF8_BYTES) throw new Dt64ExportError("TOO_LARGE", `column "${column}": more than 2 GiB of text in one row of chunks, too much for one Arrow Utf8 batch`);
		offsets[i + 1] = total;
	}
	const text = Buffer.allocUnsafe(total);
	for (let i = 0; i < strings.length; i++) if (strings[i] !== undefined) text.write(strings[i], offsets[i], "utf8");
	return makeData({ type, length: strings.length, nullCount: 0, valueOffsets: offsets, data: new Uint8Array(text.buffer, text.byteOffset, total) });
}

/** Wraps decoded values as Arrow data of the field's type: typed arrays without a copy, bools packed, strings encoded. */
export function plainArrowData(field: Field, values: ChunkValues): Data {
	const type = field.type;
	if (type instanceof Utf8) return utf8Data(type, values as string[], field.name);
	const data = type instanceof Bool ? packBits(values as Uint8Array) : (values as NumericValues);
	return makeData({ type, length: values.length, nullCount: 0, data } as Parameters<typeof makeData>[0]);
}
