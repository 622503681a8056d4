import type { Datetime64Type } from "../dtype/datetime64.js";
import {
	ATTOSECONDS_PER_UNIT,
	AUTO_TARGET_UNIT,
	isCalendarUnit,
	type TargetUnit,
} from "../dtype/units.js";
import type { TargetUnitOption } from "./options.js";

/**
 * How one source type maps to one target unit, worked out once per array so that the per-value loop only
 * multiplies and divides by small integers.
 *
 * A linear value is floor(count * p / q) with p/q in lowest terms. p is split into factors below 2^21 where it can be (below 2^32 always) and q
 * (a divisor of 10^18, so 2^a 5^b) into factors below 2^20: those are the sizes the two-word int64 arithmetic in
 * `int64-words.ts` handles exactly with doubles. Calendar units first become a day count, then follow the plan
 * from days.
 */
export interface ConversionPlan {
	readonly source: Datetime64Type;
	readonly target: TargetUnit;
	readonly mode: "passthrough" | "linear" | "calendar" | "generic";
	readonly p: bigint;
	readonly q: bigint;
	readonly multiplyBy: readonly number[];
	readonly divideBy: readonly number[];
	/** Months per count, for calendar units: scale_factor for M, 12 x scale_factor for Y. */
	readonly monthsPerCount: number;
}

const SMALL_PRIMES = [2n, 3n, 5n, 7n];
/**
 * Factors below 2^21 keep every partial product of the word arithmetic below 2^53 (see `linear-kernel.ts`);
 * a prime scale factor above that stays whole and takes the general word path.
 */
const MULTIPLY_FACTOR_LIMIT = 2n ** 21n;
const DIVIDE_FACTOR_LIMIT = 2n ** 20n;

function gcd(a: bigint, b: bigint): bigint {
	while (b !== 0n) [a, b] = [b, a % b];
	return a;
}

/** Splits n into factors each below `limit`; n's prime factors other than 2, 3, 5, 7 must be below `limit`. */
function splitIntoFactors(n: bigint, limit: bigint): number[] {
	const primes: bigint[] = [];
	for (const prime of SMALL_PRIMES) {
		while (n % prime === 0n) {
			primes.push(prime);
			n /= prime;
		}
	}
	if (n !== 1n) primes.push(n);
	const factors: number[] = [];
	let current = 1n;
	for (const prime of primes) {
		if (current * prime >= limit) {
			factors.push(Number(current));
			current = 1n;
		}
		current *= prime;
	}
	if (current !== 1n) factors.push(Number(current));
	return factors;
}

export function resolveTargetUnit(source: Datetime64Type, unit: TargetUnitOption): TargetUnit {
	if (unit !== "auto") return unit;
	return source.unit === "generic" ? "s" : AUTO_TARGET_UNIT[source.unit];
}

export function planConversion(source: Datetime64Type, unit: TargetUnitOption): ConversionPlan {
	const target = resolveTargetUnit(source, unit);
	const targetSize = ATTOSECONDS_PER_UNIT[target];
	const base = { source, target, monthsPerCount: 0 };
	if (source.unit === "generic") {
		return { ...base, mode: "generic", p: 1n, q: 1n, multiplyBy: [], divideBy: [] };
	}
	if (isCalendarUnit(source.unit)) {
		const p = ATTOSECONDS_PER_UNIT.D / targetSize;
		const monthsPerCount = source.scaleFactor * (source.unit === "Y" ? 12 : 1);
		return { ...base, mode: "calendar", p, q: 1n, multiplyBy: splitIntoFactors(p, MULTIPLY_FACTOR_LIMIT), divideBy: [], monthsPerCount };
	}
	const numerator = BigInt(source.scaleFactor) * ATTOSECONDS_PER_UNIT[source.unit];
	const divisor = gcd(numerator, targetSize);
	const p = numerator / divisor;
	const q = targetSize / divisor;
	return {
		...base,
		mode: p === 1n && q === 1n ? "passthrough" : "linear",
		p,
		q,
		multiplyBy: p === 1n ? [] : splitIntoFactors(p, MULTIPLY_FACTOR_LIMIT),
		divideBy: q === 1n ? [] : splitIntoFactors(q, DIVIDE_FACTOR_LIMIT),
	};
}
