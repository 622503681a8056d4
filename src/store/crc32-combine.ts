/**
 * The CRC-32 (zlib's, the zip's) of two pieces of bytes one after the other, from the CRC-32 of each and the second's
 * length, without their bytes: appending `length` bytes multiplies the first piece's remainder by x^(8·length)
 * modulo the polynomial (the pre- and post-conditioning cancel out), and the second's CRC-32 is added (XOR). Values
 * are in the reflected bit order zlib uses: bit 31 is x^0.
 */

/** The CRC-32 polynomial, reflected. */
const POLYNOMIAL = 0xedb88320;
/** x^0 (the polynomial 1) in the reflected order. */
const ONE = 0x80000000;
/** x^8: one byte's shift. */
const X_TO_8 = ONE >>> 8;

/** a·b modulo the polynomial. */
function multiplyModulo(a: number, b: number): number {
	let product = 0;
	for (let bit = ONE; bit !== 0; bit >>>= 1) {
		if ((a & bit) !== 0) product ^= b;
		b = (b & 1) !== 0 ? (b >>> 1) ^ POLYNOMIAL : b >>> 1;
	}
	return product >>> 0;
}

/** x^(8·bytes) modulo the polynomial, by squaring (bytes: a safe integer). */
function byteShift(bytes: number): number {
	let result = ONE;
	let power = X_TO_8;
	for (let rest = bytes; rest > 0; rest = Math.floor(rest / 2)) {
		if (rest % 2 === 1) result = multiplyModulo(result, power);
		power = multiplyModulo(power, power);
	}
	return result;
}

/** The CRC-32 of A followed by B, given crc32(A), crc32(B) and B's length in bytes. */
export function crc32Combine(first: number, second: number, secondLength: number): number {
	return (multiplyModulo(byteShift(secondLength), first) ^ second) >>> 0;
}
