import { Type, type Field } from "apache-arrow";
import { plainArrowData, plainArrowField } from "../arrow/column-types.js";
import type { TableColumn } from "../open-table.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** No values of a companion column's type: its Arrow type's own array type, or no strings. */
function allocateEmpty(field: Field): ChunkValues {
	const ArrayType = (field.type as { ArrayType?: new (length: number) => ChunkValues }).ArrayType;
	return ArrayType === undefined || field.type.typeId === Type.Utf8 ? [] : new ArrayType(0);
}

/** A companion column (bool, integers, floats, strings): its natural Arrow type, values as stored. */
export function planPlainColumn(column: Extract<TableColumn, { kind: "plain" }>, context: ColumnContext): ColumnPlan {
	const field = plainArrowField(context.name, column.metadata.dataType.name, column.metadata.rawDataType);
	return { field, toData: (values) => plainArrowData(field, values), empty: () => allocateEmpty(field) };
}
