// The values of the zstd frame a decode thread decodes a few times while it waits for its first chunk (see
// src/zarr/codecs/wasm/warm-up.ts): datetime64[ns] counts as the bench's stores hold them (one a second with up to
// 0.4 s of jitter, 1% NaT). scripts/make-warm-up-frame.py (Debian's /usr/bin/python3, python3-zstandard, which can
// set the window numcodecs.js cannot) computes the same values and writes the frame; test/warm-up-frame.test.ts
// checks that the frame decodes to these.

/** The frame's values: the same each time (a 64-bit linear congruential generator). */
export function warmUpValues(length = 8192) {
	const values = new BigInt64Array(length);
	let state = 0x2545f491n;
	for (let i = 0; i < length; i++) {
		state = (state * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
		const jitter = ((state >> 20n) % 800_000_000n) - 400_000_000n;
		values[i] = (state >> 57n) % 100n === 0n ? -(2n ** 63n) : 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n + jitter;
	}
	return values;
}
