/**
 * The Zarr v3 core data types exported as companion columns next to datetime64 ones: booleans, integers,
 * floats (half floats widened to float32, see half-float.ts), variable-length strings and fixed-width unicode
 * (`fixed_length_utf32`, numpy's `<U n`), with their fill values read exactly (int64 and uint64 from the JSON text,
 * floats including "NaN", "Infinity", "-Infinity" and the hex bit patterns of the v3 spec).
 */
import { Dt64ExportError } from "../errors.js";
import type { ChunkValues } from "./chunk-values.js";
import { decodeEncodedBytesText, encodedBytesFillText, isUtf8EncodingName } from "./encoded-bytes-text.js";
import { decodeFixedUtf32 } from "./fixed-utf32.js";
import { float32BitsOfHalf, halfBitsOf, widenHalfFloats } from "./half-float.js";

export type PlainTypeName = "bool" | "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64" | "float16" | "float32" | "float64" | "string";

/** How chunks of one data type are held in memory and how zarrita is asked to decode them. */
export interface PlainDataType {
	readonly name: PlainTypeName;
	/** The data type zarrita decodes the chunk bytes as: bool is read as uint8, its on-disk layout. */
	readonly zarritaType: string;
	/** Bytes per stored value (what the codecs decode); undefined for variable-length strings. */
	readonly itemBytes: number | undefined;
	/** Text stored as byte strings (numpy's `|S n` with xarray's `_Encoding`): its fill value is base64 of its bytes. */
	readonly encodedBytes?: true;
	/** Turns what zarrita decoded into this package's values, where they differ (its fixed-width string arrays). */
	readonly valuesOf?: (decoded: unknown) => ChunkValues;
	/** A chunk of `size` values all equal to the fill value, bit for bit. */
	fillChunk(size: number, fill: PlainFill): ChunkValues;
}

/** A fill value as the data type needs it: an exact bigint for 64-bit integers, the raw bits for floats. */
export type PlainFill = { readonly kind: "integer"; readonly value: bigint } | { readonly kind: "float"; readonly bits: bigint; readonly text: string } | { readonly kind: "string"; readonly value: string };

type TypedArrayConstructor = new (length: number) => Exclude<ChunkValues, string[]>;

function integerType(name: PlainTypeName, Ctor: TypedArrayConstructor, bytes: number): PlainDataType {
	return {
		name,
		zarritaType: name === "bool" ? "uint8" : name,
		itemBytes: bytes,
		fillChunk(size, fill) {
			const out = new Ctor(size);
			const value = (fill as { value: bigint }).value;
			if (value !== 0n) (out as { fill(value: number | bigint): unknown }).fill(bytes === 8 ? value : Number(value));
			return out;
		},
	};
}

function floatType(name: "float32" | "float64"): PlainDataType {
	const bytes = name === "float32" ? 4 : 8;
	return {
		name,
		zarritaType: name,
		itemBytes: bytes,
		fillChunk(size, fill) {
			const { bits } = fill as { bits: bigint };
			// Filled through an integer view: a NaN's payload survives, which `Float64Array.fill(NaN)` need not keep.
			if (bytes === 4) {
				const out = new Float32Array(size);
				if (bits !== 0n) new Uint32Array(out.buffer).fill(Number(bits));
				return out;
			}
			const out = new Float64Array(size);
			if (bits !== 0n) new BigUint64Array(out.buffer).fill(bits);
			return out;
		},
	};
}

/**
 * Half floats: the chunks' bytes are read as their 16-bit patterns and widened to float32 bit for bit, the values
 * every later step (masking, unpacking, CF time, Arrow) sees; the fill value's bits are widened the same way.
 */
const HALF_FLOAT: PlainDataType = {
	name: "float16",
	zarritaType: "uint16",
	itemBytes: 2,
	valuesOf: (decoded) => widenHalfFloats(decoded as Uint16Array),
	fillChunk(size, fill) {
		const out = new Float32Array(size);
		const { bits } = fill as { bits: bigint };
		if (bits !== 0n) new Uint32Array(out.buffer).fill(float32BitsOfHalf(Number(bits)));
		return out;
	},
};

