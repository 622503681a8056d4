/** The greatest integer <= a / b, for either sign of a and b (BigInt division truncates toward zero). */
export function floorDiv(a: bigint, b: bigint): bigint {
	const quotient = a / b;
	return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

/** The least integer >= a / b (b > 0). */
export function ceilDiv(a: bigint, b: bigint): bigint {
	const quotient = a / b;
	return a % b !== 0n && a > 0n ? quotient + 1n : quotient;
}

/** The integer nearest to a / b (b > 0), a tie going to the even one (pandas' and numpy's round). */
export function roundHalfEvenDiv(a: bigint, b: bigint): bigint {
	const quotient = floorDiv(a, b);
	const twice = 2n * (a - quotient * b);
	return twice > b || (twice === b && (quotient & 1n) === 1n) ? quotient + 1n : quotient;
}
