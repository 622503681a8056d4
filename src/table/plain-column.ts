import { Field, Type } from "apache-arrow";
import { plainArrowField } from "../arrow/column-types.js";
import { isCfBoolean } from "../cf/boolean-coding.js";
import { isMaskableType, maskRuleOf } from "../cf/masking.js";
import { packingRuleOf } from "../cf/packing.js";
import { isCfTimeMetadata } from "../cf/cf-time-array.js";
import type { TableColumn } from "../open-table.js";
import { inArrayDocument } from "../zarr/array-metadata.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import { planCfTimeColumn } from "./cf-time-column.js";
import { planCfValuesColumn } from "./cf-values-column.js";
import { missingStringsValidity } from "./missing-strings.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** No values of a companion column's type: its Arrow type's own array type, or no strings. */
export function allocateEmpty(field: Field): ChunkValues {
	const ArrayType = (field.type as { ArrayType?: new (length: number) => ChunkValues }).ArrayType;
	return ArrayType === undefined || field.type.typeId === Type.Utf8 ? [] : new ArrayType(0);
}

/**
 * A companion column (bool, integers, floats, strings): CF time when its attributes say so, masked and unpacked
 * when they hold CF markers or packing, Bool for xarray's booleans (`dtype: "bool"`; see cf-values-column.ts), read
 * as `_Unsigned` says (done as the chunks are read; said in the field metadata), else its natural Arrow type,
 * values as stored.
 * `cf: false` (`--no-cf`) always gives the stored values.
 */
export function planPlainColumn(column: Extract<TableColumn, { kind: "plain" }>, context: ColumnContext): ColumnPlan {
	const { metadata } = column;
	const storedField = plainArrowField(context.name, metadata.dataType.name, metadata.rawDataType);
	const type = metadata.dataType.name;
	if (context.plan.cf && isCfTimeMetadata(metadata)) return planCfTimeColumn(column, context);
	if (context.plan.cf && isMaskableType(type)) {
		let mask: ReturnType<typeof maskRuleOf>;
		let packing: ReturnType<typeof packingRuleOf>;
		try {
			mask = maskRuleOf({ name: metadata.path, type, zarrFormat: metadata.zarrFormat, attributes: metadata.attributes, fillValue: metadata.fillValue });
			packing = packingRuleOf(metadata.path, type, metadata.attributes);
		} catch (error) {
			throw inArrayDocument(error, metadata, "attributes");
		}
		const boolean = isCfBoolean(metadata.attributes);
		const nanAsNull = !boolean && context.plan.nanAsNull && (type === "float16" || type === "float32" || type === "float64" || (packing !== undefined && packing.target !== "int64"));
		const { unsigned } = column;
		if (mask !== undefined || packing !== undefined || nanAsNull || boolean || unsigned !== undefined) return planCfValuesColumn({ column, storedField, unsigned, mask, packing, nanAsNull, boolean });
	}
	if (metadata.missingChunksAreNull === true) {
		const field = new Field(storedField.name, storedField.type, true, storedField.metadata);
		return { field, decode: (values) => ({ values, validity: missingStringsValidity(values as string[], context.allocateBitmap) }), empty: () => allocateEmpty(field) };
	}
	return { field: storedField, decode: (values) => ({ values }), empty: () => allocateEmpty(storedField) };
}
