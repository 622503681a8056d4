import type { PlainTypeName } from "../zarr/plain-dtype.js";

/**
 * The Arrow type of a companion column as pyarrow names it (`double`, `int32`...), for reports. Apart from
 * column-types.ts, which builds the types themselves, so that reports need not load apache-arrow.
 */
export function plainArrowTypeName(type: PlainTypeName): string {
	// Half floats are exported widened to float32 (see zarr/half-float.ts).
	return type === "float32" || type === "float16" ? "float" : type === "float64" ? "double" : type;
}
