/**
 * The zstd decoder on the paths its 64-bit bit containers change (scripts/build-wasm-codecs.sh compiles zstd's
 * decoding half for wasm32 with U64 containers, so that it runs the fast Huffman loops and sequence decoding of a
 * 64-bit build): frames written by libzstd 1.5.4 through python3-zstandard (test/golden/make_zstd_fixtures.py)
 * with Huffman-coded literals of few and many symbols, small blocks, datetimes, and an offset of more than 2**25
 * bytes. Each decodes to what libzstd decoded, on the calling thread and on the decode threads. And corrupted
 * copies of one frame get the answers native libzstd gives them: the same bytes, or an error.
 *
 * The frames with a small window ("window-": a checksum, no content size, several frames and a skippable one, RLE
 * blocks before random bytes) and the corrupted copies of one of them go through the decoder in steps too
 * (decoder-module.ts, with an output window of 1 KiB), apart and in one buffer with their output as a decode
 * thread decodes them.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { CODECS } from "../src/zarr/codecs/codec-map.js";
import type { BytesToBytesCodec } from "../src/zarr/codecs/codec.js";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { BufferPool } from "../src/memory/buffer-pool.js";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures", "zstd");

interface Fixtures {
	readonly cases: { readonly name: string; readonly length: number; readonly sha256: string }[];
	readonly mutations: Mutations;
	readonly windowedMutations: Mutations;
}
interface Mutations {
	readonly of: string;
	readonly seed: number;
	readonly capacity: number;
	readonly answers: string[];
}
const fixtures = JSON.parse(fs.readFileSync(path.join(FIXTURES, "cases.json"), "utf8")) as Fixtures;
const frame = (name: string) => new Uint8Array(fs.readFileSync(path.join(FIXTURES, `${name}.zst`)));
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** make_zstd_fixtures.py's generator: x = x * 1103515245 + 12345 (mod 2**32), as a fraction of 2**32. */
function lcg(seed: number): () => number {
	let x = BigInt(seed);
	return () => {
		x = (x * 1103515245n + 12345n) % 4294967296n;
		return Number(x) / 4294967296;
	};
}

/** make_zstd_fixtures.py's mutate(): 1 to 4 bytes changed past the 6-byte frame header, 1 copy in 10 cut short. */
function mutate(bytes: Uint8Array, next: () => number): Uint8Array {
	let data = bytes.slice();
	const changes = 1 + Math.floor(next() * 4);
	for (let i = 0; i < changes; i++) {
		const at = 6 + Math.floor(next() * (data.length - 6));
		if (next() < 0.5) data[at]! ^= 1 << Math.floor(next() * 8);
		else data[at] = Math.floor(next() * 256);
	}
	if (next() < 0.1) data = data.subarray(0, 64 + Math.floor(next() * (data.length - 64)));
	return data;
}

describe("zstd frames through the 64-bit decoding paths", () => {
	const decoders = new WasmDecoders();

	it("covers Huffman literals of few and many symbols at levels 1, 3 and 19, datetimes, small blocks and a far offset", () => {
		expect(fixtures.cases.map((c) => c.name).sort()).toEqual(
			[
				"datetimes-3",
				"few-symbols-1",
				"few-symbols-19",
				"few-symbols-3",
				"long-offset",
				"many-symbols-1",
				"many-symbols-19",
				"many-symbols-3",
				"small-blocks-3",
				"window-12-many-symbols-3",
				"window-12-zeros-then-random",
				"window-13-no-content-size",
				"window-14-datetimes-checksum",
				"window-multi-frame",
			].sort(),
		);
		expect(fixtures.cases.find((c) => c.name === "long-offset")!.length).toBeGreaterThan(2 ** 25 + 512 * 1024);
	});

	for (const c of fixtures.cases) {
		it(`${c.name} decodes to libzstd's bytes on the calling thread`, () => {
			const output = new Uint8Array(c.length);
			const length = decoders.decode("zstd", frame(c.name), output).length;
			expect(length).toBe(c.length);
			expect(sha256(output)).toBe(c.sha256);
		});
	}

	it("every frame decodes to libzstd's bytes on the decode threads, through the pipeline's zstd codec", async () => {
		const pool = new BufferPool();
		await Promise.all(
			fixtures.cases.map(async (c) => {
				const codec = CODECS.get("zstd")!({}, { shape: [c.length], dataType: "uint8", maxDecodedBytes: c.length, bufferPool: pool }) as BytesToBytesCodec;
				const decoded = await codec.decode(frame(c.name));
				expect(decoded.byteLength, c.name).toBe(c.length);
				expect(sha256(decoded), c.name).toBe(c.sha256);
			}),
		);
	});

	it("a frame one byte larger than its buffer is refused", () => {
		const c = fixtures.cases.find((c) => c.name === "many-symbols-3")!;
		expect(() => decoders.decode("zstd", frame(c.name), new Uint8Array(c.length - 1))).toThrow(/^zstd: the chunk does not decompress/);
	});

	it(`${fixtures.mutations.answers.length} corrupted copies of a frame get native libzstd's answers: its bytes, or an error`, () => {
		const output = new Uint8Array(fixtures.mutations.capacity);
		expectNativeAnswers(fixtures.mutations, (bytes) => output.subarray(0, decoders.decode("zstd", bytes, output).length));
	});
});

