/**
 * The exact value of a finite double as a dyadic rational `numerator / 2^shift`: every double is one, so a float
 * count of CF time (0.1 hours) is decoded from the number it really holds, never through a rounded product.
 */
export interface Dyadic {
	readonly numerator: bigint;
	/** 0 for integers; otherwise the numerator is odd. */
	readonly shift: bigint;
}

export function exactDyadic(value: number): Dyadic {
	if (Number.isInteger(value)) return { numerator: BigInt(value), shift: 0n };
	// Doubling a finite non-integer double is exact (its magnitude is below 2^53): at most 1074 steps, for subnormals.
	let scaled = value;
	let shift = 0n;
	while (!Number.isInteger(scaled)) {
		scaled *= 2;
		shift++;
	}
	return { numerator: BigInt(scaled), shift };
}

/** Veltkamp's splitter for doubles: 2^27 + 1. */
const SPLITTER = 134_217_729;

/** The high half of `x` by Veltkamp's split (its low half is `x` minus it), as isExactProduct splits each factor. */
export function veltkampHigh(x: number): number {
	const t = SPLITTER * x;
	return t - (t - x);
}

/**
 * Whether the double product `p` of `a` and `b` is exact: Dekker's TwoProduct gives the rounding error of a×b
 * exactly (no overflow here: |a| < 2^53 / |b|, both far below 2^996). The WebAssembly kernel's affineFloat computes
 * the same terms in the same order (src/convert/wasm/linear-kernel.wat).
 */
export function isExactProduct(a: number, b: number, p: number): boolean {
	const aHigh = veltkampHigh(a);
	const aLow = a - aHigh;
	const bHigh = veltkampHigh(b);
	const bLow = b - bHigh;
	return aHigh * bHigh - p + aHigh * bLow + aLow * bHigh + aLow * bLow === 0;
}
