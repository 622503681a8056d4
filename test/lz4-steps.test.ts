/**
 * lz4 chunks decoded in steps (lz4-steps.c through decoder-module.ts), against liblz4 1.9.4 decoding them whole
 * (LZ4_decompress_safe, in the same decoders.wasm): on blocks generated here sequence by sequence, which reach every
 * path of the format (literal and match lengths on each side of 15 and of each 255 of their length bytes, matches
 * that overlap their own output, offsets up to 65535, matches that run across many windows), and on those blocks
 * changed, cut short, lengthened and mislabelled. Decoded in steps, a block gives liblz4's bytes or is refused
 * where liblz4 refuses it, at every window size down to 8 bytes (the input then comes 4 bytes at a time, so every
 * field of a sequence is cut somewhere); the one difference is a match offset of 0, which liblz4 lets through.
 * numcodecs' own lz4 chunks decoded in steps are in wasm-codecs.test.ts.
 */
import { describe, expect, it } from "vitest";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { lengthBytes } from "./support/lz4-lengths.js";

/** A seeded generator of integers in [0, n). */
function generator(seed: number): (n: number) => number {
	let x = seed >>> 0 || 1;
	return (n) => {
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		return x % n;
	};
}

/** One of the lengths that reach a path of the decoder: short, on each side of 15 and of 15 + 255k, or long. */
function pickLength(random: (n: number) => number, long: number): number {
	const edges = [0, 1, 3, 7, 8, 14, 15, 16, 30, 269, 270, 271, 524, 525, 526];
	const kind = random(10);
	if (kind < 5) return edges[random(edges.length)];
	if (kind < 9) return random(40);
	return random(long);
}

interface Block {
	/** numcodecs' framing: the decoded size (4 bytes, little endian), then the block. */
	readonly frame: Uint8Array;
	readonly decoded: Uint8Array;
}

interface Sequence {
	readonly literals: number[];
	readonly offset: number;
	readonly match: number;
}

/**
 * A valid block of about `size` decoded bytes, built sequence by sequence from literals drawn from a small
 * alphabet (so that some runs repeat) and matches at random offsets, and obeying the format's end rules: the last
 * sequence is at least 5 literals, and the last match starts at least 12 bytes before the end.
 */
function randomBlock(seed: number, size: number, long = 5000): Block {
	const random = generator(seed);
	const sequences: Sequence[] = [];
	let produced = 0;
	const alphabet = 1 + random(255);
	let previousMatch = 0;
	for (;;) {
		let literals = pickLength(random, long);
		const match = 4 + pickLength(random, long);
		const last = produced + literals + match + 12 >= size;
		// The last literals: at least 5, and enough that the last match started 12 or more bytes before the end (at
		// the least that allows, to reach the decoder's end checks exactly).
		if (last) literals = previousMatch === 0 ? Math.max(1, literals % 64) : Math.max(5, 12 - previousMatch, literals % 64);
		// A first match needs output to reach back to.
		if (produced === 0 && literals === 0) literals = 1;
		const bytes = Array.from({ length: literals }, () => random(alphabet));
		produced += literals;
		if (last) return blockOf(sequences, bytes);
		const reach = Math.min(produced, 65535);
		const offset = 1 + (random(3) === 0 ? random(Math.min(reach, 8)) : random(reach));
		sequences.push({ literals: bytes, offset, match });
		produced += match;
		previousMatch = match;
	}
}

/** The block of `sequences` (each literals, then a match) and `last` literals, with its decoded bytes. */
function blockOf(sequences: Sequence[], last: number[]): Block {
	const out: number[] = [];
	const block: number[] = [];
	const literalsOf = (literals: number[], match: number) => {
		block.push((Math.min(literals.length, 15) << 4) | Math.min(match, 15));
		if (literals.length >= 15) block.push(...lengthBytes(literals.length - 15));
		for (const byte of literals) {
			block.push(byte);
			out.push(byte);
		}
	};
	for (const { literals, offset, match } of sequences) {
		literalsOf(literals, match - 4);
		block.push(offset & 0xff, offset >>> 8);
		if (match - 4 >= 15) block.push(...lengthBytes(match - 4 - 15));
		for (let i = 0; i < match; i++) out.push(out[out.length - offset]);
	}
	literalsOf(last, 0);
	const frame = new Uint8Array(4 + block.length);
	new DataView(frame.buffer).setUint32(0, out.length, true);
	frame.set(block, 4);
	return { frame, decoded: Uint8Array.from(out) };
}

