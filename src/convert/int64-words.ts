/**
 * Exact int64 arithmetic on two 32-bit words held in doubles, for the per-value loops: no BigInt is created.
 *
 * A value is `hi * 2^32 + lo` with `hi` a signed int32 and `lo` an unsigned uint32 (the words of the
 * little-endian two's-complement int64). Each operation reads and writes the module-level registers below
 * rather than returning an object, so that the hot loops allocate nothing.
 */
export const words = { hi: 0, lo: 0 };

const TWO_32 = 4_294_967_296;
const TWO_16 = 65_536;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/**
 * words *= factor, for an integer factor in [1, 2^32). Returns false when the product is outside
 * (-2^63, 2^63 - 1]: -2^63 itself is NaT, so it counts as overflow too.
 */
export function multiplyWords(factor: number): boolean {
	const lo = words.lo;
	const high16 = lo >>> 16;
	const low16 = lo & 0xffff;
	const lowProduct = low16 * factor;
	const highProduct = high16 * factor;
	const highProductLow16 = highProduct % TWO_16;
	const sum = highProductLow16 * TWO_16 + lowProduct;
	const newLo = sum % TWO_32;
	const carry = (sum - newLo) / TWO_32 + (highProduct - highProductLow16) / TWO_16;
	const hiProduct = words.hi * factor;
	if (hiProduct > TWO_32 * TWO_16 || hiProduct < -TWO_32 * TWO_16) return false;
	const newHi = hiProduct + carry;
	if (newHi > INT32_MAX || newHi < INT32_MIN || (newHi === INT32_MIN && newLo === 0)) return false;
	words.hi = newHi;
	words.lo = newLo;
	return true;
}

/** words = floor(words / divisor), for an integer divisor in [1, 2^20). Returns the remainder (>= 0). */
export function floorDivideWords(divisor: number): number {
	const hiQuotient = Math.floor(words.hi / divisor);
	const hiRemainder = words.hi - hiQuotient * divisor;
	const rest = hiRemainder * TWO_32 + words.lo;
	let loQuotient = Math.floor(rest / divisor);
	let remainder = rest - loQuotient * divisor;
	if (remainder < 0) {
		loQuotient -= 1;
		remainder += divisor;
	} else if (remainder >= divisor) {
		loQuotient += 1;
		remainder -= divisor;
	}
	words.hi = hiQuotient;
	words.lo = loQuotient;
	return remainder;
}

/** Loads a value known to be a safe integer (|n| < 2^53) into the registers. */
export function loadSafeInteger(n: number): void {
	const hi = Math.floor(n / TWO_32);
	words.hi = hi;
	words.lo = n - hi * TWO_32;
}

/** The value in the registers as a double: exact when |value| < 2^53, otherwise a close approximation. */
export function wordsToNumber(): number {
	return words.hi * TWO_32 + words.lo;
}

export function wordsToBigInt(hi: number, lo: number): bigint {
	return (BigInt(hi) << 32n) | BigInt(lo >>> 0);
}

/**
 * words += hi * 2^32 + lo, for an addend in [0, 2^63) given as its words (hi an int32 >= 0, lo a uint32). Returns
 * false, leaving the registers as they were, when the sum leaves int64.
 */
export function addWords(hi: number, lo: number): boolean {
	let sumLo = words.lo + lo;
	let carry = 0;
	if (sumLo >= TWO_32) {
		sumLo -= TWO_32;
		carry = 1;
	}
	const sumHi = words.hi + hi + carry;
	if (sumHi > INT32_MAX) return false;
	words.hi = sumHi;
	words.lo = sumLo;
	return true;
}
