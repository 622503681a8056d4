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
 *
 * An integer `scale_factor` or `add_offset` written past 2^53 (read exactly, a bigint: json/exact-integers.ts) is no
 * double: float arithmetic would round it. Of integer data with integer factors (CF's integer packing, whose unpacked
 * type is an integer) it is applied exactly, into Int64 (a result outside int64 refused); otherwise it is refused.
 * xarray 2023.01 unpacks in float64 whatever the attributes, rounding such a factor.
 */
import { Dt64ExportError } from "../errors.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import { stringifyExactIntegers } from "../json/exact-integers.js";
import type { MaskableType, Validity } from "./masking.js";

export interface PackingRule {
	/** The factors as doubles (exact but for a factor that is a bigint in `integerFactors`). */
	readonly scaleFactor: number;
	readonly addOffset: number;
	readonly target: "float32" | "float64" | "int64";
	/** Integer data with integer factors, one of them past 2^53: both exactly, for `value × scale + offset` in int64. */
	readonly integerFactors?: { readonly scale: bigint; readonly offset: bigint };
	/** For a Float32 result: the factors as numpy's float32 arithmetic takes them (see float32Operand). */
	readonly float32Operands?: { readonly scale: number; readonly offset: number };
	/** The attributes applied, as read, for the field metadata. */
	readonly applied: Readonly<Record<string, unknown>>;
}

const SMALL_INTEGERS: readonly MaskableType[] = ["int8", "uint8", "int16", "uint16"];

const INTEGERS: readonly MaskableType[] = [...SMALL_INTEGERS, "int32", "uint32", "int64", "uint64"];

function packingNumber(value: unknown, key: string, name: string | undefined): number | bigint {
	// A one-element list is how netCDF-derived attributes often arrive; CF allows only a scalar, but it is unambiguous.
	const scalar = Array.isArray(value) && value.length === 1 ? value[0] : value;
	if (typeof scalar === "bigint") return scalar;
	if (typeof scalar !== "number" || !Number.isFinite(scalar)) {
		throw new Dt64ExportError("METADATA_INVALID", `${name === undefined ? "" : `array ${name}: `}${key} must be a finite number, got ${stringifyExactIntegers(value)}`, { field: key });
	}
	return scalar;
}

/**
 * Both factors as exact integers for CF's integer packing, when one is past 2^53 (a bigint); undefined when neither is.
 * Refused when one is and an exact result is impossible: float data, or a factor that is not an integer.
 */
function integerFactorsOf(scale: number | bigint, offset: number | bigint, type: MaskableType, name: string | undefined): PackingRule["integerFactors"] {
	if (typeof scale !== "bigint" && typeof offset !== "bigint") return undefined;
	const wide = Object.entries({ scale_factor: scale, add_offset: offset }).find(([, factor]) => typeof factor === "bigint")!;
	const isInteger = (factor: number | bigint) => typeof factor === "bigint" || Number.isInteger(factor);
	const why = !INTEGERS.includes(type) ? `${type} data unpack in floats` : !isInteger(scale) ? `scale_factor ${scale} is not an integer` : !isInteger(offset) ? `add_offset ${offset} is not an integer` : undefined;
	if (why !== undefined) {
		throw new Dt64ExportError(
			"UNSUPPORTED",
			`${name === undefined ? "" : `array ${name}: `}${wide[0]} ${wide[1]} is an integer past 2^53, which float unpacking would round (${why}): only integer data with integer scale_factor and add_offset unpack exactly with it`,
			{ field: wide[0] },
		);
	}
	return { scale: BigInt(scale), offset: BigInt(offset) };
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
	const integerFactors = integerFactorsOf(scaleFactor, addOffset, type, name);
	const doubles = { scaleFactor: Number(scaleFactor), addOffset: Number(addOffset) };
	if (integerFactors !== undefined) return { ...doubles, target: "int64", integerFactors, applied };
	const { scaleFactor: scale, addOffset: offset } = doubles;
	if (type === "float16") return { ...doubles, target: "float32", float32Operands: { scale: float32Operand(scale), offset: float32Operand(offset) }, applied };
	const target = SMALL_INTEGERS.includes(type) && !hasOffset && Math.fround(scale) === scale ? "float32" : "float64";
	return { ...doubles, target, applied };
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
function valueUnpacker(rule: PackingRule): (value: number | bigint) => number {
	if (rule.integerFactors !== undefined) throw new Error("integer packing unpacks with exactUnpacker");
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

/**
 * The unpacking of one count, exact where the rule's arithmetic is (integer packing: the exact integer, a number when
 * it is a safe integer, else a bigint), else valueUnpacker's: what CF time decoding takes.
 */
export function exactUnpacker(rule: PackingRule): (value: number | bigint) => number | bigint {
	if (rule.integerFactors === undefined) return valueUnpacker(rule);
	const { scale, offset } = rule.integerFactors;
	return (value) => {
		const exact = BigInt(value) * scale + offset;
		return exact >= -MAX_SAFE && exact <= MAX_SAFE ? Number(exact) : exact;
	};
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** How messages name a packing: `scale_factor 12, add_offset 0.5` (the attributes as written). */
export function describePacking(rule: PackingRule): string {
	return Object.entries(rule.applied)
		.map(([key, value]) => `${key} ${stringifyExactIntegers(value)}`)
		.join(", ");
}

/** Of integer packing's values: the ones masked (left 0), and how messages name a position. */
export interface IntegerUnpacking {
	readonly validity?: Validity;
	readonly describePosition?: (i: number) => string;
}

/**
 * The unpacked values: valueUnpacker's rule applied to each, into a Float32Array or Float64Array as the rule says;
 * integer packing into a BigInt64Array, a value outside int64 that is not masked refused (VALUE_INVALID).
 */
export function unpackValues(values: NumericValues, rule: PackingRule, { validity, describePosition = (i) => `index ${i}` }: IntegerUnpacking = {}): Float32Array | Float64Array | BigInt64Array {
	const length = values.length;
	if (rule.integerFactors !== undefined) {
		const { scale, offset } = rule.integerFactors;
		const out = new BigInt64Array(length);
		const bitmap = validity?.bitmap;
		for (let i = 0; i < length; i++) {
			if (bitmap !== undefined && (bitmap[i >> 3] & (1 << (i & 7))) === 0) continue;
			const unpacked = BigInt(values[i]) * scale + offset;
			if (unpacked < INT64_MIN || unpacked > INT64_MAX) {
				throw new Dt64ExportError("VALUE_INVALID", `value ${values[i]} at ${describePosition(i)} unpacks to ${unpacked} (${describePacking(rule)}), outside int64`, { index: i, value: values[i] });
			}
			out[i] = unpacked;
		}
		return out;
	}
	const unpack = valueUnpacker(rule);
	const out = rule.target === "float32" ? new Float32Array(length) : new Float64Array(length);
	for (let i = 0; i < length; i++) out[i] = unpack(values[i]);
	return out;
}
