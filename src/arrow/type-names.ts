import type { PlainTypeName } from "../zarr/plain-dtype.js";

/**
 * The Arrow type of a companion column as pyarrow names it (`double`, `int32`...), for reports. Apart from
 * column-types.ts, which builds the types themselves, so that reports need not load apache-arrow.
 */
export function plainArrowTypeName(type: PlainTypeName): string {
	return type === "float32" ? "float" : type === "float64" ? "double" : type;
}