const PLAIN_TYPES: ReadonlyMap<string, PlainDataType> = new Map<string, PlainDataType>([
	["bool", integerType("bool", Uint8Array, 1)],
	["int8", integerType("int8", Int8Array, 1)],
	["int16", integerType("int16", Int16Array, 2)],
	["int32", integerType("int32", Int32Array, 4)],
	["int64", integerType("int64", BigInt64Array, 8)],
	["uint8", integerType("uint8", Uint8Array, 1)],
	["uint16", integerType("uint16", Uint16Array, 2)],
	["uint32", integerType("uint32", Uint32Array, 4)],
	["uint64", integerType("uint64", BigUint64Array, 8)],
	["float16", HALF_FLOAT],
	["float32", floatType("float32")],
	["float64", floatType("float64")],
	[
		"string",
		{
			name: "string",
			zarritaType: "string",
			itemBytes: undefined,
			fillChunk: (size, fill) => new Array<string>(size).fill((fill as { value: string }).value),
		},
	],
]);

const FIXED_LENGTH_UTF32 = "fixed_length_utf32";

/** numpy's `<U n`: zarrita decodes it as its `v2:U<n>` array of UTF-32 code units, read here as strings. */
function fixedUtf32Type(chars: number): PlainDataType {
	return {
		name: "string",
		zarritaType: `v2:U${chars}`,
		itemBytes: 4 * chars,
		valuesOf(decoded) {
			const { buffer, byteOffset, byteLength } = decoded as { buffer: ArrayBufferLike; byteOffset: number; byteLength: number };
			return decodeFixedUtf32(new Uint32Array(buffer, byteOffset, byteLength / 4), chars);
		},
		fillChunk: (size, fill) => new Array<string>(size).fill((fill as { value: string }).value),
	};
}

const NULL_TERMINATED_BYTES = "null_terminated_bytes";

/** numpy's `|S n` holding text in the encoding of xarray's `_Encoding` attribute (see encoded-bytes-text.ts). */
function encodedBytesTextType(width: number): PlainDataType {
	return {
		name: "string",
		zarritaType: `v2:S${width}`,
		itemBytes: width,
		encodedBytes: true,
		valuesOf(decoded) {
			const { buffer, byteOffset, byteLength } = decoded as { buffer: ArrayBufferLike; byteOffset: number; byteLength: number };
			return decodeEncodedBytesText(new Uint8Array(buffer, byteOffset, byteLength), width);
		},
		fillChunk: (size, fill) => new Array<string>(size).fill((fill as { value: string }).value),
	};
}

/** The `length_bytes` of a `null_terminated_bytes` data type, or undefined when it is not one. */
function nullTerminatedBytesWidth(dataType: unknown): number | undefined {
	if (typeof dataType !== "object" || dataType === null || (dataType as { name?: unknown }).name !== NULL_TERMINATED_BYTES) return undefined;
	const bytes = (dataType as { configuration?: { length_bytes?: unknown } }).configuration?.length_bytes;
	if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes <= 0) {
		throw new Dt64ExportError("METADATA_INVALID", `data type ${NULL_TERMINATED_BYTES}: configuration.length_bytes must be a positive integer, got ${JSON.stringify(bytes)}`, { field: "data_type" });
	}
	return bytes;
}

/** Text stored as byte strings is read only as UTF-8 named by xarray's `_Encoding`; why not otherwise. */
function encodedBytesTextOf(width: number, attributes: Readonly<Record<string, unknown>>): PlainDataType {
	const encoding = attributes._Encoding;
	if (isUtf8EncodingName(encoding)) return encodedBytesTextType(width);
	const why =
		encoding === undefined
			? 'fixed-width byte strings are raw bytes, not text, unless an _Encoding attribute names their encoding (xarray writes _Encoding: "utf-8"); store text as <U or as object strings with the vlen-utf8 filter'
			: `byte strings in the encoding ${JSON.stringify(encoding)} of their _Encoding attribute: only UTF-8 is read`;
	throw new Dt64ExportError("UNSUPPORTED", `data type ${NULL_TERMINATED_BYTES} (numpy "|S${width}") cannot be exported as a column (${why})`);
}

