/**
 * CF masking of a companion column, the first of CF's two decoding steps (masking, then unpacking): stored values
 * equal to a missing-value marker (`_FillValue`, `missing_value`) or outside the valid range (`valid_min`,
 * `valid_max`, `valid_range`) become null. Comparisons are made on the stored values, exactly: 64-bit integers
 * as BigInt, float32 data against markers rounded to float32 (numpy's comparison of a float32 array with a
 * Python float), half floats (held widened to float32) in half precision as numpy 1.x compares them with a Python
 * float (see halfComparand). NaN is never a marker: NaN data stays NaN (see `--nan-as-null`).
 */
import { Dt64ExportError } from "../errors.js";
import { stringifyExactIntegers } from "../json/exact-integers.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import { halfComparand, halfValue } from "../zarr/half-float.js";
import { formatPlainFill, type PlainFill, type PlainTypeName } from "../zarr/plain-dtype.js";
import { cfFillValueOf, refuseFloatPast2p53 } from "./missing-value.js";

export type MaskableType = Exclude<PlainTypeName, "bool" | "string">;

/** What makes a stored value missing; the numbers are in the stored type's own terms (bigint for 64-bit integers). */
export interface MaskRule {
	/**
	 * The markers, each once: looked up per value, so that masking costs one lookup per value however long a
	 * `missing_value` list is (a list of 100,000 made a 1 MB store take 28 s, trial 22: 14). A Set compares as `===`
	 * does here (-0 equals 0; NaN is never a marker); an int64 value (a bigint) meets only bigint markers.
	 */
	readonly markers: ReadonlySet<number | bigint>;
	readonly validMin: number | bigint | undefined;
	readonly validMax: number | bigint | undefined;
	/** The attributes that define the rule, as read (v2's `fill_value` shown as `_FillValue`), for the field metadata. */
	readonly applied: Readonly<Record<string, unknown>>;
}

/** The 0/1 validity bits of a column in Arrow's layout (bit i of byte i >> 3, least significant first). */
export interface Validity {
	readonly bitmap: Uint8Array;
	readonly nullCount: number;
}

const is64Bit = (type: MaskableType) => type === "int64" || type === "uint64";
const isFloat = (type: MaskableType) => type === "float16" || type === "float32" || type === "float64";

/** A number of an attribute as numpy compares stored floats with it: float32 data with it rounded to float32, half floats as halfComparand says, float64 data with it as it is. */
function asComparedWith(value: number, type: MaskableType): number {
	return type === "float16" ? halfComparand(value) : type === "float32" ? Math.fround(value) : value;
}

export function isMaskableType(type: PlainTypeName): type is MaskableType {
	return type !== "bool" && type !== "string";
}

/** A fill value's number, exact: integers as bigint, floats from their bits. */
function fillNumber(fill: PlainFill, type: MaskableType): number | bigint {
	if (fill.kind === "integer") return is64Bit(type) ? fill.value : Number(fill.value);
	if (fill.kind !== "float") throw new Dt64ExportError("METADATA_INVALID", `fill value ${JSON.stringify(fill)} is not a number`, { field: "fill_value" });
	// The array's own fill value is a half itself (xarray's `_FillValue` is then a numpy float16): compared exactly.
	if (type === "float16") return halfValue(Number(fill.bits));
	const buffer = new ArrayBuffer(8);
	if (type === "float32") {
		new Uint32Array(buffer)[0] = Number(fill.bits);
		return new Float32Array(buffer)[0];
	}
	new BigUint64Array(buffer)[0] = fill.bits;
	return new Float64Array(buffer)[0];
}

/**
 * A value of a CF attribute in the data's terms, or undefined when no stored value can equal it (a fraction for
 * integer data, NaN): such a marker masks nothing, as in xarray. An integer written past 2^53 is a bigint, exact
 * (exact-integers.ts); a float past 2^53 for integer data is refused (refuseFloatPast2p53).
 */
function attributeNumber(value: unknown, type: MaskableType, what: string, field: string): number | bigint | undefined {
	if (typeof value === "bigint") return isFloat(type) ? Number(value) : value;
	if (typeof value === "string" && ["NaN", "Infinity", "-Infinity"].includes(value)) value = Number(value);
	if (typeof value !== "number") throw new Dt64ExportError("METADATA_INVALID", `${what} must be a number or a list of numbers, got ${JSON.stringify(value)}`, { field });
	if (Number.isNaN(value)) return undefined;
	if (isFloat(type)) return asComparedWith(value, type);
	if (!Number.isInteger(value)) return undefined;
	if (!Number.isSafeInteger(value)) return refuseFloatPast2p53(what, value, type);
	return is64Bit(type) ? BigInt(value) : value;
}

const numbersOf = (value: unknown) => (Array.isArray(value) ? value : [value]);

export interface MaskSource {
	readonly name: string;
	readonly type: MaskableType;
	readonly zarrFormat: 2 | 3;
	readonly attributes: Readonly<Record<string, unknown>>;
	/** The array's own fill value (null: none); for Zarr v2 it is the `_FillValue` (xarray's mapping), see cfFillValueOf. */
	readonly fillValue: PlainFill | null;
}

