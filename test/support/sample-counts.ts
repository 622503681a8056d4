/**
 * Int64 time counts for tests: pseudo-random (a 64-bit linear congruential generator, shifted down to about 2^33
 * either side of zero), the same for a seed on every run, with NaT at every `nat.every`-th value from `nat.at`.
 */
const NAT = -(2n ** 63n);

export function sampleCounts(n: number, seed: number, nat: { every: number; at: number }): BigInt64Array {
	const out = new BigInt64Array(n);
	let x = BigInt(seed);
	for (let i = 0; i < n; i++) {
		x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
		out[i] = i % nat.every === nat.at ? NAT : BigInt.asIntN(64, x) >> 30n;
	}
	return out;
}
