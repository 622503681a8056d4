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
