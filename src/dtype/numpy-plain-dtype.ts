import { Dt64ExportError } from "../errors.js";
import { describeNumpyDtype } from "./numpy-dtype-string.js";

/**
 * A Zarr v2 `dtype` of a plain type, as numpy's `dtype.str` spells it (`<f8`, `>u8`, `|b1`, `<U8`), read as the
 * v3 data type the companion-column code already understands, and the byte order of the stored values. Fixed-width
 * unicode `<U n` becomes zarr-python 3's `fixed_length_utf32` with `length_bytes` 4n, and byte strings `|S n` its
 * `null_terminated_bytes` with `length_bytes` n (text only with xarray's `_Encoding` attribute: plain-dtype.ts).
 */
export interface NumpyPlainDtype {
	/** The v3 `data_type`: `"int32"`, `"float64"`... or `{"name": "fixed_length_utf32", "configuration": {"length_bytes": 32}}`. */
	readonly dataType: string | { name: "fixed_length_utf32" | "null_terminated_bytes"; configuration: { length_bytes: number } };
	/** `<` and `|` little-endian (`|` is what numpy writes where byte order does not apply), `>` big-endian. */
	readonly endian: "little" | "big";
	/** Bytes per stored value: blosc's `typesize`. */
	readonly itemBytes: number;
}

const NUMERIC: ReadonlyMap<string, string> = new Map([
	["b1", "bool"],
	["i1", "int8"],
	["i2", "int16"],
	["i4", "int32"],
	["i8", "int64"],
	["u1", "uint8"],
	["u2", "uint16"],
	["u4", "uint32"],
	["u8", "uint64"],
	["f2", "float16"],
	["f4", "float32"],
	["f8", "float64"],
]);

/** Why the dtypes numpy has and companion columns do not are refused: by kind letter (`c`). */
const WHY_NOT: Readonly<Record<string, string>> = {
	c: "Arrow has no complex type",
	V: "raw void bytes have no column type",
};

const PLAIN_DTYPE = /^([<>|=])([a-zA-Z])([0-9]+)$/;

/** Parses a v2 plain dtype string; anything companion columns cannot hold is refused with a message naming `field`. */
export function parseNumpyPlainDtype(dtype: unknown, field = "dtype"): NumpyPlainDtype {
	const refuse = (why: string): never => {
		throw new Dt64ExportError("UNSUPPORTED", `${field} ${describeNumpyDtype(dtype)} cannot be exported as a column (${why})`);
	};
	const match = typeof dtype === "string" ? PLAIN_DTYPE.exec(dtype) : null;
	if (match === null) return refuse(Array.isArray(dtype) ? "structured dtypes have no column type" : "not a numpy dtype of booleans, integers, floats or fixed-width unicode");
	const [, order, kind, digits] = match;
	if (order === "=") return refuse(`native byte order "=" is not portable: expected "<", ">" or "|"`);
	const endian = order === ">" ? "big" : "little";
	const width = Number(digits);
	if (kind === "U") {
		if (!Number.isSafeInteger(width) || width < 1) return refuse("a unicode dtype needs at least one character");
		return { dataType: { name: "fixed_length_utf32", configuration: { length_bytes: 4 * width } }, endian, itemBytes: 4 * width };
	}
	if (kind === "S") {
		if (!Number.isSafeInteger(width) || width < 1) return refuse("a byte string dtype needs at least one byte");
		return { dataType: { name: "null_terminated_bytes", configuration: { length_bytes: width } }, endian: "little", itemBytes: width };
	}
	const name = NUMERIC.get(`${kind}${digits}`);
	if (name !== undefined) return { dataType: name, endian, itemBytes: width };
	return refuse(WHY_NOT[`${kind}${digits}`] ?? WHY_NOT[kind] ?? "not a numpy dtype of booleans, integers, floats or fixed-width unicode");
}
