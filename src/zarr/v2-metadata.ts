/**
 * Zarr v2 metadata (`.zarray`, `.zgroup`, `.zattrs`) as the nodes and array metadata of the v3 path: a v2 array
 * becomes the v3 array it is equivalent to (numpy times as `numpy.datetime64`, plain dtypes as the v3 core data
 * types, object strings as `string` with `vlen-utf8`; `transpose` for `order: "F"`, `bytes` with the dtype's byte
 * order, the numcodecs filters and compressor as v3 codecs, chunk key encoding `v2`), so that chunk reading, its
 * checks and the conversion are the same code for both formats. Pure: the caller reads the files.
 */
import { parseDimensionList } from "./dimension-list.js";
import { describeNumpyDtype, isNumpyTimeDtype, parseNumpyTimeDtype } from "../dtype/numpy-dtype-string.js";
import { parseNumpyPlainDtype } from "../dtype/numpy-plain-dtype.js";
import { Dt64ExportError, errorInContext } from "../errors.js";
import { parseJsonObject } from "../json/parse-json.js";
import { withExactIntegerAttributes } from "../json/exact-integers.js";
import { rawMemberText } from "../json/raw-member.js";
import { documentKey, inArrayDocument, type ArrayNode, type CodecMetadata, type NodeMetadata, type V3ArrayForm } from "./array-metadata.js";
import { decodeVlenUtf8 } from "./codecs/vlen-utf8.js";
import { isIdentityFilter, numcodecArrayFilter, numcodecToV3 } from "./numcodecs-v2.js";

export const ZARRAY = ".zarray";
export const ZGROUP = ".zgroup";
export const ZATTRS = ".zattrs";

/**
 * A `.zarray` or `.zgroup` document as a node; `attributesText` is the node's `.zattrs`, if any. `consolidated`: the
 * store key of the `.zmetadata` the documents were cut out of (else each is its own key), the `path` of errors.
 */
export function parseV2NodeJson(kind: "array" | "group", text: string, attributesText: string | undefined, path: string, where: string, consolidated?: string): NodeMetadata {
	const document = consolidated ?? documentKey(path, kind === "array" ? ZARRAY : ZGROUP);
	const attributesDocument = consolidated ?? documentKey(path, ZATTRS);
	const json = parseJsonObject(text, where, document);
	if (json.zarr_format !== 2) throw new Dt64ExportError("METADATA_INVALID", `${where}: zarr_format is ${JSON.stringify(json.zarr_format)}, expected 2`, { path: document, field: "zarr_format" });
	const attributesWhere = where.replace(/\.z(array|group)$/, ZATTRS);
	const attributes = attributesText === undefined ? {} : parseJsonObject(attributesText, attributesWhere, attributesDocument);
	if (kind === "group") return { kind, zarrFormat: 2, path, json, attributes };
	const exact = attributesText === undefined ? attributes : withExactIntegerAttributes(attributes, attributesText);
	return { kind, zarrFormat: 2, path, json, text, attributes: exact, document, attributesDocument };
}

/** True when a v2 array's dtype claims numpy times: such an array is a candidate for export. */
export function isV2TimeArray(json: Record<string, unknown>): boolean {
	return isNumpyTimeDtype(json.dtype);
}

/**
 * How a v2 dtype is read: the v3 data type, the array-to-bytes codec that makes values of the chunk bytes, the
 * filters left after it, blosc's item size, and the v3 fill value text.
 */
export interface V2Values {
	readonly dataType: unknown;
	readonly arrayToBytes: CodecMetadata;
	readonly filters: readonly unknown[];
	readonly itemBytes: number;
	readonly fillValueText: string;
}

const OBJECT_DTYPES: readonly unknown[] = ["|O", "O"];

/** A v2 object array's dtype (`|O`): strings through vlen-utf8, when it can be a column. */
export function isObjectDtype(dtype: unknown): boolean {
	return OBJECT_DTYPES.includes(dtype);
}

/** Why object arrays of other numcodecs object codecs are refused, by codec id. */
const OBJECT_CODEC_WHY_NOT: Readonly<Record<string, string>> = {
	"vlen-bytes": "raw bytes, not text",
	"vlen-array": "ragged arrays have no column type",
};

