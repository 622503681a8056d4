/** Whether bits [start, start + count) of an Arrow validity bitmap (LSB first) are all set: whole bytes compared at once. */
export function allSet(bits: Uint8Array, start: number, count: number): boolean {
	let i = start;
	const end = start + count;
	for (; i < end && (i & 7) !== 0; i++) if (((bits[i >> 3] >> (i & 7)) & 1) === 0) return false;
	for (; i + 8 <= end; i += 8) if (bits[i >> 3] !== 0xff) return false;
	for (; i < end; i++) if (((bits[i >> 3] >> (i & 7)) & 1) === 0) return false;
	return true;
}
