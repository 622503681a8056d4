/**
 * xarray's encoding of booleans: numpy has no bool type in netCDF, so xarray (BoolTypeArray, every version) writes a
 * bool variable as `int8` with the attribute `dtype: "bool"`, and reads it back with `astype(bool)`, after masking
 * and unpacking: any non-zero value is true. Any numeric type with the attribute is read so, as xarray does.
 */
import type { NumericValues } from "../zarr/chunk-values.js";

/** Whether CF attributes mark stored numbers as booleans. */
export function isCfBoolean(attributes: Readonly<Record<string, unknown>>): boolean {
	return attributes.dtype === "bool";
}

/** One byte per value, 1 where the value is non-zero (NaN too, as numpy's `astype(bool)`), 0 elsewhere. */
export function booleanBytes(values: NumericValues): Uint8Array {
	const bytes = new Uint8Array(values.length);
	const data = values as ArrayLike<number | bigint>;
	const zero = values instanceof BigInt64Array || values instanceof BigUint64Array ? 0n : 0;
	for (let i = 0; i < bytes.length; i++) bytes[i] = data[i] === zero ? 0 : 1;
	return bytes;
}
