/**
 * The strings of a v2 object-string array written without a fill value (`fill_value: null`, as xarray writes one):
 * zarr-python 2 reads a missing chunk of it as None values and xarray keeps them, so such a column is nullable and
 * a slot read from a missing chunk (holding no value, see zarr/chunk-values.ts) is null. Every other string column
 * has no nulls.
 */
import type { Validity } from "../cf/masking.js";

/** The validity of strings whose slots may hold no value; undefined when every slot holds one. */
export function missingStringsValidity(values: readonly (string | undefined)[], allocateBitmap: (bytes: number) => Uint8Array = (bytes) => new Uint8Array(bytes)): Validity | undefined {
	let nullCount = 0;
	for (let i = 0; i < values.length; i++) if (values[i] === undefined) nullCount++;
	if (nullCount === 0) return undefined;
	const bitmap = allocateBitmap(Math.ceil(values.length / 8));
	bitmap.fill(0);
	for (let i = 0; i < values.length; i++) if (values[i] !== undefined) bitmap[i >> 3] |= 1 << (i & 7);
	return { bitmap, nullCount };
}