/** The `length_bytes` of a `fixed_length_utf32` data type, or undefined when it is not one. */
function fixedUtf32Chars(dataType: unknown): number | undefined {
	if (typeof dataType !== "object" || dataType === null || (dataType as { name?: unknown }).name !== FIXED_LENGTH_UTF32) return undefined;
	const bytes = (dataType as { configuration?: { length_bytes?: unknown } }).configuration?.length_bytes;
	if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes <= 0 || bytes % 4 !== 0) {
		throw new Dt64ExportError("METADATA_INVALID", `data type ${FIXED_LENGTH_UTF32}: configuration.length_bytes must be a positive multiple of 4, got ${JSON.stringify(bytes)}`, { field: "data_type" });
	}
	return bytes / 4;
}

const INTEGER_RANGES: Readonly<Partial<Record<PlainTypeName, readonly [bigint, bigint]>>> = {
	int8: [-(2n ** 7n), 2n ** 7n - 1n],
	int16: [-(2n ** 15n), 2n ** 15n - 1n],
	int32: [-(2n ** 31n), 2n ** 31n - 1n],
	int64: [-(2n ** 63n), 2n ** 63n - 1n],
	uint8: [0n, 2n ** 8n - 1n],
	uint16: [0n, 2n ** 16n - 1n],
	uint32: [0n, 2n ** 32n - 1n],
	uint64: [0n, 2n ** 64n - 1n],
};

const WHY_NOT: Readonly<Record<string, string>> = {
	complex64: "Arrow has no complex type",
	complex128: "Arrow has no complex type",
};

/**
 * The plain data type of a `data_type` member, or a one-line reason it cannot be a column. The array's attributes
 * say whether byte strings are text (xarray's `_Encoding`).
 */
export function parsePlainDataType(dataType: unknown, attributes: Readonly<Record<string, unknown>> = {}): PlainDataType {
	const chars = fixedUtf32Chars(dataType);
	if (chars !== undefined) return fixedUtf32Type(chars);
	const width = nullTerminatedBytesWidth(dataType);
	if (width !== undefined) return encodedBytesTextOf(width, attributes);
	const type = typeof dataType === "string" ? PLAIN_TYPES.get(dataType) : undefined;
	if (type !== undefined) return type;
	const coreName = coreTypeNameOfObject(dataType);
	if (coreName !== undefined) {
		throw new Dt64ExportError(
			"UNSUPPORTED",
			`data type ${JSON.stringify(dataType)} cannot be exported as a column: a core data type is named by its string, ${JSON.stringify(coreName)}, as the v3 spec writes it (zarr-python 3 refuses the object form too)`,
		);
	}
	const name = typeof dataType === "string" ? dataType : JSON.stringify(dataType);
	const why = typeof dataType === "string" ? WHY_NOT[dataType] : undefined;
	throw new Dt64ExportError("UNSUPPORTED", `data type ${name} cannot be exported as a column${why ? ` (${why})` : ""}`);
}

/** The name of a core data type written as an object (`{"name": "uint8"}`), which the spec writes as a string only. */
export function coreTypeNameOfObject(dataType: unknown): string | undefined {
	const name = typeof dataType === "object" && dataType !== null ? (dataType as { name?: unknown }).name : undefined;
	return typeof name === "string" && PLAIN_TYPES.has(name) ? name : undefined;
}

/**
 * Whether a data type is one of the companion column types, read or refused by parsePlainDataType (a core type written
 * as an object is one it refuses, saying why: inspect shows that reason as the export gives it).
 */
