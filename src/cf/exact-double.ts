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
