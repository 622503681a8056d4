/**
 * How the stored values of one column become the values of its Arrow field, one kind per way: datetime64 counts
 * through the exact conversion core, CF time counts through cf's exact decoding, plain values as stored, CF-coded
 * values masked then unpacked. A kind decodes
 * a column's own values (before they are repeated over the table), so a coordinate or a static field is decoded
 * once per value, not once per row.
 */
import { Bool, type Data, Field, Float32, Float64, makeData, Utf8 } from "apache-arrow";
import { plainArrowData } from "../arrow/column-types.js";
import { ZARR_DATA_TYPE_KEY } from "../arrow/time-field.js";
import type { NormalizedConversionOptions } from "../convert/options.js";
import { planConversion } from "../convert/plan.js";
import { convertWithPlan } from "../convert/to-arrow-timestamps.js";
import type { Datetime64Type } from "../dtype/datetime64.js";
import { maskNaN, maskValues, type MaskRule, type Validity } from "../cf/masking.js";
import { unpackValues, type PackingRule } from "../cf/packing.js";
import type { CfTimeCoding } from "../cf/cf-time-coding.js";
import { decodeCfTimes, type CfDecodeOptions } from "../cf/decode-cf-times.js";
import type { MissingValueMarkers } from "../cf/missing-value.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";

/** A column's values as its Arrow field holds them, with the rows that are null. */
export interface DecodedValues {
	readonly values: ChunkValues;
	readonly validity?: Validity;
}

export interface ColumnKind {
	readonly field: Field;
	/** `describePosition(i)` names the i-th value in messages. */
	decode(raw: ChunkValues, describePosition: (i: number) => string): DecodedValues;
}

/** numpy.datetime64 / timedelta64 counts: the exact conversion, NaT to null. */
export function datetime64Kind(field: Field, source: Datetime64Type, conversion: NormalizedConversionOptions): ColumnKind {
	const plan = planConversion(source, conversion.unit);
	return {
		field,
		decode(raw, describePosition) {
			const converted = convertWithPlan(raw as BigInt64Array, plan, { ...conversion, describePosition });
			return { values: converted.values, validity: converted.validity === null ? undefined : { bitmap: converted.validity, nullCount: converted.nullCount } };
		},
	};
}

/** CF time counts (`<unit> since <date>`, or xarray's timedelta form): cf's exact decoding, missing values to null. */
export function cfTimeKind(field: Field, coding: CfTimeCoding, markers: MissingValueMarkers, options: Omit<CfDecodeOptions, "describePosition">): ColumnKind {
	return {
		field,
		decode(raw, describePosition) {
			const decoded = decodeCfTimes(raw as NumericValues, coding, markers, { ...options, describePosition });
			return { values: decoded.values, validity: decoded.validity === null ? undefined : { bitmap: decoded.validity, nullCount: decoded.nullCount } };
		},
	};
}

/** Values exactly as stored. */
export function plainKind(field: Field): ColumnKind {
	return { field, decode: (raw) => ({ values: raw }) };
}

/** The CF attributes a decoded column keeps in its field metadata, as written. */
export const KEPT_CF_ATTRIBUTES = ["units", "long_name", "standard_name"] as const;

/** Field metadata key marking a column decoded from CF time counts ("true"). */
export const CF_DECODED_KEY = "zarr.cf_decoded";

/** Field metadata key saying which CF attributes were applied to the values, with their values (JSON). */
export const CF_APPLIED_KEY = "zarr.cf_applied";

export interface CfValuesOptions {
	readonly name: string;
	readonly storedType: string;
	readonly zarrDataType: unknown;
	readonly attributes: Readonly<Record<string, unknown>>;
	readonly mask: MaskRule | undefined;
	readonly packing: PackingRule | undefined;
	/** NaN becomes null too (`--nan-as-null`); only for float results. */
	readonly nanAsNull: boolean;
	/** The Arrow field of the values as stored, for a column that is masked but not unpacked. */
	readonly storedField: Field;
}

/**
 * A CF-coded column: values equal to a marker or outside the valid range become null, then `scale_factor` and
 * `add_offset` are applied (Float32 or Float64, see packing.ts); NaN stays NaN unless `nanAsNull`. The field is
 * nullable and its metadata keeps the CF attributes and says what was applied.
 */
export function cfValuesKind(options: CfValuesOptions): ColumnKind {
	const { mask, packing, nanAsNull, attributes } = options;
	const metadata = new Map<string, string>([[ZARR_DATA_TYPE_KEY, JSON.stringify(options.zarrDataType)]]);
	for (const key of KEPT_CF_ATTRIBUTES) if (typeof attributes[key] === "string") metadata.set(key, attributes[key] as string);
	const applied = { ...mask?.applied, ...packing?.applied, ...(nanAsNull ? { nan_as_null: true } : {}) };
	metadata.set(CF_APPLIED_KEY, JSON.stringify(applied));
	const type = packing === undefined ? options.storedField.type : packing.target === "float32" ? new Float32() : new Float64();
	const field = new Field(options.name, type, true, metadata);
	const isFloat = type instanceof Float32 || type instanceof Float64;
	return {
		field,
		decode(raw) {
			const stored = raw as NumericValues;
			const validity = mask === undefined ? undefined : maskValues(stored, mask);
			const values = packing === undefined ? stored : unpackValues(stored, packing);
			if (nanAsNull && isFloat) return { values, validity: maskNaN(values as Float32Array | Float64Array, validity) };
			return { values, validity };
		},
	};
}

/** Arrow data of a field from decoded values: typed arrays without a copy, the validity as its null bitmap. */
export function arrowDataOf(field: Field, decoded: DecodedValues): Data {
	const { type } = field;
	if (type instanceof Utf8 || type instanceof Bool || decoded.validity === undefined) {
		const data = plainArrowData(field, decoded.values);
		if (decoded.validity === undefined) return data;
		return makeData({ type, length: data.length, nullCount: decoded.validity.nullCount, nullBitmap: decoded.validity.bitmap, valueOffsets: data.valueOffsets, data: data.values } as Parameters<typeof makeData>[0]);
	}
	return makeData({ type, length: decoded.values.length, nullCount: decoded.validity.nullCount, nullBitmap: decoded.validity.bitmap, data: decoded.values } as Parameters<typeof makeData>[0]);
}
