/**
 * What a chunk that is not in the store reads as, decided from the array's metadata alone: the one rule that the
 * export (chunk-source.ts, through PlainArrayMetadata.missingChunksAreNull and the fill value) and `inspect` (its
 * "fill value" line and `missingChunks`) both follow.
 */
import type { ArrayNode } from "./array-metadata.js";
import { isObjectDtype } from "./v2-metadata.js";

/**
 * `fill`: the fill value. `null`: no value, the column's nulls: a v2 object (string) array whose `fill_value` is
 * null, as xarray writes strings, where zarr-python 2 reads None. `refused`: the export stops naming the chunk
 * (CHUNK_MISSING): a v2 array without a fill value (`fill_value: null`) of another dtype, or an object array with
 * zarr-python 2's default fill value for it, 0, which it reads as the integer 0 among the strings.
 */
export type MissingChunks = "fill" | "null" | "refused";

export function missingChunksOf(node: ArrayNode): MissingChunks {
	if (node.zarrFormat !== 2) return "fill";
	const fill = node.json.fill_value;
	const objects = isObjectDtype(node.json.dtype);
	if (fill === null) return objects ? "null" : "refused";
	return objects && fill === 0 ? "refused" : "fill";
}