/**
 * The mask of an array, or undefined when nothing can be missing. Its `_FillValue` is where CF time finds it
 * (cfFillValueOf): Zarr v2: the array's `fill_value`, as xarray maps it, or the `_FillValue` attribute (a number or
 * a one-element list, as netCDF converters copy it) when `fill_value` is null; Zarr v3: the `_FillValue` attribute
 * (the v3 `fill_value` only fills missing chunks, xarray does not mask it).
 */
export function maskRuleOf(source: MaskSource): MaskRule | undefined {
	const { attributes, type, name } = source;
	const markers = new Set<number | bigint>();
	const applied: Record<string, unknown> = {};
	const add = (value: unknown, key: string) => {
		for (const item of numbersOf(value)) {
			const marker = attributeNumber(item, type, `array ${name}: ${key}`, key);
			if (marker !== undefined) markers.add(marker);
		}
		applied[key] = value;
	};
	const fillValue = cfFillValueOf(source);
	if (fillValue?.kind === "fill") {
		const fill = fillNumber(fillValue.fill, type);
		if (!(typeof fill === "number" && Number.isNaN(fill))) markers.add(fill);
		applied._FillValue = formatPlainFill(fillValue.fill);
	} else if (fillValue?.kind === "attribute") {
		add(fillValue.value, "_FillValue");
	}
	if (attributes.missing_value !== undefined && attributes.missing_value !== null) add(attributes.missing_value, "missing_value");
	const bound = (value: unknown, key: string, round: (n: number) => number) => boundOf(value, type, round, `array ${name}: ${key}`, key);
	let validMin: number | bigint | undefined;
	let validMax: number | bigint | undefined;
	if (attributes.valid_range !== undefined) {
		const range = attributes.valid_range;
		if (!Array.isArray(range) || range.length !== 2) throw new Dt64ExportError("METADATA_INVALID", `array ${name}: valid_range must be a list of two numbers, got ${stringifyExactIntegers(range)}`, { field: "valid_range" });
		validMin = bound(range[0], "valid_range", Math.ceil);
		validMax = bound(range[1], "valid_range", Math.floor);
		applied.valid_range = range;
	} else {
		if (attributes.valid_min !== undefined) {
			validMin = bound(attributes.valid_min, "valid_min", Math.ceil);
			applied.valid_min = attributes.valid_min;
		}
		if (attributes.valid_max !== undefined) {
			validMax = bound(attributes.valid_max, "valid_max", Math.floor);
			applied.valid_max = attributes.valid_max;
		}
	}
	if (markers.size === 0 && validMin === undefined && validMax === undefined) return undefined;
	return { markers, validMin, validMax, applied };
}

/**
 * A valid-range bound in the data's terms: for integer data a fractional bound is the nearest integer inside the
 * range (`round` is Math.ceil for a minimum, Math.floor for a maximum), so that comparisons stay exact.
 */
function boundOf(value: unknown, type: MaskableType, round: (n: number) => number, what: string, field: string): number | bigint | undefined {
	if (typeof value === "bigint") return isFloat(type) ? asComparedWith(Number(value), type) : value;
	if (typeof value !== "number" || Number.isNaN(value)) throw new Dt64ExportError("METADATA_INVALID", `${what} must be a number, got ${stringifyExactIntegers(value)}`, { field });
	if (isFloat(type)) return asComparedWith(value, type);
	const integer = round(value);
	// Infinity compares with a bigint as with a number; a finite 64-bit bound must be exact.
	if (!is64Bit(type) || !Number.isFinite(integer)) return integer;
	return Number.isSafeInteger(integer) ? BigInt(integer) : refuseFloatPast2p53(what, value, type);
}

/** The validity of `values` under `rule`; undefined when no value is masked. */
export function maskValues(values: NumericValues, rule: MaskRule): Validity | undefined {
	const { markers, validMin, validMax } = rule;
	const length = values.length;
	let bitmap: Uint8Array | undefined;
	let nullCount = 0;
	const data = values as ArrayLike<number | bigint>;
	for (let i = 0; i < length; i++) {
		const value = data[i];
		const missing = (validMin !== undefined && value < validMin) || (validMax !== undefined && value > validMax) || markers.has(value);
		if (!missing) continue;
		if (bitmap === undefined) bitmap = new Uint8Array(Math.ceil(length / 8)).fill(0xff);
		bitmap[i >> 3] &= ~(1 << (i & 7));
		nullCount++;
	}
	return bitmap === undefined ? undefined : { bitmap, nullCount };
}

/** NaN as null too (`--nan-as-null`), on top of an existing validity. */
export function maskNaN(values: Float32Array | Float64Array, validity: Validity | undefined): Validity | undefined {
	let bitmap = validity?.bitmap;
	let nullCount = validity?.nullCount ?? 0;
	for (let i = 0; i < values.length; i++) {
		if (!Number.isNaN(values[i])) continue;
		bitmap ??= new Uint8Array(Math.ceil(values.length / 8)).fill(0xff);
		if ((bitmap[i >> 3] & (1 << (i & 7))) === 0) continue;
		bitmap[i >> 3] &= ~(1 << (i & 7));
		nullCount++;
	}
	return bitmap === undefined ? undefined : { bitmap, nullCount };
}
