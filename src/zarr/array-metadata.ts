import { describeDataType, isTimeDataType, parseDatetime64Type, type Datetime64Type } from "../dtype/datetime64.js";
import { parseFillValue, parseV2FillValue } from "../dtype/fill-value.js";
import { describeNumpyDtype } from "../dtype/numpy-dtype-string.js";
import { Dt64ExportError, errorInContext, withErrorFields } from "../errors.js";
import { parseJsonObject } from "../json/parse-json.js";
import { withExactIntegerAttributes } from "../json/exact-integers.js";
import { rawMemberText } from "../json/raw-member.js";
import { parsePlainDataType, parsePlainFillValue, type PlainDataType, type PlainFill } from "./plain-dtype.js";
import { isV2TimeArray, v2ArrayAsV3, v2ValuesOf } from "./v2-metadata.js";
import { missingChunksOf } from "./missing-chunks.js";
import { ARRAY_TO_BYTES_CODECS, KNOWN_CODECS } from "./codecs/codec-names.js";
import { parseDimensionList } from "./dimension-list.js";

export interface CodecMetadata {
	name: string;
	configuration?: Record<string, unknown>;
}

/**
 * The metadata documents of an array, by store key (`temp/zarr.json`; `temp/.zarray` and `temp/.zattrs`; `.zmetadata`
 * for an array read from consolidated metadata): what a METADATA_INVALID error about it names as its `path`.
 */
export interface ArrayDocuments {
	readonly zarrFormat: 2 | 3;
	/** The document of the array's own members: its zarr.json, or its v2 `.zarray`. */
	readonly document: string;
	/** The document of its attributes: its zarr.json too, or its v2 `.zattrs`. */
	readonly attributesDocument: string;
}

/** What every validated array has, whatever its data type: where it is and how it is chunked, in the v3 form. */
export interface ArrayLayout extends ArrayDocuments {
	readonly path: string;
	readonly shape: number[];
	readonly chunkShape: number[];
	/** The data type exactly as the metadata wrote it: zarr.json's `data_type` member, or the v2 `dtype` string. */
	readonly rawDataType: unknown;
	readonly codecs: CodecMetadata[];
	readonly chunkKeyEncoding: unknown;
	readonly dimensionNames?: (string | null)[];
	readonly attributes: Record<string, unknown>;
}

/** A validated `numpy.datetime64` (or timedelta64) array of Zarr v3, or of Zarr v2 read as its v3 equivalent. */
export interface TimeArrayMetadata extends ArrayLayout {
	readonly dataType: Datetime64Type;
	/** The exact int64 a missing chunk holds; null when a v2 array has no fill value, where a missing chunk is an error. */
	readonly fillValue: bigint | null;
}

/**
 * A validated array of a plain data type (bool, integers, floats, strings), exported as a companion column: Zarr
 * v3, or Zarr v2 read as its v3 equivalent.
 */
export interface PlainArrayMetadata extends ArrayLayout {
	readonly dataType: PlainDataType;
	/** What a missing chunk holds, exactly; null when a v2 array has no fill value, where a missing chunk is an error. */
	readonly fillValue: PlainFill | null;
	/**
	 * A v2 object-string array written with `fill_value: null` (as xarray writes one): zarr-python 2 reads a missing
	 * chunk of it as None values, which xarray keeps; its missing chunks are then nulls, not an error.
	 */
	readonly missingChunksAreNull?: boolean;
}

/** An array node as read: a v3 zarr.json, or a v2 `.zarray` (with its `.zattrs`). `text` is the document's exact text. */
export type ArrayNode =
	| ({ kind: "array"; zarrFormat: 3; path: string; json: Record<string, unknown>; text: string } & ArrayDocuments)
	| ({ kind: "array"; zarrFormat: 2; path: string; json: Record<string, unknown>; text: string; attributes: Record<string, unknown> } & ArrayDocuments);

export type NodeMetadata =
	| { kind: "group"; zarrFormat: 3; path: string; json: Record<string, unknown> }
	| { kind: "group"; zarrFormat: 2; path: string; json: Record<string, unknown>; attributes: Record<string, unknown> }
	| ArrayNode;

/** The store key of a node's metadata document `file` (`zarr.json`, `.zarray`...): `temp/zarr.json`, `.zarray` at the root. */
export function documentKey(nodePath: string, file: string): string {
	return nodePath === "" ? file : `${nodePath}/${file}`;
}

