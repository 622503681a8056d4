import type { ConversionPlan } from "./plan.js";

/**
 * The per-value step of a linear conversion, floor(count * p / q), on the two 32-bit words of the int64 held in
 * local doubles: the hot loop allocates nothing and touches no shared state. Every factor is below 2^21, so each
 * partial product stays below 2^53 and is exact; a plan with a larger factor gets no kernel.
 *
 * The kernel writes the result's words at `out32[at]` (low) and `out32[at + 1]` (high) and says how it went.
 */
export type LinearKernel = (hi: number, lo: number, out32: Int32Array, at: number) => KernelOutcome;

export const OK = 0;
export const TRUNCATED = 1;
export const OVERFLOW = 2;
/** The intermediate product left int64 while the quotient may not: the caller decides with exact arithmetic. */
export const UNDECIDED = 3;
export type KernelOutcome = typeof OK | typeof TRUNCATED | typeof OVERFLOW | typeof UNDECIDED;

const TWO_32 = 4_294_967_296;
/** Multiplying by a power of two is exact, and faster than dividing. */
const INV_TWO_32 = 1 / TWO_32;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const FACTOR_LIMIT = 2 ** 21;

export function linearKernel(plan: ConversionPlan): LinearKernel | null {
	const multiplyBy = plan.multiplyBy;
	const divideBy = plan.divideBy;
	if (multiplyBy.some((f) => f >= FACTOR_LIMIT) || divideBy.some((d) => d >= FACTOR_LIMIT)) return null;
	const overflow = divideBy.length === 0 ? OVERFLOW : UNDECIDED;
	const m = multiplyBy.length;
	const d = divideBy.length;
	// The common plans get straight-line code (one multiply, or one divide); the others loop over their factors.
	if (m === 1 && d === 0) return multiplyOnce(multiplyBy[0]);
	if (m === 0 && d === 1) return divideOnce(divideBy[0]);
	return (hi, lo, out32, at) => {
		for (let k = 0; k < m; k++) {
			const factor = multiplyBy[k];
			const low = lo * factor;
			const carry = Math.floor(low * INV_TWO_32);
			lo = low - carry * TWO_32;
			hi = hi * factor + carry;
			if (hi > INT32_MAX || hi < INT32_MIN) return overflow;
		}
		if (hi === INT32_MIN && lo === 0) return overflow;
		let inexact = false;
		for (let k = 0; k < d; k++) {
			const divisor = divideBy[k];
			const hiQuotient = Math.floor(hi / divisor);
			const rest = (hi - hiQuotient * divisor) * TWO_32 + lo;
			let loQuotient = Math.floor(rest / divisor);
			let remainder = rest - loQuotient * divisor;
			if (remainder < 0) {
				loQuotient -= 1;
				remainder += divisor;
			} else if (remainder >= divisor) {
				loQuotient += 1;
				remainder -= divisor;
			}
			if (remainder !== 0) inexact = true;
			hi = hiQuotient;
			lo = loQuotient;
		}
		out32[at] = lo | 0;
		out32[at + 1] = hi;
		return inexact ? TRUNCATED : OK;
	};
}

function multiplyOnce(factor: number): LinearKernel {
	return (hi, lo, out32, at) => {
		const low = lo * factor;
		const carry = Math.floor(low * INV_TWO_32);
		const newHi = hi * factor + carry;
		const newLo = low - carry * TWO_32;
		// -2^63 is NaT, so a product landing on it is out of range too.
		if (newHi > INT32_MAX || newHi < INT32_MIN || (newHi === INT32_MIN && newLo === 0)) return OVERFLOW;
		out32[at] = newLo | 0;
		out32[at + 1] = newHi;
		return OK;
	};
}

function divideOnce(divisor: number): LinearKernel {
	return (hi, lo, out32, at) => {
		const hiQuotient = Math.floor(hi / divisor);
		const rest = (hi - hiQuotient * divisor) * TWO_32 + lo;
		// rest < divisor * 2^32 < 2^53: exact, and the double quotient is off by at most one.
		let loQuotient = Math.floor(rest / divisor);
		let remainder = rest - loQuotient * divisor;
		if (remainder < 0) {
			loQuotient -= 1;
			remainder += divisor;
		} else if (remainder >= divisor) {
			loQuotient += 1;
			remainder -= divisor;
		}
		out32[at] = loQuotient | 0;
		out32[at + 1] = hiQuotient;
		return remainder === 0 ? OK : TRUNCATED;
	};
}
