/**
 * Zarr v2 metadata (`.zarray`, `.zgroup`, `.zattrs`) as the nodes and array metadata of the v3 path: a v2 array
 * of numpy times becomes the v3 array it is equivalent to (`numpy.datetime64` data type, `transpose` for
 * `order: "F"`, `bytes` with the dtype's byte order, the numcodecs filters and compressor as v3 codecs, chunk
 * key encoding `v2`), so that chunk reading, its checks and the conversion are the same code for both formats.
 * Pure: the caller reads the files.
 */
import { describeNumpyDtype, isNumpyTimeDtype, parseNumpyTimeDtype } from "../dtype/numpy-dtype-string.js";
import { Dt64ExportError } from "../errors.js";
import { rawMemberText } from "../json/raw-member.js";
import type { ArrayNode, CodecMetadata, NodeMetadata, V3ArrayForm } from "./array-metadata.js";
import { numcodecToV3 } from "./numcodecs-v2.js";

export const ZARRAY = ".zarray";
export const ZGROUP = ".zgroup";
export const ZATTRS = ".zattrs";

function parseObject(text: string, where: string): Record<string, unknown> {
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		const reason = (error as Error).message.replace(/[\s\p{Cc}\uFFFD]+/gu, " ").trim();
		throw new Dt64ExportError(`${where}: not valid JSON (${reason})`);
	}
	if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Dt64ExportError(`${where}: not a JSON object`);
	return json as Record<string, unknown>;
}

/** A `.zarray` or `.zgroup` document as a node; `attributesText` is the node's `.zattrs`, if any. */
export function parseV2NodeJson(kind: "array" | "group", text: string, attributesText: string | undefined, path: string, where: string): NodeMetadata {
	const json = parseObject(text, where);
	if (json.zarr_format !== 2) throw new Dt64ExportError(`${where}: zarr_format is ${JSON.stringify(json.zarr_format)}, expected 2`);
	const attributesWhere = where.replace(/\.z(array|group)$/, ZATTRS);
	const attributes = attributesText === undefined ? {} : parseObject(attributesText, attributesWhere);
	if (kind === "group") return { kind, zarrFormat: 2, path, json, attributes };
	return { kind, zarrFormat: 2, path, json, text, attributes };
}

/** True when a v2 array's dtype claims numpy times: such an array is a candidate for export. */
export function isV2TimeArray(json: Record<string, unknown>): boolean {
	return isNumpyTimeDtype(json.dtype);
}

function integers(value: unknown, field: string, min: number): number[] {
	if (!Array.isArray(value) || !value.every((n) => Number.isSafeInteger(n) && n >= min)) {
		throw new Dt64ExportError(`${field} must be a list of ${min === 0 ? "non-negative" : "positive"} integers, got ${JSON.stringify(value)}`);
	}
	return value as number[];
}

/** The codec chain of a v2 array, in v3 order: array-to-array, `bytes`, then filters and the compressor. */
function v2Codecs(json: Record<string, unknown>, rank: number, endian: "little" | "big"): CodecMetadata[] {
	const codecs: CodecMetadata[] = [];
	const order = json.order ?? "C";
	if (order !== "C" && order !== "F") throw new Dt64ExportError(`order must be "C" or "F", got ${JSON.stringify(order)}`);
	// Axis reversal is the identity for 0-d and 1-d chunks: no codec is needed there.
	if (order === "F" && rank > 1) codecs.push({ name: "transpose", configuration: { order: Array.from({ length: rank }, (_, i) => rank - 1 - i) } });
	codecs.push({ name: "bytes", configuration: { endian } });
	const filters = json.filters ?? [];
	if (!Array.isArray(filters)) throw new Dt64ExportError(`filters must be a list or null, got ${JSON.stringify(filters)}`);
	filters.forEach((filter, i) => codecs.push(numcodecToV3(filter, `filters[${i}]`)));
	if (json.compressor !== null && json.compressor !== undefined) codecs.push(numcodecToV3(json.compressor, "compressor"));
	return codecs;
}

/**
 * The v3 form of a v2 array of numpy times; every field v2 spells differently is checked here, with messages
 * naming the `.zarray` field. The fill value is the exact JSON text of `fill_value` (`null` included: v2 allows
 * "no fill value").
 */
export function v2ArrayAsV3(node: Extract<ArrayNode, { zarrFormat: 2 }>, where: string): V3ArrayForm {
	const { json } = node;
	const at = (error: unknown): never => {
		throw new Dt64ExportError(`${where}: ${(error as Error).message}`);
	};
	if (!isNumpyTimeDtype(json.dtype)) {
		throw new Dt64ExportError(`${where}: dtype ${describeNumpyDtype(json.dtype)} is not supported: not numpy.datetime64 (M8) or numpy.timedelta64 (m8)`);
	}
	try {
		const dtype = parseNumpyTimeDtype(json.dtype);
		const shape = integers(json.shape, "shape", 0);
		const chunks = integers(json.chunks, "chunks", 1);
		if (chunks.length !== shape.length) throw new Dt64ExportError(`chunks ${JSON.stringify(chunks)} does not match the rank of shape ${JSON.stringify(shape)}`);
		const separator = json.dimension_separator ?? ".";
		if (separator !== "." && separator !== "/") throw new Dt64ExportError(`dimension_separator must be "." or "/", got ${JSON.stringify(separator)}`);
		const dimensionNames = node.attributes._ARRAY_DIMENSIONS;
		return {
			path: node.path,
			zarrFormat: 2,
			rawDataType: json.dtype,
			fillValueText: rawMemberText(node.text, "fill_value") ?? "null",
			json: {
				shape,
				data_type: dtype.dataType,
				chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
				chunk_key_encoding: { name: "v2", configuration: { separator } },
				codecs: v2Codecs(json, shape.length, dtype.endian),
				...(Array.isArray(dimensionNames) && dimensionNames.length === shape.length ? { dimension_names: dimensionNames } : {}),
				attributes: node.attributes,
			},
		};
	} catch (error) {
		return at(error);
	}
}