/** The members of a v2 `.zarray`: a field of a v2 array's CF attributes that is one of them (its `fill_value`) is there. */
const V2_ARRAY_MEMBERS = new Set(["zarr_format", "shape", "chunks", "dtype", "compressor", "fill_value", "order", "filters", "dimension_separator"]);

/**
 * Gives a METADATA_INVALID error about an array the document it is about as its `path` (unless it names one): the
 * zarr.json of a v3 array; for a v2 array, its `.zarray` for an error `about` the array, its `.zattrs` for one about
 * its attributes, unless the error's `field` is a member of `.zarray` (the fill value a CF mask reads). Returns
 * `error`, to be thrown again.
 */
export function inArrayDocument(error: unknown, array: ArrayDocuments, about: "array" | "attributes" = "array"): unknown {
	const field = error instanceof Dt64ExportError ? error.field : undefined;
	const inAttributes = about === "attributes" && !(array.zarrFormat === 2 && field !== undefined && V2_ARRAY_MEMBERS.has(field));
	return withErrorFields(error, ["METADATA_INVALID"], { path: inAttributes ? array.attributesDocument : array.document });
}

/**
 * An array in the v3 form, the one shape validation works on: `json` has the v3 members, `fillValueText` is the
 * exact JSON text of the fill value, and `rawDataType` the data type as the metadata wrote it.
 */
export interface V3ArrayForm extends ArrayDocuments {
	readonly path: string;
	readonly json: Record<string, unknown>;
	/** A v3 zarr.json's exact text, whose integers JSON.parse may have rounded (a v2 array's are checked as v2). */
	readonly text?: string;
	readonly fillValueText: string | undefined;
	readonly rawDataType: unknown;
}

/** The metadata file of a node, for messages: `zarr.json`, `.zarray` or `.zgroup`. */
export function metadataFileOf(node: NodeMetadata): string {
	if (node.zarrFormat === 3) return "zarr.json";
	return node.kind === "array" ? ".zarray" : ".zgroup";
}

/**
 * Where an array's metadata is, for messages: its own metadata file (`t/zarr.json`, `t/.zarray`), or, when it was read
 * from consolidated metadata that says otherwise than that file (`differs`: stale, see stale-consolidated.ts), the
 * document it was read from (`zarr.json (consolidated metadata of "t")`): a refusal of what only that document holds
 * must name it, not the array's own file.
 */
export function arrayMetadataPlace(node: ArrayNode, differs: boolean): string {
	const own = documentKey(node.path, metadataFileOf(node));
	return node.document === own || !differs ? own : `${node.document} (consolidated metadata of ${JSON.stringify(node.path)})`;
}

/** The `zarr_format` of the draft v3 layout zarr-python 2.11–2.18 wrote with its experimental v3 API. */
const DRAFT_V3_PROTOCOL = "https://purl.org/zarr/spec/protocol/core/3.0";

/**
 * Parses a zarr.json document and says what node it describes. `where` names it in messages; `document` is its store
 * key (another one's for a node in consolidated metadata), the `path` of its errors.
 */