/** What decoding `frame` gives: the decoded bytes, or the error's message. */
function answer(decoders: WasmDecoders, frame: Uint8Array): { bytes?: Uint8Array; error?: string } {
	const declared = frame.byteLength >= 4 ? new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0, true) : 0;
	const output = new Uint8Array(Math.min(declared, 1 << 20) + 64);
	try {
		const { length } = decoders.decode("lz4", frame, output);
		return { bytes: output.slice(0, length) };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

/** liblz4's answer: a window so large that every block here is decoded whole. */
const whole = new WasmDecoders(undefined, { windowBytes: 1 << 24 });
const WINDOWS = [8, 16, 1000, 4096, 65536];
const stepped = WINDOWS.map((windowBytes) => new WasmDecoders(undefined, { windowBytes }));

/** Checks that every stepped decoder that steps gives liblz4's answer for `frame`; how many stepped it. */
function sameAsLiblz4(frame: Uint8Array, label: string): number {
	const reference = answer(whole, frame);
	expect(whole.decodedInSteps).toBe(0);
	let steppedCount = 0;
	for (const decoders of stepped) {
		const before = decoders.decodedInSteps;
		const got = answer(decoders, frame);
		if (decoders.decodedInSteps === before && got.error === undefined) {
			// Too small to step (or refused before stepping): decoded whole, by liblz4 itself.
			expect(Buffer.compare(got.bytes!, reference.bytes!), label).toBe(0);
			continue;
		}
		steppedCount++;
		if (reference.error !== undefined) {
			expect(got.error, `${label}: liblz4 refuses it (${reference.error}), steps decoded it`).toMatch(/^lz4: /);
		} else if (got.error !== undefined) {
			expect(got.error, `${label}: liblz4 decodes it, steps refused it`).toBe("lz4: the chunk does not decompress (a match offset of 0)");
		} else {
			expect(Buffer.compare(got.bytes!, reference.bytes!), label).toBe(0);
		}
	}
	return steppedCount;
}

describe("lz4 blocks decoded in steps", () => {
	it("generated blocks decode to their bytes, at every window size, as liblz4 decodes them", () => {
		let steppedCount = 0;
		for (let seed = 1; seed <= 300; seed++) {
			const size = [40, 300, 5000, 70_000, 200_000][seed % 5];
			const { frame, decoded } = randomBlock(seed, size, seed % 7 === 0 ? 200_000 : 5000);
			const reference = answer(whole, frame);
			expect(reference.error, `seed ${seed}`).toBeUndefined();
			expect(Buffer.compare(reference.bytes!, decoded), `seed ${seed}`).toBe(0);
			steppedCount += sameAsLiblz4(frame, `seed ${seed}`);
		}
		// Every block of 5000 bytes and more steps in at least the three smallest windows.
		expect(steppedCount).toBeGreaterThan(180 * 3);
	});

	it("blocks with a byte changed, cut short, lengthened or mislabelled get liblz4's answer", () => {
		let refused = 0;
		let cases = 0;
		for (let seed = 1; seed <= 60; seed++) {
			const { frame } = randomBlock(1000 + seed, [300, 5000, 20_000][seed % 3]);
			const random = generator(seed * 7919);
			const variants: [string, Uint8Array][] = [];
			for (let k = 0; k < 12; k++) {
				const changed = frame.slice();
				const at = 4 + random(frame.length - 4);
				changed[at] = random(3) === 0 ? changed[at] ^ (1 << random(8)) : random(256);
				variants.push([`byte ${at} changed`, changed]);
			}
			const cut = 4 + random(frame.length - 4);
			variants.push([`cut to ${cut}`, frame.slice(0, cut)], ["one byte short", frame.slice(0, -1)]);
			variants.push(["a byte more", Buffer.concat([frame, Uint8Array.of(random(256))])]);
			for (const delta of [-1, 1, -5, 8]) {
				const relabelled = frame.slice();
				const view = new DataView(relabelled.buffer);
				view.setUint32(0, view.getUint32(0, true) + delta, true);
				variants.push([`declared ${delta > 0 ? "+" : ""}${delta}`, relabelled]);
			}
			for (const [what, bytes] of variants) {
				sameAsLiblz4(bytes, `seed ${seed}, ${what}`);
				if (answer(whole, bytes).error !== undefined) refused++;
				cases++;
			}
		}
		// Most changes are refused (a changed literal byte is not noticed: lz4 has no checksum).
		expect(refused).toBeGreaterThan(cases / 3);
	});

	it("random bytes after a declared size get liblz4's answer", () => {
		const random = generator(99);
		for (let k = 0; k < 3000; k++) {
			const length = 1 + random(200);
			const frame = new Uint8Array(4 + length);
			for (let i = 4; i < frame.length; i++) frame[i] = random(4) === 0 ? 0 : random(256);
			new DataView(frame.buffer).setUint32(0, 32 + random(400), true);
			sameAsLiblz4(frame, `random ${k}`);
		}
	});

	it("holds the format's end rules at their edges, as liblz4 does: the byte past each is refused", () => {
		const bytes = (n: number, from = 1) => Array.from({ length: n }, (_, i) => (from + i) & 0xff);
		const cases: [string, Sequence[], number[], boolean][] = [
			// The last match starts 12 bytes before the end (its literals may not end later), then 11.
			["last match 12 bytes from the end", [{ literals: bytes(40), offset: 40, match: 5 }], bytes(7, 90), true],
			["last match 11 bytes from the end", [{ literals: bytes(40), offset: 40, match: 5 }], bytes(6, 90), false],
			// The last 5 bytes are literals, then 4 (the match ends 4 bytes from the end).
			["last literals 5", [{ literals: bytes(40), offset: 40, match: 8 }], bytes(5, 90), true],
			["last literals 4", [{ literals: bytes(40), offset: 40, match: 8 }], bytes(4, 90), false],
			// The same after a match with a length byte: the input then has room for the 8 bytes after the literals,
			// and only the match's end is wrong.
			["last literals 5 after a long match", [{ literals: bytes(40), offset: 40, match: 30 }], bytes(5, 90), true],
			["last literals 4 after a long match", [{ literals: bytes(40), offset: 40, match: 30 }], bytes(4, 90), false],
			// A match reaches back to the output's first byte, then one byte before it.
			["a match from the first byte", [{ literals: bytes(40), offset: 40, match: 300 }, { literals: bytes(3), offset: 343, match: 20 }], bytes(20, 90), true],
			["a match from before the first byte", [{ literals: bytes(40), offset: 40, match: 300 }, { literals: bytes(3), offset: 344, match: 20 }], bytes(20, 90), false],
			// The same with short literals and matches, which the decoder takes in one go where the window has room (a
			// window of 1000 bytes: the block is 4 windows long).
			["a short match from the first byte", [{ literals: bytes(3), offset: 3, match: 4 }, { literals: bytes(2), offset: 9, match: 6 }], bytes(4100, 90), true],
			["a short match from before the first byte", [{ literals: bytes(3), offset: 3, match: 4 }, { literals: bytes(2), offset: 10, match: 6 }], bytes(4100, 90), false],
			// 65535 back, the furthest an offset reaches, across windows of every size here.
			["a match 65535 back", [{ literals: bytes(70_000), offset: 65_535, match: 70_000 }], bytes(20, 90), true],
		];
		// The first six again after 4000 literals and a match of 30: their sequences are then decoded straight where
		// the window has room (windows of 1000 and 4096 bytes), literals of 15 or more and matches of 19 or more too.
		const before = { literals: bytes(4000), offset: 4000, match: 30 };
		for (const [what, sequences, last, valid] of cases.slice(0, 6)) cases.push([`${what}, after 4000 bytes`, [before, ...sequences], last, valid]);
		for (const [what, sequences, last, valid] of cases) {
			const { frame, decoded } = blockOf(sequences, last);
			const reference = answer(whole, frame);
			if (valid) expect(Buffer.compare(reference.bytes!, decoded), what).toBe(0);
			else expect(reference.error, what).toMatch(/^lz4: /);
			expect(sameAsLiblz4(frame, what), what).toBeGreaterThan(0);
		}
	});

	it("refuses a match offset of 0, which liblz4 lets through", () => {
		// 16 literals, then a match of 4 at offset 0, then 12 literals.
		const block = [0xf0, 1, ...Array.from({ length: 16 }, (_, i) => i + 1), 0x00, 0x00, 0xc0, ...Array.from({ length: 12 }, (_, i) => i + 100)];
		const frame = new Uint8Array(4 + block.length);
		new DataView(frame.buffer).setUint32(0, 32, true);
		frame.set(block, 4);
		expect(answer(whole, frame).error).toBeUndefined();
		expect(answer(stepped[0], frame).error).toBe("lz4: the chunk does not decompress (a match offset of 0)");
	});

	it("an empty chunk is one zero byte, as liblz4 has it", () => {
		for (const decoders of [whole, ...stepped]) {
			expect(answer(decoders, Uint8Array.of(0, 0, 0, 0, 0)).bytes).toEqual(new Uint8Array(0));
			expect(answer(decoders, Uint8Array.of(0, 0, 0, 0, 1)).error).toMatch(/^lz4: /);
			expect(answer(decoders, Uint8Array.of(0, 0, 0, 0)).error).toMatch(/^lz4: /);
		}
	});
});
