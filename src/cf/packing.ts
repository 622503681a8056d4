/**
 * CF unpacking of a companion column, after masking: `value × scale_factor + add_offset`. The result is Float32
 * when the packed type has 8 or 16 bits, there is no `add_offset` and `scale_factor` is a float32 value (the JSON
 * number is exactly a float32, as zarr writes a numpy float32 attribute), computed as numpy's float32 multiply
 * (the exact product rounded once to float32); Float64 otherwise, computed as numpy does in float64 (multiply,
 * then add: two roundings). This is CF's rule, which xarray follows from 2024; xarray 2023.01 makes Float32 of
 * 8/16-bit data without an offset whatever the attribute's type, and of any masked 8/16-bit data. Half floats
 * (held widened to float32) unpack to Float32 whatever the attributes, as xarray 2023.01 does (its
 * `_choose_float_dtype` upcasts float16 to float32 and no further), computed as its numpy does: float32 multiply
 * and add, each attribute taken as a float32 (numpy 1.x's value-based casting of a Python float, which stays a
 * double past float32's range).
 */
import { Dt64ExportError } from "../errors.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { MaskableType } from "./masking.js";

export interface PackingRule {
	readonly scaleFactor: number;
	readonly addOffset: number;
	readonly target: "float32" | "float64";
	/** For a Float32 result: the factors as numpy's float32 arithmetic takes them (see float32Operand). */
	readonly float32Operands?: { readonly scale: number; readonly offset: number };
	/** The attributes applied, as read, for the field metadata. */
	readonly applied: Readonly<Record<string, unknown>>;
}

const SMALL_INTEGERS: readonly MaskableType[] = ["int8", "uint8", "int16", "uint16"];

function packingNumber(value: unknown, key: string, name: string | undefined): number {
	// A one-element list is how netCDF-derived attributes often arrive; CF allows only a scalar, but it is unambiguous.
	const scalar = Array.isArray(value) && value.length === 1 ? value[0] : value;
	if (typeof scalar !== "number" || !Number.isFinite(scalar)) {
		throw new Dt64ExportError("METADATA_INVALID", `${name === undefined ? "" : `array ${name}: `}${key} must be a finite number, got ${JSON.stringify(value)}`, { field: key });
	}
	return scalar;
}

/**
 * The unpacking of an array, or undefined when it has neither `scale_factor` nor `add_offset`. A malformed attribute
 * is refused as `array <name>: ...`, or without the array's name when `name` is undefined (for a caller that adds it).
 */
export function packingRuleOf(name: string | undefined, type: MaskableType, attributes: Readonly<Record<string, unknown>>): PackingRule | undefined {
	const hasScale = attributes.scale_factor !== undefined && attributes.scale_factor !== null;
	const hasOffset = attributes.add_offset !== undefined && attributes.add_offset !== null;
	if (!hasScale && !hasOffset) return undefined;
	const scaleFactor = hasScale ? packingNumber(attributes.scale_factor, "scale_factor", name) : 1;
	const addOffset = hasOffset ? packingNumber(attributes.add_offset, "add_offset", name) : 0;
	const applied: Record<string, unknown> = {};
	if (hasScale) applied.scale_factor = attributes.scale_factor;
	if (hasOffset) applied.add_offset = attributes.add_offset;
	if (type === "float16") return { scaleFactor, addOffset, target: "float32", float32Operands: { scale: float32Operand(scaleFactor), offset: float32Operand(addOffset) }, applied };
	const target = SMALL_INTEGERS.includes(type) && !hasOffset && Math.fround(scaleFactor) === scaleFactor ? "float32" : "float64";
	return { scaleFactor, addOffset, target, applied };
}

/**
 * A Python float in numpy 1.x's arithmetic with a float32 array: cast to float32 when float32 holds its magnitude
 * (value-based casting), else kept a double, the operation then made in float64 and rounded to float32 when stored.
 */
function float32Operand(value: number): number {
	return value > -3.4e38 && value < 3.4e38 ? Math.fround(value) : value;
}

/**
 * The unpacking of one value: the single statement of the rule, which unpackValues applies to a whole column and CF
 * time decoding to counts one by one once their missing values are known (a count stays a bigint only when there is
 * no packing). 64-bit integers go through a double (as in numpy's `astype(float64)`): the Float64 result of a
 * multiplication is rounded anyway. Without `add_offset` nothing is added: adding 0 would turn -0 into 0, which
 * numpy does only with the attribute.
 */
export function valueUnpacker(rule: PackingRule): (value: number | bigint) => number {
	const { scaleFactor, addOffset, float32Operands } = rule;
	const hasOffset = rule.applied.add_offset !== undefined;
	if (rule.target === "float32") {
		// Both factors are float32 values with 24-bit significands: their double product is exact, one rounding. The
		// double sum of two float32 values rounded once to float32 is the float32 sum (53 >= 2 × 24 + 2 bits).
		const scale = float32Operands?.scale ?? scaleFactor;
		const offset = float32Operands !== undefined && hasOffset ? float32Operands.offset : undefined;
		return offset === undefined ? (value) => Math.fround(Number(value) * scale) : (value) => Math.fround(Math.fround(Number(value) * scale) + offset);
	}
	if (!hasOffset) return (value) => Number(value) * scaleFactor;
	return (value) => Number(value) * scaleFactor + addOffset;
}

/** How messages name a packing: `scale_factor 12, add_offset 0.5` (the attributes as written). */
export function describePacking(rule: PackingRule): string {
	return Object.entries(rule.applied)
		.map(([key, value]) => `${key} ${JSON.stringify(value)}`)
		.join(", ");
}

/** The unpacked values: valueUnpacker's rule applied to each, into a Float32Array or Float64Array as the rule says. */
export function unpackValues(values: NumericValues, rule: PackingRule): Float32Array | Float64Array {
	const unpack = valueUnpacker(rule);
	const length = values.length;
	const out = rule.target === "float32" ? new Float32Array(length) : new Float64Array(length);
	for (let i = 0; i < length; i++) out[i] = unpack(values[i]);
	return out;
}
