import { Bool, Field, Float32, Float64, Int64 } from "apache-arrow";
import { ZARR_DATA_TYPE_KEY } from "../arrow/field-metadata-keys.js";
import { booleanBytes } from "../cf/boolean-coding.js";
import { maskNaN, maskValues, type MaskRule } from "../cf/masking.js";
import { unpackValues, type PackingRule } from "../cf/packing.js";
import type { UnsignedCoding } from "../cf/unsigned-coding.js";
import type { TableColumn } from "../open-table.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { ColumnPlan } from "./column-plan.js";
import { allocateEmpty } from "./plain-column.js";
import { stringifyExactIntegers } from "../json/exact-integers.js";

/** The CF attributes a decoded column keeps in its field metadata, as written. */
const KEPT_CF_ATTRIBUTES = ["units", "long_name", "standard_name"] as const;

/** Field metadata key saying which CF attributes were applied to the values, with their values (JSON). */
const CF_APPLIED_KEY = "zarr.cf_applied";

export interface CfValuesColumn {
	readonly column: Extract<TableColumn, { kind: "plain" }>;
	/** The Arrow field of the values as stored: the type of a column that is masked but not unpacked. */
	readonly storedField: Field;
	/** `_Unsigned` applied: the stored integers are read as its type already (open-table.ts), listed as applied. */
	readonly unsigned?: UnsignedCoding;
	readonly mask: MaskRule | undefined;
	readonly packing: PackingRule | undefined;
	/** NaN becomes null too (`--nan-as-null`); only for float results. */
	readonly nanAsNull: boolean;
	/** The values are xarray's booleans (`dtype: "bool"`): non-zero is true, after masking and unpacking. */
	readonly boolean: boolean;
}

/**
 * A CF-coded companion column: values equal to a marker or outside the valid range become null, then
 * `scale_factor` and `add_offset` are applied (Float32 or Float64, see cf/packing.ts); NaN stays NaN unless
 * `nanAsNull`; xarray's booleans then become Bool (cf/boolean-coding.ts). The field is nullable when values may be
 * null (masked, or floats that `nanAsNull` may make null; not values only unpacked, booleans or integers `_Unsigned`
 * alone read: nothing makes those null), and its metadata
 * keeps the CF attributes and says what was applied, `_Unsigned` first, as it is CF's first step.
 */
export function planCfValuesColumn({ column, storedField, unsigned, mask, packing, nanAsNull, boolean }: CfValuesColumn): ColumnPlan {
	const { attributes, rawDataType } = column.metadata;
	const metadata = new Map<string, string>([[ZARR_DATA_TYPE_KEY, JSON.stringify(rawDataType)]]);
	for (const key of KEPT_CF_ATTRIBUTES) if (typeof attributes[key] === "string") metadata.set(key, attributes[key] as string);
	metadata.set(CF_APPLIED_KEY, stringifyExactIntegers({ ...(unsigned === undefined ? {} : { _Unsigned: unsigned.unsigned }), ...mask?.applied, ...packing?.applied, ...(nanAsNull ? { nan_as_null: true } : {}), ...(boolean ? { dtype: "bool" } : {}) }));
	const type = boolean ? new Bool() : packing === undefined ? storedField.type : packing.target === "float32" ? new Float32() : packing.target === "int64" ? new Int64() : new Float64();
	const nullable = mask !== undefined || (!boolean && nanAsNull);
	const field = new Field(storedField.name, type, nullable, metadata);
	const isFloat = type instanceof Float32 || type instanceof Float64;
	return {
		field,
		decode(raw, describePosition) {
			const stored = raw as NumericValues;
			const validity = mask === undefined ? undefined : maskValues(stored, mask);
			const values = packing === undefined ? stored : unpackValues(stored, packing, { validity, describePosition });
			if (boolean) return { values: booleanBytes(values), validity };
			if (nanAsNull && isFloat) return { values, validity: maskNaN(values as Float32Array | Float64Array, validity) };
			return { values, validity };
		},
		empty: () => allocateEmpty(field),
	};
}