export function isPlainDataType(dataType: unknown): boolean {
	const name = typeof dataType === "object" ? (dataType as { name?: unknown } | null)?.name : undefined;
	return (typeof dataType === "string" && PLAIN_TYPES.has(dataType)) || name === FIXED_LENGTH_UTF32 || name === NULL_TERMINATED_BYTES || coreTypeNameOfObject(dataType) !== undefined;
}

const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;
const FLOAT_SPECIALS: Readonly<Record<string, number>> = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

function floatBits(value: number, bytes: 2 | 4 | 8): bigint {
	if (bytes === 2) return BigInt(halfBitsOf(value));
	const buffer = new ArrayBuffer(8);
	if (bytes === 4) {
		new Float32Array(buffer)[0] = value;
		return BigInt(new Uint32Array(buffer)[0]);
	}
	new Float64Array(buffer)[0] = value;
	return new BigUint64Array(buffer)[0];
}

/**
 * Parses the `fill_value` of a plain array from its exact JSON text (see `rawMemberText`). Integers must be
 * integer literals in range (a 64-bit one is kept exact, not rounded through a double); floats a JSON number, one
 * of "NaN", "Infinity", "-Infinity", or "0x" and the hex digits of the value's bits; booleans true or false.
 */
export function parsePlainFillValue(rawText: string | undefined, type: PlainDataType): PlainFill {
	if (rawText === undefined) throw new Dt64ExportError("METADATA_INVALID", "fill_value: missing", { field: "fill_value" });
	const text = rawText.trim();
	const refuse = (expected: string): never => {
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: expected ${expected} for data type ${type.name}, got ${text}`, { field: "fill_value" });
	};
	if (type.name === "bool") {
		if (text === "true") return { kind: "integer", value: 1n };
		if (text === "false") return { kind: "integer", value: 0n };
		return refuse("true or false");
	}
	if (type.encodedBytes) return { kind: "string", value: encodedBytesFillText(text, type.itemBytes as number) };
	if (type.name === "string") {
		const value: unknown = text.startsWith('"') ? JSON.parse(text) : undefined;
		if (typeof value !== "string") return refuse("a JSON string");
		if (type.itemBytes === undefined) return { kind: "string", value };
		// Fixed width: stored padded with NULs, read back without them, as every value of the array is.
		const chars = type.itemBytes / 4;
		if ([...value].length > chars) throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} is longer than the ${chars} characters of the data type`, { field: "fill_value" });
		return { kind: "string", value: value.replace(/\0+$/, "") };
	}
	const range = INTEGER_RANGES[type.name];
	if (range !== undefined) {
		if (!INTEGER_LITERAL.test(text)) return refuse("an integer literal");
		const value = BigInt(text);
		if (value < range[0] || value > range[1]) throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} is outside the ${type.name} range [${range[0]}, ${range[1]}]`, { field: "fill_value" });
		return { kind: "integer", value };
	}
	const bytes = type.itemBytes as 2 | 4 | 8;
	if (text.startsWith('"')) {
		const value: unknown = JSON.parse(text);
		if (typeof value === "string" && value in FLOAT_SPECIALS) return { kind: "float", bits: floatBits(FLOAT_SPECIALS[value], bytes), text: value };
		if (typeof value === "string" && new RegExp(`^0x[0-9a-fA-F]{${2 * bytes}}$`).test(value)) return { kind: "float", bits: BigInt(value), text: value };
		return refuse(`a number, "NaN", "Infinity", "-Infinity" or "0x" and ${2 * bytes} hex digits`);
	}
	const value = Number(text);
	if (!/^-?[0-9]/.test(text) || !Number.isFinite(value)) return refuse("a number");
	return { kind: "float", bits: floatBits(value, bytes), text };
}

/** The fill value as inspect shows it: exact integers, floats as written. */
export function formatPlainFill(fill: PlainFill): string {
	switch (fill.kind) {
		case "integer":
			return fill.value.toString();
		case "float":
			return fill.text;
		case "string":
			return JSON.stringify(fill.value);
	}
}