export function parseNodeJson(text: string, path: string, where: string, document = documentKey(path, "zarr.json")): NodeMetadata {
	const object = parseJsonObject(text, where, document);
	if (typeof object.zarr_format === "string" && object.zarr_format.startsWith(DRAFT_V3_PROTOCOL)) {
		throw new Dt64ExportError(
			"UNSUPPORTED",
			`${where}: written in the draft Zarr v3 layout of zarr-python 2's experimental API (zarr_format ${JSON.stringify(object.zarr_format)}, arrays under meta/root/ and data/root/), which the final v3 specification replaced and zarr-python 3 does not read either; write it again as Zarr v2 (zarr-python 2 without zarr_version=3, or xarray's to_zarr) or as Zarr v3 with zarr-python 3`,
			{ path: document, field: "zarr_format" },
		);
	}
	if (object.zarr_format !== 3) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: zarr_format is ${JSON.stringify(object.zarr_format)}, expected 3`, { path: document, field: "zarr_format" });
	}
	if (object.node_type === "group") {
		checkExtensionMembers(object, V3_GROUP_MEMBERS, where, document);
		return { kind: "group", zarrFormat: 3, path, json: object };
	}
	if (object.node_type === "array") return { kind: "array", zarrFormat: 3, path, json: withExactAttributes(object, text), text, document, attributesDocument: document };
	throw new Dt64ExportError("METADATA_INVALID", `${where}: node_type is ${JSON.stringify(object.node_type)}, expected "array" or "group"`, { path: document, field: "node_type" });
}

/** A v3 array's zarr.json with the integers its marker attributes write past 2^53 exact (see exact-integers.ts). */
function withExactAttributes(object: Record<string, unknown>, text: string): Record<string, unknown> {
	const attributes = object.attributes;
	if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes)) return object;
	const attributesText = memberText(text, ["attributes"]);
	if (attributesText === undefined) return object;
	const exact = withExactIntegerAttributes(attributes as Record<string, unknown>, attributesText);
	return exact === attributes ? object : { ...object, attributes: exact };
}

export function isTimeArray(node: NodeMetadata): boolean {
	if (node.kind !== "array") return false;
	return node.zarrFormat === 2 ? isV2TimeArray(node.json) : isTimeDataType(node.json.data_type);
}

/** The v3 form of an array node: a v2 array is translated (and its v2-only fields checked) here. */
export function v3FormOf(node: ArrayNode, where: string): V3ArrayForm {
	if (node.zarrFormat === 2) return v2ArrayAsV3(node, where);
	const { path, zarrFormat, document, attributesDocument } = node;
	return { path, zarrFormat, document, attributesDocument, json: node.json, text: node.text, fillValueText: rawMemberText(node.text, "fill_value"), rawDataType: node.json.data_type };
}

/**
 * For an array asked for as a time array that is data a column can hold (an xarray data variable, `t2m`): where it
 * is exported, as a column of its group's table. Empty for one no column holds, and for the store root.
 */
function dataVariableHint(node: { zarrFormat: 2 | 3; path: string; json: Record<string, unknown> }): string {
	// An array that is the store itself has no group to be a column of.
	if (node.path === "") return "";
	try {
		parsePlainDataType(node.zarrFormat === 2 ? v2ValuesOf(node.json, "null").dataType : node.json.data_type, {});
	} catch {
		return "";
	}
	return "; it is data, exported as a column of its group's table (`columns`, with `index` for its dimensions' coordinates)";
}

/** Validates an array node as an exportable datetime64 array, before any chunk is read. */
export function parseTimeArrayMetadata(node: NodeMetadata, where: string): TimeArrayMetadata {
	if (node.kind !== "array") throw new Dt64ExportError("ARRAY_NOT_FOUND", `${where}: is a group, not an array`, { path: node.path });
	// Said in v2's own terms, before a plain dtype is translated (or refused as a column) for nothing.
	if (node.zarrFormat === 2 && !isV2TimeArray(node.json)) {
		throw new Dt64ExportError("UNSUPPORTED", `${where}: dtype ${describeNumpyDtype(node.json.dtype)} is not supported: not numpy.datetime64 (M8) or numpy.timedelta64 (m8)${dataVariableHint(node)}`);
	}
	try {
		return parseV3Form(v3FormOf(node, where), where);
	} catch (error) {
		throw inArrayDocument(error, node);
	}
}

function parseV3Form(form: V3ArrayForm, where: string): TimeArrayMetadata {
	const { json } = form;
	if (!isTimeDataType(json.data_type)) {
		throw new Dt64ExportError("UNSUPPORTED", `${where}: data type is ${describeDataType(json.data_type)}, not numpy.datetime64 or numpy.timedelta64${form.zarrFormat === 3 ? dataVariableHint(form) : ""}`);
	}
	let dataType: Datetime64Type;
	let fillValue: bigint | null;
	try {
		dataType = parseDatetime64Type(json.data_type);
	} catch (error) {
		throw errorInContext(where, error, "METADATA_INVALID", { field: form.zarrFormat === 2 ? "dtype" : "data_type" });
	}
	try {
		// v2 writes `null` for "no fill value"; v3 has no such thing.
		fillValue = form.zarrFormat === 2 ? (form.fillValueText?.trim() === "null" ? null : parseV2FillValue(form.fillValueText, dataType)) : parseFillValue(form.fillValueText);
	} catch (error) {
		throw errorInContext(where, error, "METADATA_INVALID", { field: "fill_value" });
	}
	return { ...parseArrayLayout(form, where), dataType, fillValue };
}

/** A node's attributes: a v2 node's `.zattrs`, a v3 node's `attributes` member (none when it is no object). */
export function attributesOf(node: NodeMetadata): Record<string, unknown> {
	if (node.zarrFormat === 2) return node.attributes;
	const attributes = node.json.attributes;
	return typeof attributes === "object" && attributes !== null && !Array.isArray(attributes) ? (attributes as Record<string, unknown>) : {};
}

/** Validates an array node of a plain data type, before any chunk is read. */
export function parsePlainArrayMetadata(node: NodeMetadata, where: string): PlainArrayMetadata {
	if (node.kind !== "array") throw new Dt64ExportError("ARRAY_NOT_FOUND", `${where}: is a group, not an array`, { path: node.path });
	try {
		const form = v3FormOf(node, where);
		let dataType: PlainDataType;
		let fillValue: PlainFill | null;
		try {
			dataType = parsePlainDataType(form.json.data_type, attributesOf(node));
		} catch (error) {
			throw errorInContext(where, error, "METADATA_INVALID", { field: node.zarrFormat === 2 ? "dtype" : "data_type" });
		}
		try {
			// v2 writes `null` for "no fill value"; v3 has no such thing.
			fillValue = form.zarrFormat === 2 && form.fillValueText?.trim() === "null" ? null : parsePlainFillValue(form.fillValueText, dataType);
		} catch (error) {
			throw errorInContext(where, error, "METADATA_INVALID", { field: "fill_value" });
		}
		// Only an explicit null: zarr-python 2's default for object arrays, 0, reads a missing chunk as the integer 0.
		const missingChunksAreNull = missingChunksOf(node) === "null";
		return { ...parseArrayLayout(form, where), dataType, fillValue, ...(missingChunksAreNull ? { missingChunksAreNull } : {}) };
	} catch (error) {
		throw inArrayDocument(error, node);
	}
}

/** The members of a v3 array's zarr.json the core spec defines. */
const V3_ARRAY_MEMBERS: ReadonlySet<string> = new Set(["zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs", "attributes", "storage_transformers", "dimension_names"]);

/**
 * The members of a v3 group's zarr.json this reader knows: the core spec's, and zarr-python 3's inline
 * `consolidated_metadata`, which it reads (store-tree.ts).
 */
const V3_GROUP_MEMBERS: ReadonlySet<string> = new Set(["zarr_format", "node_type", "attributes", "consolidated_metadata"]);

/**
 * The v3 spec lets zarr.json carry extension members, an array's or a group's alike: one this reader does not know
 * may be ignored only if it says `"must_understand": false`; any other could change what the values mean (an offset,
 * a mask) or how a group's members are found, so the node is refused rather than read as if it were not there.
 * `document`: the error's `path` where it is known (a group's zarr.json; an array's is set by inArrayDocument).
 */
function checkExtensionMembers(json: Record<string, unknown>, known: ReadonlySet<string>, where: string, document?: string): void {
	for (const [name, value] of Object.entries(json)) {
		if (known.has(name)) continue;
		const optional = typeof value === "object" && value !== null && (value as { must_understand?: unknown }).must_understand === false;
		if (!optional) {
			throw new Dt64ExportError("UNSUPPORTED", `${where}: zarr.json member ${JSON.stringify(name)} is an extension this reader does not know, and it does not say "must_understand": false`, {
				...(document === undefined ? {} : { path: document }),
				field: name,
			});
		}
	}
}

/** The exact text of a member nested in a JSON document's text (`["chunk_grid", "configuration", "chunk_shape"]`). */
function memberText(text: string | undefined, names: readonly string[]): string | undefined {
	try {
		return names.reduce<string | undefined>((inner, name) => (inner === undefined ? undefined : rawMemberText(inner, name)), text);
	} catch {
		// A member on the way is no object: its own check says what is wrong with it.
		return undefined;
	}
}

/**
 * The v3 spec requires exactly one array -> bytes codec in an array's codecs (bytes, sharding_indexed, vlen-utf8);
 * a list of none (`[]`, only compressors) is refused rather than read as if `bytes` were there. A codec this reader
 * does not know may be one (an extension's): the list is then left to the codec pipeline, which names it.
 */
function checkArrayToBytesCodec(codecs: readonly CodecMetadata[], where: string): void {
	if (codecs.some((codec) => ARRAY_TO_BYTES_CODECS.has(codec.name) || !KNOWN_CODECS.has(codec.name))) return;
	throw new Dt64ExportError("METADATA_INVALID", `${where}: codecs ${JSON.stringify(codecs.map((codec) => codec.name))} has no array -> bytes codec (bytes, sharding_indexed...), which the spec requires exactly one of`, { field: "codecs" });
}

/**
 * v3 `dimension_names`, when present: one string or null per dimension of the shape, as the spec requires (a list of
 * another length named the index columns dim_0... silently). `null` is taken for absent, as zarr-python reads it.
 */
function checkDimensionNames(json: Record<string, unknown>, shape: readonly number[], where: string): void {
	const names = json.dimension_names;
	if (names === undefined || names === null) return;
	const valid = Array.isArray(names) && names.length === shape.length && names.every((name) => name === null || typeof name === "string");
	if (valid) return;
	const why = Array.isArray(names) && names.length !== shape.length ? `has ${names.length} ${names.length === 1 ? "name" : "names"} for the ${shape.length} dimensions of shape ${JSON.stringify(shape)}` : "must be a list of strings or nulls, one per dimension";
	throw new Dt64ExportError("METADATA_INVALID", `${where}: dimension_names ${JSON.stringify(names)} ${why}`, { field: "dimension_names" });
}

/** Shape, chunk grid, codecs and names of an array in the v3 form, checked. */
function parseArrayLayout(form: V3ArrayForm, where: string): ArrayLayout {
	const { json } = form;
	const shape = parseDimensionList(json.shape, memberText(form.text, ["shape"]), "shape", 0, `${where}: `);
	if (shape.reduce((a, b) => a * b, 1) > Number.MAX_SAFE_INTEGER) {
		throw new Dt64ExportError("TOO_LARGE", `${where}: shape ${JSON.stringify(shape)} holds more than 2^53 values`);
	}
	const grid = json.chunk_grid as { name?: unknown; configuration?: { chunk_shape?: unknown } } | undefined;
	if (grid?.name !== "regular") throw new Dt64ExportError("UNSUPPORTED", `${where}: chunk_grid ${JSON.stringify(grid?.name)} is not supported (only "regular")`);
	const chunkShapeText = memberText(form.text, ["chunk_grid", "configuration", "chunk_shape"]);
	const chunkShape = parseDimensionList(grid.configuration?.chunk_shape, chunkShapeText, "chunk_grid.configuration.chunk_shape", 1, `${where}: `);
	if (chunkShape.length !== shape.length) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: chunk_shape ${JSON.stringify(chunkShape)} does not match the rank of shape ${JSON.stringify(shape)}`, { field: "chunk_grid.configuration.chunk_shape" });
	}
	if (!Array.isArray(json.codecs) || json.codecs.some((c) => typeof c !== "object" || c === null || typeof (c as CodecMetadata).name !== "string")) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: codecs must be a list of {"name": ...} objects`, { field: "codecs" });
	}
	if (form.zarrFormat === 3) {
		checkExtensionMembers(json, V3_ARRAY_MEMBERS, where, form.document);
		checkArrayToBytesCodec(json.codecs as CodecMetadata[], where);
		checkDimensionNames(json, shape, where);
	}
	const transformers = json.storage_transformers;
	if (Array.isArray(transformers) && transformers.length > 0) {
		throw new Dt64ExportError("UNSUPPORTED", `${where}: storage_transformers are not supported`);
	}
	// Checked where they are used (index columns): an export that does not name dimensions does not need them.
	const names = json.dimension_names;
	return {
		path: form.path,
		zarrFormat: form.zarrFormat,
		document: form.document,
		attributesDocument: form.attributesDocument,
		shape,
		chunkShape,
		rawDataType: form.rawDataType,
		codecs: json.codecs as CodecMetadata[],
		chunkKeyEncoding: json.chunk_key_encoding ?? { name: "default", configuration: { separator: "/" } },
		...(Array.isArray(names) ? { dimensionNames: names as (string | null)[] } : {}),
		attributes: (json.attributes as Record<string, unknown>) ?? {},
	};
}
