/**
 * LZ4 block lengths for tests that build blocks by hand (lz4-steps.test.ts, decode-in-steps.test.ts): a literal or
 * match length of 15 or more is 15 in its token, then `lengthBytes(length - 15)`.
 */

/** The bytes of an LZ4 length past the token's 15: bytes of 255 while at least 255 remain, then the rest. */
export function lengthBytes(rest: number): number[] {
	const bytes: number[] = [];
	for (; rest >= 255; rest -= 255) bytes.push(255);
	bytes.push(rest);
	return bytes;
}
