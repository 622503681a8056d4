/**
 * xarray's `_Unsigned` attribute (netCDF's convention for unsigned data in signed storage; xarray's
 * UnsignedIntegerCoder), the first CF decoding step, before masking, unpacking and CF time: `"true"` on a signed
 * integer array reads the same bytes as the unsigned integers of its width, `"false"` on an unsigned one as the
 * signed integers. The `_FillValue` (Zarr v2: the array's `fill_value`, which xarray makes the `_FillValue`) is
 * converted into that type as numpy converts it (the int8 -1 is the uint8 255); `missing_value` is compared as
 * written, as xarray leaves it. Any other data type or value leaves the attribute unapplied, as xarray does.
 */
import type { PlainArrayMetadata } from "../zarr/array-metadata.js";
import { parsePlainDataType, type PlainFill, type PlainTypeName } from "../zarr/plain-dtype.js";

/** What `_Unsigned` makes of an array: its stored type, read as `read`. */
export interface UnsignedCoding {
	readonly stored: PlainTypeName;
	readonly read: PlainTypeName;
	/** The attribute's value. */
	readonly unsigned: "true" | "false";
}

const WIDTHS: Readonly<Partial<Record<PlainTypeName, number>>> = { int8: 8, int16: 16, int32: 32, int64: 64, uint8: 8, uint16: 16, uint32: 32, uint64: 64 };

export function unsignedCodingOf(metadata: Pick<PlainArrayMetadata, "dataType" | "attributes">): UnsignedCoding | undefined {
	const unsigned = metadata.attributes._Unsigned;
	const stored = metadata.dataType.name;
	const bits = WIDTHS[stored];
	if (bits === undefined) return undefined;
	const signed = stored.startsWith("int");
	if (unsigned === "true" && signed) return { stored, read: `uint${bits}` as PlainTypeName, unsigned };
	if (unsigned === "false" && !signed) return { stored, read: `int${bits}` as PlainTypeName, unsigned };
	return undefined;
}

/** An integer in `type`, as numpy's conversion wraps it. */
function wrapped(value: bigint, type: PlainTypeName): bigint {
	const bits = WIDTHS[type] as number;
	return type.startsWith("uint") ? BigInt.asUintN(bits, value) : BigInt.asIntN(bits, value);
}

function wrappedAttribute(value: unknown, type: PlainTypeName): unknown {
	if (Array.isArray(value)) return value.map((item) => wrappedAttribute(item, type));
	// A fraction or a float past 2^53 is left for the masking to refuse or ignore, as written; an integer written
	// past 2^53 is a bigint (exact-integers.ts), wrapped as the others.
	if (typeof value !== "bigint" && (typeof value !== "number" || !Number.isSafeInteger(value))) return value;
	const result = wrapped(BigInt(value), type);
	return Number.isSafeInteger(Number(result)) ? Number(result) : result;
}

/** The array as CF decoding reads it when `_Unsigned` applies (the same bytes, another type); else as it is. */
export function withUnsignedCoding(metadata: PlainArrayMetadata): PlainArrayMetadata {
	const coding = unsignedCodingOf(metadata);
	if (coding === undefined) return metadata;
	const fillValue: PlainFill | null = metadata.fillValue?.kind === "integer" ? { kind: "integer", value: wrapped(metadata.fillValue.value, coding.read) } : metadata.fillValue;
	const { _FillValue: fill, ...others } = metadata.attributes;
	const attributes = fill === undefined || fill === null ? metadata.attributes : { ...others, _FillValue: wrappedAttribute(fill, coding.read) };
	return { ...metadata, dataType: parsePlainDataType(coding.read), fillValue, attributes };
}
