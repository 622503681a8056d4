import { describeDataType, isTimeDataType, parseDatetime64Type, type Datetime64Type } from "../dtype/datetime64.js";
import { parseFillValue } from "../dtype/fill-value.js";
import { Dt64ExportError } from "../errors.js";
import { rawMemberText } from "../json/raw-member.js";
import { parsePlainDataType, parsePlainFillValue, type PlainDataType, type PlainFill } from "./plain-dtype.js";

export interface CodecMetadata {
	name: string;
	configuration?: Record<string, unknown>;
}

/** What every validated Zarr v3 array has, whatever its data type: where it is and how it is chunked. */
export interface ArrayLayout {
	readonly path: string;
	readonly shape: number[];
	readonly chunkShape: number[];
	/** The `data_type` member exactly as in zarr.json. */
	readonly rawDataType: unknown;
	readonly codecs: CodecMetadata[];
	readonly chunkKeyEncoding: unknown;
	readonly dimensionNames?: (string | null)[];
	readonly attributes: Record<string, unknown>;
}

/** A validated Zarr v3 `numpy.datetime64` array, with its exact fill value and its JSON as written. */
export interface TimeArrayMetadata extends ArrayLayout {
	readonly dataType: Datetime64Type;
	readonly fillValue: bigint;
}

/** A validated array of a plain data type (bool, integers, floats, strings), exported as a companion column. */
export interface PlainArrayMetadata extends ArrayLayout {
	readonly dataType: PlainDataType;
	readonly fillValue: PlainFill;
}

export type NodeMetadata =
	| { kind: "group"; path: string; json: Record<string, unknown> }
	| { kind: "array"; path: string; json: Record<string, unknown>; text: string };

/** Parses a zarr.json document and says what node it describes. `where` names it in messages. */
export function parseNodeJson(text: string, path: string, where: string): NodeMetadata {
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		// V8 quotes the text around the error, newlines and binary included: keep the message on one printable line.
		const reason = (error as Error).message.replace(/[\s\p{Cc}\uFFFD]+/gu, " ").trim();
		throw new Dt64ExportError(`${where}: not valid JSON (${reason})`);
	}
	if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Dt64ExportError(`${where}: not a JSON object`);
	const object = json as Record<string, unknown>;
	if (object.zarr_format !== 3) {
		throw new Dt64ExportError(`${where}: zarr_format is ${JSON.stringify(object.zarr_format)}, expected 3`);
	}
	if (object.node_type === "group") return { kind: "group", path, json: object };
	if (object.node_type === "array") return { kind: "array", path, json: object, text };
	throw new Dt64ExportError(`${where}: node_type is ${JSON.stringify(object.node_type)}, expected "array" or "group"`);
}

function positiveIntegers(value: unknown, field: string, where: string, allowZero: boolean): number[] {
	if (!Array.isArray(value) || !value.every((n) => Number.isSafeInteger(n) && (allowZero ? n >= 0 : n > 0))) {
		throw new Dt64ExportError(`${where}: ${field} must be a list of ${allowZero ? "non-negative" : "positive"} integers, got ${JSON.stringify(value)}`);
	}
	return value as number[];
}

export function isTimeArray(node: NodeMetadata): boolean {
	return node.kind === "array" && isTimeDataType(node.json.data_type);
}

/** Validates an array node as an exportable datetime64 array, before any chunk is read. */
export function parseTimeArrayMetadata(node: NodeMetadata, where: string): TimeArrayMetadata {
	if (node.kind !== "array") throw new Dt64ExportError(`${where}: is a group, not an array`);
	const { json } = node;
	if (!isTimeDataType(json.data_type)) {
		throw new Dt64ExportError(`${where}: data type is ${describeDataType(json.data_type)}, not numpy.datetime64`);
	}
	let dataType: Datetime64Type;
	let fillValue: bigint;
	try {
		dataType = parseDatetime64Type(json.data_type);
		fillValue = parseFillValue(rawMemberText(node.text, "fill_value"));
	} catch (error) {
		throw new Dt64ExportError(`${where}: ${(error as Error).message}`);
	}
	return { ...parseArrayLayout(node, where), dataType, fillValue };
}

/** Validates an array node of a plain data type, before any chunk is read. */
export function parsePlainArrayMetadata(node: NodeMetadata, where: string): PlainArrayMetadata {
	if (node.kind !== "array") throw new Dt64ExportError(`${where}: is a group, not an array`);
	let dataType: PlainDataType;
	let fillValue: PlainFill;
	try {
		dataType = parsePlainDataType(node.json.data_type);
		fillValue = parsePlainFillValue(rawMemberText(node.text, "fill_value"), dataType);
	} catch (error) {
		throw new Dt64ExportError(`${where}: ${(error as Error).message}`);
	}
	return { ...parseArrayLayout(node, where), dataType, fillValue };
}

/** Shape, chunk grid, codecs and names of an array node, checked. */
function parseArrayLayout(node: Extract<NodeMetadata, { kind: "array" }>, where: string): ArrayLayout {
	const { json } = node;
	const shape = positiveIntegers(json.shape, "shape", where, true);
	if (shape.reduce((a, b) => a * b, 1) > Number.MAX_SAFE_INTEGER) {
		throw new Dt64ExportError(`${where}: shape ${JSON.stringify(shape)} holds more than 2^53 values`);
	}
	const grid = json.chunk_grid as { name?: unknown; configuration?: { chunk_shape?: unknown } } | undefined;
	if (grid?.name !== "regular") throw new Dt64ExportError(`${where}: chunk_grid ${JSON.stringify(grid?.name)} is not supported (only "regular")`);
	const chunkShape = positiveIntegers(grid.configuration?.chunk_shape, "chunk_grid.configuration.chunk_shape", where, false);
	if (chunkShape.length !== shape.length) {
		throw new Dt64ExportError(`${where}: chunk_shape ${JSON.stringify(chunkShape)} does not match the rank of shape ${JSON.stringify(shape)}`);
	}
	if (!Array.isArray(json.codecs) || json.codecs.some((c) => typeof c !== "object" || c === null || typeof (c as CodecMetadata).name !== "string")) {
		throw new Dt64ExportError(`${where}: codecs must be a list of {"name": ...} objects`);
	}
	const transformers = json.storage_transformers;
	if (Array.isArray(transformers) && transformers.length > 0) {
		throw new Dt64ExportError(`${where}: storage_transformers are not supported`);
	}
	// Checked where they are used (index columns): an export that does not name dimensions does not need them.
	const names = json.dimension_names;
	return {
		path: node.path,
		shape,
		chunkShape,
		rawDataType: json.data_type,
		codecs: json.codecs as CodecMetadata[],
		chunkKeyEncoding: json.chunk_key_encoding ?? { name: "default", configuration: { separator: "/" } },
		...(Array.isArray(names) ? { dimensionNames: names as (string | null)[] } : {}),
		attributes: (json.attributes as Record<string, unknown>) ?? {},
	};
}