/** Decodes the corrupted copies of `mutations.of` with `decode` and expects native libzstd's answer to each. */
function expectNativeAnswers(mutations: Mutations, decode: (bytes: Uint8Array) => Uint8Array): void {
	const next = lcg(mutations.seed);
	const base = frame(mutations.of);
	const got = mutations.answers.map(() => {
		try {
			return sha256(decode(mutate(base, next)));
		} catch (error) {
			expect((error as Error).message).toMatch(/^zstd: the chunk does not decompress \(.+\)$/);
			return "error";
		}
	});
	expect(got.filter((answer, i) => answer !== mutations.answers[i]).length).toBe(0);
	expect(mutations.answers.filter((answer) => answer === "error").length).toBeGreaterThan(20);
}

/** The encoded bytes at the start of a buffer that the output then fills, decoded as a decode thread decodes them. */
function decodeInOneBuffer(decoders: WasmDecoders, bytes: Uint8Array, capacity: number): Uint8Array {
	const buffer = new ArrayBuffer(Math.max(bytes.length, capacity));
	new Uint8Array(buffer).set(bytes);
	return new Uint8Array(buffer, 0, decoders.decodeInBuffer("zstd", buffer, bytes.length, capacity).length);
}

describe("zstd frames decoded in steps, a window of output at a time", () => {
	const windowed = fixtures.cases.filter((c) => c.name.startsWith("window-"));

	for (const c of windowed) {
		it(`${c.name} decodes to libzstd's bytes in steps, apart and in one buffer with its output`, () => {
			const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
			const output = new Uint8Array(c.length);
			expect(stepped.decode("zstd", frame(c.name), output).length).toBe(c.length);
			expect(sha256(output)).toBe(c.sha256);
			expect(sha256(decodeInOneBuffer(stepped, frame(c.name), c.length))).toBe(c.sha256);
			expect(stepped.decodedInSteps).toBe(2);
		});
	}

	it("the zeros before random bytes run the output 150 kB ahead of the input, in one buffer, from its start", () => {
		const c = fixtures.cases.find((c) => c.name === "window-12-zeros-then-random")!;
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		const bytes = frame(c.name);
		const buffer = new ArrayBuffer(c.length);
		new Uint8Array(buffer).set(bytes);
		// decode(), not decodeInBuffer(): the input stays at the start of the buffer, where the output overtakes it.
		const decoded = stepped.decode("zstd", new Uint8Array(buffer, 0, bytes.length), new Uint8Array(buffer, 0, c.length));
		expect(decoded.length).toBe(c.length);
		expect(sha256(new Uint8Array(buffer, 0, c.length))).toBe(c.sha256);
		expect(stepped.decodedInSteps).toBe(1);
	});

	it("a frame whose header declares a smaller window than its matches reach is refused in steps, as zstd -d refuses it, and read whole", () => {
		const c = fixtures.cases.find((c) => c.name === "window-12-many-symbols-3")!;
		const lowered = frame(c.name).slice();
		expect(lowered[5]).toBe((12 - 10) << 3); // the window descriptor: 2^12 bytes
		lowered[5] = 0; // 2^10
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		expect(() => stepped.decode("zstd", lowered, new Uint8Array(c.length))).toThrow(/^zstd: the chunk does not decompress \(/);
		expect(stepped.decodedInSteps).toBe(0);
		const output = new Uint8Array(c.length);
		expect(new WasmDecoders().decode("zstd", lowered, output).length).toBe(c.length);
		expect(sha256(output)).toBe(c.sha256);
	});

	it(`${fixtures.windowedMutations.answers.length} corrupted copies of a frame with a small window get native libzstd's answers, decoded in steps`, () => {
		const stepped = new WasmDecoders(undefined, { windowBytes: 1024 });
		expectNativeAnswers(fixtures.windowedMutations, (bytes) => decodeInOneBuffer(stepped, bytes, fixtures.windowedMutations.capacity));
		expect(stepped.decodedInSteps).toBeGreaterThan(300);
		const whole = new WasmDecoders();
		const output = new Uint8Array(fixtures.windowedMutations.capacity);
		expectNativeAnswers(fixtures.windowedMutations, (bytes) => output.subarray(0, whole.decode("zstd", bytes, output).length));
	});
});

