import type { Rounding } from "./options.js";
import type { ConversionPlan } from "./plan.js";

/**
 * The hot loop of the linear conversions the WebAssembly kernel does not take (a multiplication and a division,
 * such as 3 ns -> us), floor(count * p / q), on the two 32-bit words of each int64 held in local doubles: no
 * BigInt, no allocation, no shared state.
 * Every factor is below 2^21, so each partial product stays below 2^53 and is exact; a plan with a larger factor
 * gets no kernel. Its multiply and floor-divide steps are those of int64-words.ts (multiplyWords,
 * floorDivideWords), inlined on locals: through the shared registers the loop runs at half the speed (40 against
 * 20 ns a value for 3 ns -> us), so a change to one must be made to the other.
 *
 * Rounding to the nearest adds half the divisor q (floor(q / 2), held as two words) before the divisions and steps
 * an exact quotient of an even q back when it is odd: a tie goes to the even unit (see to-arrow-timestamps.ts).
 *
 * A kernel converts values from `from` on, writes the results' words into `out32`, calls `onNaT` for each NaT,
 * and stops at the first value it cannot settle alone (overflow, a refused truncation, or an intermediate
 * product outside int64), returning its index; it returns `length` when all are done. The caller deals with
 * that value (message, null, or exact BigInt arithmetic) and resumes after it.
 */
export type LinearKernel = (in32: Int32Array, out32: Int32Array, from: number, length: number, onNaT: (i: number) => void) => number;

const TWO_32 = 4_294_967_296;
/** Multiplying by a power of two is exact, and faster than dividing. */
const INV_TWO_32 = 1 / TWO_32;
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const FACTOR_LIMIT = 2 ** 21;

export function linearKernel(plan: ConversionPlan, rounding: Rounding): LinearKernel | null {
	const multiplyBy = plan.multiplyBy;
	const divideBy = plan.divideBy;
	if (multiplyBy.some((f) => f >= FACTOR_LIMIT) || divideBy.some((d) => d >= FACTOR_LIMIT)) return null;
	const m = multiplyBy.length;
	const d = divideBy.length;
	const refuseInexact = rounding === "error";
	const nearest = rounding === "nearest" && d > 0;
	const half = plan.q / 2n;
	const halfHi = Number(half >> 32n);
	const halfLo = Number(half & 0xffffffffn);
	const evenDivisor = plan.q % 2n === 0n;
	return (in32, out32, from, length, onNaT) => {
		for (let i = from; i < length; i++) {
			let lo = in32[2 * i] >>> 0;
			let hi = in32[2 * i + 1];
			if (hi === INT32_MIN && lo === 0) {
				onNaT(i);
				continue;
			}
			for (let k = 0; k < m; k++) {
				const factor = multiplyBy[k];
				const low = lo * factor;
				const carry = Math.floor(low * INV_TWO_32);
				lo = low - carry * TWO_32;
				hi = hi * factor + carry;
				if (hi > INT32_MAX || hi < INT32_MIN) return i;
			}
			if (hi === INT32_MIN && lo === 0) return i;
			if (nearest) {
				lo += halfLo;
				if (lo >= TWO_32) {
					lo -= TWO_32;
					hi += 1;
				}
				hi += halfHi;
				if (hi > INT32_MAX) return i;
			}
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
			if (inexact && refuseInexact) return i;
			if (nearest && !inexact && evenDivisor && lo % 2 === 1) lo -= 1;
			out32[2 * i] = lo;
			out32[2 * i + 1] = hi;
		}
		return length;
	};
}
