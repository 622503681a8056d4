/**
 * mulberry32: a small, fast, seeded generator of numbers uniform in [0, 1), so that the data made from it (the
 * example stores in data/, the bench's stores, the tests' random rows) is the same bytes on every machine and run.
 * @param {number} seed
 * @returns {() => number}
 */
export function mulberry32(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