/**
 * zarr-python 2 writes the fill value of an object array encoded by its object codec, in base64: for vlen-utf8
 * strings, the codec's bytes of a one-string array. It is read back as the v3 JSON string. Its default for object
 * arrays, 0, is no string: zarr-python reads a missing chunk as the integer 0 among the strings. It is read as no
 * fill value (null): every chunk present, the array is exported; a missing one is refused, naming why.
 */
function objectStringFillText(rawText: string): string {
	if (rawText === "null" || rawText === "0") return "null";
	const encoded: unknown = rawText.startsWith('"') ? JSON.parse(rawText) : undefined;
	if (typeof encoded !== "string" || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) {
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: expected null or the base64 text of a vlen-utf8 string, got ${rawText}`, { field: "fill_value" });
	}
	try {
		return JSON.stringify(decodeVlenUtf8(Buffer.from(encoded, "base64"), [1])[0]);
	} catch (error) {
		throw errorInContext(`fill_value ${rawText}`, error, "METADATA_INVALID", { field: "fill_value" });
	}
}

/** Object arrays: strings through the vlen-utf8 filter, which is their array-to-bytes codec in v3. */
function objectValues(json: Record<string, unknown>, filters: readonly unknown[], fillText: string): V2Values {
	const first = filters[0] as { id?: unknown } | undefined;
	const refuse = (why: string): never => {
		throw new Dt64ExportError("UNSUPPORTED", `dtype ${describeNumpyDtype(json.dtype)} cannot be exported as a column (${why})`);
	};
	if (first === undefined || typeof first !== "object" || first === null) return refuse("no object codec in filters; only strings with the vlen-utf8 filter are read");
	if (first.id !== "vlen-utf8") {
		const why = typeof first.id === "string" ? OBJECT_CODEC_WHY_NOT[first.id] : undefined;
		return refuse(`object codec ${JSON.stringify(first.id)}${why ? `: ${why}` : ""}; only strings with the vlen-utf8 filter are read`);
	}
	return { dataType: "string", arrayToBytes: { name: "vlen-utf8" }, filters: filters.slice(1), itemBytes: 1, fillValueText: objectStringFillText(fillText) };
}

/**
 * The v3 reading of a v2 array's dtype (and of its fill value, which v2 spells differently for object strings).
 * Refusals name the dtype and why: they are what an unsupported data type is for a v3 array.
 */
export function v2ValuesOf(json: Record<string, unknown>, fillText: string): V2Values {
	const filters = json.filters ?? [];
	if (!Array.isArray(filters)) throw new Dt64ExportError("METADATA_INVALID", `filters must be a list or null, got ${JSON.stringify(filters)}`, { field: "filters" });
	if (isObjectDtype(json.dtype)) return objectValues(json, filters, fillText);
	const { dataType, endian, itemBytes } = isNumpyTimeDtype(json.dtype) ? { ...parseNumpyTimeDtype(json.dtype), itemBytes: 8 } : parseNumpyPlainDtype(json.dtype);
	return { dataType, arrayToBytes: { name: "bytes", configuration: { endian } }, filters, itemBytes, fillValueText: fillText };
}

/** The codec chain of a v2 array, in v3 order: array-to-array, array-to-bytes, then filters and the compressor. */
function v2Codecs(json: Record<string, unknown>, rank: number, values: V2Values): CodecMetadata[] {
	const codecs: CodecMetadata[] = [];
	const order = json.order ?? "C";
	if (order !== "C" && order !== "F") throw new Dt64ExportError("METADATA_INVALID", `order must be "C" or "F", got ${JSON.stringify(order)}`, { field: "order" });
	// Axis reversal is the identity for 0-d and 1-d chunks: no codec is needed there.
	if (order === "F" && rank > 1) codecs.push({ name: "transpose", configuration: { order: Array.from({ length: rank }, (_, i) => rank - 1 - i) } });
	const arrayFilters: CodecMetadata[] = [];
	const bytesFilters: CodecMetadata[] = [];
	const skipped = (json.filters as unknown[] | null | undefined)?.length ?? 0;
	const first = skipped - values.filters.length;
	// Time arrays are stored as int64 counts.
	const storedType = typeof values.dataType === "string" ? values.dataType : "int64";
	values.filters.forEach((filter, i) => {
		const field = `filters[${first + i}]`;
		// A lossy filter whose decode is the identity (bitround, quantize) leaves nothing to undo.
		if (isIdentityFilter(filter, field)) return;
		// A filter of the values (delta) decodes on them, next to the array-to-bytes codec: before any filter of bytes.
		const arrayFilter = numcodecArrayFilter(filter, field, storedType);
		if (arrayFilter === undefined) bytesFilters.push(numcodecToV3(filter, field, values.itemBytes));
		else if (bytesFilters.length > 0) throw new Dt64ExportError("UNSUPPORTED", `${field}: ${arrayFilter.name} after a filter of bytes is not read (only before them, on the values)`, { field });
		else arrayFilters.push(arrayFilter);
	});
	codecs.push(...arrayFilters, values.arrayToBytes, ...bytesFilters);
	if (json.compressor !== null && json.compressor !== undefined) codecs.push(numcodecToV3(json.compressor, "compressor", values.itemBytes));
	return codecs;
}

/**
 * xarray's `_ARRAY_DIMENSIONS` (in `.zattrs`), when present: one name per dimension of the shape. A list of another
 * length, or not of strings, is refused naming the attribute, as v3 `dimension_names` is (and as xarray refuses to
 * open the dataset: "dimensions ... must have the same length as the number of data dimensions"); it was dropped,
 * and the array read as one without names.
 */
function arrayDimensions(node: Extract<ArrayNode, { zarrFormat: 2 }>, shape: readonly number[]): string[] | undefined {
	const names = node.attributes._ARRAY_DIMENSIONS;
	if (names === undefined) return undefined;
	if (Array.isArray(names) && names.length === shape.length && names.every((name) => typeof name === "string")) return names;
	const why =
		Array.isArray(names) && names.length !== shape.length
			? `has ${names.length} ${names.length === 1 ? "name" : "names"} for the ${shape.length} dimensions of shape ${JSON.stringify(shape)}`
			: "must be a list of strings, one per dimension";
	throw new Dt64ExportError("METADATA_INVALID", `_ARRAY_DIMENSIONS ${JSON.stringify(names)} of ${node.attributesDocument} ${why}`, { path: node.attributesDocument, field: "_ARRAY_DIMENSIONS" });
}

/**
 * The v3 form of a v2 array; every field v2 spells differently is checked here, with messages naming the
 * `.zarray` field. The fill value is the exact JSON text of `fill_value` (`null` included: v2 allows "no fill
 * value").
 */
export function v2ArrayAsV3(node: Extract<ArrayNode, { zarrFormat: 2 }>, where: string): V3ArrayForm {
	const { json } = node;
	try {
		const values = v2ValuesOf(json, rawMemberText(node.text, "fill_value")?.trim() ?? "null");
		const shape = parseDimensionList(json.shape, rawMemberText(node.text, "shape"), "shape", 0);
		const chunks = parseDimensionList(json.chunks, rawMemberText(node.text, "chunks"), "chunks", 1);
		if (chunks.length !== shape.length) throw new Dt64ExportError("METADATA_INVALID", `chunks ${JSON.stringify(chunks)} does not match the rank of shape ${JSON.stringify(shape)}`, { field: "chunks" });
		const separator = json.dimension_separator ?? ".";
		if (separator !== "." && separator !== "/") throw new Dt64ExportError("METADATA_INVALID", `dimension_separator must be "." or "/", got ${JSON.stringify(separator)}`, { field: "dimension_separator" });
		const dimensionNames = arrayDimensions(node, shape);
		return {
			path: node.path,
			zarrFormat: 2,
			document: node.document,
			attributesDocument: node.attributesDocument,
			rawDataType: json.dtype,
			fillValueText: values.fillValueText,
			json: {
				shape,
				data_type: values.dataType,
				chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
				chunk_key_encoding: { name: "v2", configuration: { separator } },
				codecs: v2Codecs(json, shape.length, values),
				...(dimensionNames === undefined ? {} : { dimension_names: dimensionNames }),
				attributes: node.attributes,
			},
		};
	} catch (error) {
		throw inArrayDocument(errorInContext(where, error, "METADATA_INVALID"), node);
	}
}
