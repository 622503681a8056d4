/**
 * IEEE half floats (numpy `float16`, Zarr `float16`), which neither DuckDB nor polars reads: exported as Float32,
 * into which every half value widens exactly (subnormals become normal floats, ±0, ±Infinity and each NaN keep
 * their sign and payload, the quiet bit included). Widening works on the bits, never through a JS number, which
 * may canonicalize a NaN. What numpy does with a Python float compared with (or written into) half floats is here
 * too: the rounding of a double to the nearest half, ties to even.
 */

const HALF_EXPONENT_MASK = 0x7c00;
const HALF_FRACTION_MASK = 0x03ff;

/** The float32 bits of the half with bits `half` (0 to 0xffff), exactly. */
export function float32BitsOfHalf(half: number): number {
	const sign = (half & 0x8000) << 16;
	const exponent = (half & HALF_EXPONENT_MASK) >> 10;
	let fraction = half & HALF_FRACTION_MASK;
	if (exponent === 0x1f) return (sign | 0x7f800000 | (fraction << 13)) >>> 0;
	if (exponent !== 0) return (sign | ((exponent + 112) << 23) | (fraction << 13)) >>> 0;
	if (fraction === 0) return sign >>> 0;
	// A subnormal half, fraction × 2^-24: normalized, its leading bit moved up to the implicit one.
	let shifts = 0;
	while ((fraction & 0x400) === 0) {
		fraction <<= 1;
		shifts++;
	}
	return (sign | ((113 - shifts) << 23) | ((fraction & HALF_FRACTION_MASK) << 13)) >>> 0;
}

/** Half floats as float32 values, bit for bit (see float32BitsOfHalf). */
export function widenHalfFloats(halves: Uint16Array): Float32Array {
	const out = new Float32Array(halves.length);
	const bits = new Uint32Array(out.buffer);
	for (let i = 0; i < halves.length; i++) bits[i] = float32BitsOfHalf(halves[i]);
	return out;
}

/** The value of the half with bits `half`, as a number (exact: every half is a double). */
export function halfValue(half: number): number {
	const scratch = new Uint32Array([float32BitsOfHalf(half)]);
	return new Float32Array(scratch.buffer)[0];
}

/** `x` (finite, >= 0) rounded to an integer, ties to even. */
function roundHalfToEven(x: number): number {
	const floor = Math.floor(x);
	const rest = x - floor;
	if (rest !== 0.5) return rest < 0.5 ? floor : floor + 1;
	return floor % 2 === 0 ? floor : floor + 1;
}

/** The bits of the half nearest to `value` (ties to even), as numpy's `np.float16(value)`: NaN is 0x7e00. */
export function halfBitsOf(value: number): number {
	if (Number.isNaN(value)) return 0x7e00;
	const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
	const magnitude = Math.abs(value);
	// 65520 is halfway between the largest half (65504) and 2^16, where the even neighbour is Infinity.
	if (magnitude >= 65520) return sign | HALF_EXPONENT_MASK;
	// Below 2^-14 the halves are the multiples of 2^-24: 1024 of them is the smallest normal half, whose bits it is too.
	if (magnitude < 2 ** -14) return sign | roundHalfToEven(magnitude * 2 ** 24);
	let exponent = Math.floor(Math.log2(magnitude));
	if (2 ** exponent > magnitude) exponent--;
	else if (2 ** (exponent + 1) <= magnitude) exponent++;
	// The significand as an integer of 11 bits; rounding up to 2048 carries into the exponent, as the sum does.
	const significand = roundHalfToEven(magnitude / 2 ** (exponent - 10));
	return sign | (((exponent + 14) << 10) + significand);
}

/**
 * What a half float array is compared with when numpy 1.x compares it with a Python float `value` (xarray's
 * masking, `data == fill_value`): numpy's value-based casting takes the smallest float type holding the value's
 * magnitude (half below 65000, float32 below 3.4e38, double above), and the comparison is made in the larger of
 * that and half. So the value is rounded to a half, to a float32, or kept; the result is the number a widened half
 * equals exactly when the half compares equal.
 */
export function halfComparand(value: number): number {
	if (Number.isNaN(value)) return value;
	if (value > -65000 && value < 65000) return halfValue(halfBitsOf(value));
	if (value > -3.4e38 && value < 3.4e38) return Math.fround(value);
	return value;
}
