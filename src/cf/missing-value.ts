/**
 * The CF missing-value markers of a variable, as xarray's `decode_cf` reads them from Zarr: for Zarr v2 the
 * array's `fill_value` (xarray turns it into `_FillValue`; a `_FillValue` attribute counts only when the array has
 * none), for Zarr v3 the `_FillValue` attribute (xarray does not treat the v3 `fill_value` as missing), and in both
 * `missing_value`, a number or a list of numbers; in an int64 array numpy's NaT too. A value equal to a marker is
 * missing; so is every NaN of a float array. What every CF time export decodes with, and the CF core's.
 */
import { Dt64ExportError } from "../errors.js";
import { halfComparand, halfValue } from "../zarr/half-float.js";
import type { PlainFill, PlainTypeName } from "../zarr/plain-dtype.js";

export interface MissingValueMarkers {
	/** Markers of an integer array, exact; only markers inside the data type's range are kept. */
	readonly integers: ReadonlySet<bigint>;
	/** The same markers as numbers, for arrays of up to 32-bit integers (read as numbers). */
	readonly smallIntegers: ReadonlySet<number>;
	/**
	 * Markers of a float array, as values of its data type (float32 markers rounded as numpy compares them, half
	 * float ones as halfComparand says: half floats are held widened to float32).
	 */
	readonly floats: ReadonlySet<number>;
	/** NaN is missing in every float array. */
	readonly nanIsMissing: boolean;
}

export interface MissingValueSource {
	readonly zarrFormat: 2 | 3;
	readonly dataType: PlainTypeName;
	readonly attributes: Record<string, unknown>;
	/** The array's fill value (v2 `fill_value`), null when there is none. */
	readonly fillValue: PlainFill | null;
}

/**
 * Where a variable's `_FillValue` is, as xarray reads it from Zarr: for v2 the array's `fill_value` (its zarr backend
 * sets the attribute from it), or the `_FillValue` attribute when the array has none (`fill_value: null`); for v3
 * the attribute. One rule for CF time and for the masking of companion columns (masking.ts).
 */
export type CfFillValue = { readonly kind: "fill"; readonly fill: PlainFill } | { readonly kind: "attribute"; readonly value: unknown } | undefined;

export function cfFillValueOf(source: Pick<MissingValueSource, "zarrFormat" | "attributes" | "fillValue">): CfFillValue {
	if (source.zarrFormat === 2 && source.fillValue !== null) return { kind: "fill", fill: source.fillValue };
	const value = source.attributes._FillValue;
	return value === undefined || value === null ? undefined : { kind: "attribute", value };
}

const FLOAT_WORDS: Readonly<Record<string, number>> = { NaN: NaN, nan: NaN, Infinity: Infinity, inf: Infinity, "-Infinity": -Infinity, "-inf": -Infinity };

function floatOfBits(bits: bigint, dataType: PlainTypeName): number {
	if (dataType === "float16") return halfValue(Number(bits));
	const buffer = new ArrayBuffer(8);
	if (dataType === "float32") {
		new Uint32Array(buffer)[0] = Number(bits);
		return new Float32Array(buffer)[0];
	}
	new BigUint64Array(buffer)[0] = bits;
	return new Float64Array(buffer)[0];
}

/**
 * A marker of an attribute: a number, a bigint (an integer written past 2^53, read exactly: exact-integers.ts), or a
 * float word xarray and zarr write ("NaN", "Infinity"). For an integer array it must be exact: a float past 2^53 (a
 * fraction or an exponent in its text) is refused, which numpy would compare through doubles.
 */
function attributeMarker(value: unknown, name: string, integerArray: boolean): number | bigint {
	if (typeof value === "string" && value in FLOAT_WORDS) return FLOAT_WORDS[value];
	// A 64-bit _FillValue `_Unsigned` converted (unsigned-coding.ts), exact.
	if (typeof value === "bigint") return integerArray ? value : Number(value);
	if (typeof value !== "number") throw new Dt64ExportError("METADATA_INVALID", `attribute ${name} ${JSON.stringify(value)} is not a number`, { field: name });
	if (!integerArray || !Number.isInteger(value)) return value;
	if (!Number.isSafeInteger(value)) refuseFloatPast2p53(`attribute ${name}`, value, "integer");
	return BigInt(value);
}

/**
 * A marker (or bound) of integer data that is a float past 2^53: an integer written with a fraction or an exponent
 * (`1e19`, `9519333550154345791.0`) is read as a double, and numpy compares integers with it through doubles,
 * marking every value that rounds to it. Refused rather than marking a guess. An integer written as one is exact.
 */
export function refuseFloatPast2p53(what: string, value: number, type: string): never {
	throw new Dt64ExportError("UNSUPPORTED", `${what} ${value} of ${type === "integer" ? "an integer array" : `${type} data`} is a float past 2^53 (written with a fraction or an exponent), which cannot mark integers exactly; write it as an integer`);
}

function attributeMarkers(attributes: Record<string, unknown>, name: string, integerArray: boolean): (number | bigint)[] {
	const value = attributes[name];
	if (value === undefined || value === null) return [];
	return (Array.isArray(value) ? value : [value]).map((item) => attributeMarker(item, name, integerArray));
}

function fillMarker(fill: PlainFill, dataType: PlainTypeName): number | bigint {
	if (fill.kind === "integer") return fill.value;
	if (fill.kind === "float") return floatOfBits(fill.bits, dataType);
	throw new Dt64ExportError("METADATA_INVALID", `a ${dataType} array has the string fill value ${JSON.stringify(fill.value)}`, { field: "fill_value" });
}

const INTEGER_BITS: Readonly<Partial<Record<PlainTypeName, [boolean, number]>>> = {
	int8: [true, 8],
	int16: [true, 16],
	int32: [true, 32],
	int64: [true, 64],
	uint8: [false, 8],
	uint16: [false, 16],
	uint32: [false, 32],
	uint64: [false, 64],
};

export function isFloatType(dataType: PlainTypeName): boolean {
	return dataType === "float16" || dataType === "float32" || dataType === "float64";
}

/**
 * numpy's NaT as an int64 count (-2^63): what xarray writes for NaT when it encodes times or durations to int64
 * without a `_FillValue` (xarray 2023.01 reads it back as NaT in nanoseconds, and as its reference date in coarser
 * units, where -2^63 of them overflows).
 */
const NUMPY_NAT_COUNT = -(2n ** 63n);

/**
 * The missing-value markers of a CF time variable (see above), as every export decodes it, and in an int64 array
 * numpy's NaT, which no time or duration count can otherwise be (-2^63 seconds is 292 billion years).
 */
export function cfMissingValueMarkers(source: MissingValueSource): MissingValueMarkers {
	const { zarrFormat, dataType, attributes, fillValue } = source;
	const float = isFloatType(dataType);
	const bits = INTEGER_BITS[dataType];
	const markers: (number | bigint)[] = attributeMarkers(attributes, "missing_value", bits !== undefined);
	const fill = cfFillValueOf({ zarrFormat, attributes, fillValue });
	if (fill?.kind === "fill") markers.push(fillMarker(fill.fill, dataType));
	// One at a time: a list of a million markers spread as arguments would overflow the stack.
	else if (fill?.kind === "attribute") for (const marker of attributeMarkers(attributes, "_FillValue", bits !== undefined)) markers.push(marker);
	const integers = new Set<bigint>();
	const floats = new Set<number>();
	for (const marker of markers) {
		if (float) {
			const value = Number(marker);
			// The fill value is of the data type already: each rounding leaves it as it is.
			floats.add(dataType === "float16" ? halfComparand(value) : dataType === "float32" ? Math.fround(value) : value);
			continue;
		}
		if (bits === undefined) continue;
		// A marker no value of the type can equal (a fraction, or outside its range) marks nothing, as in numpy.
		if (typeof marker === "number" && !Number.isInteger(marker)) continue;
		const value = BigInt(marker);
		const [signed, width] = bits;
		if ((signed ? BigInt.asIntN(width, value) : BigInt.asUintN(width, value)) === value) integers.add(value);
	}
	if (dataType === "int64") integers.add(NUMPY_NAT_COUNT);
	return { integers, smallIntegers: new Set([...integers].map(Number)), floats, nanIsMissing: float };
}

/** Whether one value (as read from its typed array) is missing. */
export function isMissingValue(markers: MissingValueMarkers, value: number | bigint): boolean {
	if (typeof value === "bigint") return markers.integers.has(value);
	if (markers.nanIsMissing) return Number.isNaN(value) || markers.floats.has(value);
	return markers.smallIntegers.has(value);
}
