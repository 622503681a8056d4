/**
 * Large zstd, blosc and lz4 chunks decoded in steps, a window of output at a time (decoder-module.ts): on chunks of
 * 8 MB built here from raw and RLE blocks (lz4: literals, and a match of zeros), whose bytes are known without an
 * encoder, the decoders' memory stays a few MiB where decoding whole took the decoded size; output written over the
 * chunk's own encoded bytes (as the decode threads do) never reaches bytes not yet read, even where the output runs
 * megabytes ahead of the input; NaT is found in values cut by a step's end; and corruption is refused as the
 * one-shot decoders refuse it. The reference encoders' frames decoded in steps are in zstd-decoder.test.ts and
 * wasm-codecs.test.ts, lz4's rules against liblz4 in lz4-steps.test.ts.
 */
import { describe, expect, it } from "vitest";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { lengthBytes } from "./support/lz4-lengths.js";

const MAX_BLOCK = 128 * 1024;
const NAT = -(2n ** 63n);

/** 8-byte values: a datetime every second, NaT at `nat`. */
function datetimes(count: number, nat: number[] = []): Uint8Array {
	const values = BigInt64Array.from({ length: count }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n);
	for (const at of nat) values[at] = NAT;
	return new Uint8Array(values.buffer);
}

function randomBytes(count: number, seed: number): Uint8Array {
	const bytes = new Uint8Array(count);
	let x = seed;
	for (let i = 0; i < count; i++) {
		x = (Math.imul(x, 1103515245) + 12345) >>> 0;
		bytes[i] = x >>> 24;
	}
	return bytes;
}

type Block = { readonly raw: Uint8Array } | { readonly rle: number; readonly size: number };

/**
 * A zstd frame (RFC 8878) of raw and RLE blocks: a window of 2^windowLog bytes (not single-segment), the content
 * size declared in 4 bytes.
 */
function zstdFrame(blocks: Block[], windowLog: number): Uint8Array {
	const content = blocks.reduce((sum, block) => sum + ("raw" in block ? block.raw.length : block.size), 0);
	const parts: Uint8Array[] = [Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x80, (windowLog - 10) << 3, content & 0xff, (content >>> 8) & 0xff, (content >>> 16) & 0xff, content >>> 24)];
	blocks.forEach((block, i) => {
		const last = i === blocks.length - 1 ? 1 : 0;
		const size = "raw" in block ? block.raw.length : block.size;
		const header = (size << 3) | (("raw" in block ? 0 : 1) << 1) | last;
		parts.push(Uint8Array.of(header & 0xff, (header >>> 8) & 0xff, header >>> 16));
		parts.push("raw" in block ? block.raw : Uint8Array.of(block.rle));
	});
	return Buffer.concat(parts);
}

/** `data` as raw zstd blocks of `blockBytes` (at most 128 KiB). */
function rawBlocks(data: Uint8Array, blockBytes = MAX_BLOCK): Block[] {
	const blocks: Block[] = [];
	for (let at = 0; at < data.length; at += blockBytes) blocks.push({ raw: data.subarray(at, at + blockBytes) });
	return blocks;
}

/**
 * An LZ4 block (the format blosc's lz4 compressor writes) of `size` zero bytes: one literal zero, a match of the byte
 * before it, and the five literals the format ends with.
 */
function lz4Zeros(size: number): Uint8Array {
	return Uint8Array.from([0x1f, 0, 1, 0, ...lengthBytes(size - 1 - 5 - 4 - 15), 0x50, 0, 0, 0, 0, 0]);
}

/**
 * A blosc 1 buffer of `data` without shuffle or splits, with blosc's lz4 compressor: each block stored as is (a
 * block whose compressed size is its size is copied by blosc), or, where `zeros` says and the block is all zeros, as
 * an LZ4 block of a few bytes.
 */
function bloscBuffer(data: Uint8Array, blocksize: number, typesize = 8, zeros: (block: number) => boolean = () => false): Uint8Array {
	const count = Math.ceil(data.length / blocksize);
	const blocks = Array.from({ length: count }, (_, j) => {
		const block = data.subarray(j * blocksize, (j + 1) * blocksize);
		return zeros(j) ? lz4Zeros(block.length) : block;
	});
	const headerBytes = 16 + 4 * count;
	const total = headerBytes + blocks.reduce((sum, block) => sum + 4 + block.length, 0);
	const buffer = new Uint8Array(total);
	const view = new DataView(buffer.buffer);
	buffer.set([2, 1, 0x10 | (1 << 5), typesize]);
	view.setUint32(4, data.length, true);
	view.setUint32(8, blocksize, true);
	view.setUint32(12, total, true);
	let at = headerBytes;
	blocks.forEach((block, j) => {
		view.setUint32(16 + 4 * j, at, true);
		view.setUint32(at, block.length, true);
		buffer.set(block, at + 4);
		at += 4 + block.length;
	});
	return buffer;
}

/** The encoded bytes at the start of a buffer of `capacity` bytes that the output then fills, as a decode thread has them. */
function inOneBuffer(encoded: Uint8Array, capacity: number): { input: Uint8Array; output: Uint8Array } {
	const buffer = new ArrayBuffer(Math.max(capacity, encoded.length));
	const input = new Uint8Array(buffer, 0, encoded.length);
	input.set(encoded);
	return { input, output: new Uint8Array(buffer, 0, capacity) };
}

const CHUNK_BYTES = 8_000_000;

describe("zstd chunks of 8 MB decoded in steps", () => {
	it("decode into their own buffer with a few MiB of WebAssembly memory, where whole they took 8 MB more", () => {
		const data = datetimes(CHUNK_BYTES / 8, [0, 77, 999_999]);
		const frame = zstdFrame(rawBlocks(data), 19);
		const decoders = new WasmDecoders();
		const before = decoders.memoryBytes;
		const { input, output } = inOneBuffer(frame, CHUNK_BYTES);
		const decoded = decoders.decode("zstd", input, output, true);
		expect(decoded.length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(output, data)).toBe(0);
		expect(Array.from(decoded.natPositions!)).toEqual([0, 77, 999_999]);
		expect(decoders.decodedInSteps).toBe(1);
		// A 512 KiB window of zstd's, a 512 KiB window of output, and the input staged ahead of it.
		expect(decoders.memoryBytes - before).toBeLessThan(4 * 2 ** 20);

		// A frame whose window is the whole chunk is decoded whole: in steps it would hold more.
		const whole = new WasmDecoders();
		const wholeOutput = new Uint8Array(CHUNK_BYTES);
		expect(whole.decode("zstd", zstdFrame(rawBlocks(data), 23), wholeOutput).length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(wholeOutput, data)).toBe(0);
		expect(whole.decodedInSteps).toBe(0);
		expect(whole.memoryBytes).toBeGreaterThan(CHUNK_BYTES);
	});

	it("in a decode thread's buffer, leave the bytes past the chunk's room untouched (they never take memory)", () => {
		// 1 MiB of zeros in RLE blocks, then datetimes in raw blocks: a frame of 7 MB.
		const data = new Uint8Array(CHUNK_BYTES);
		data.set(datetimes((CHUNK_BYTES - 8 * MAX_BLOCK) / 8), 8 * MAX_BLOCK);
		const frame = zstdFrame([...Array.from({ length: 8 }, () => ({ rle: 0, size: MAX_BLOCK })), ...rawBlocks(data.subarray(8 * MAX_BLOCK))], 19);
		expect(frame.length).toBeLessThan(CHUNK_BYTES);
		// A buffer of the pool's size class for 8 MB, the chunk read to its start, its tail marked.
		const buffer = new ArrayBuffer(8_388_608);
		const whole = new Uint8Array(buffer);
		whole.set(frame);
		whole.fill(0xee, CHUNK_BYTES);
		const decoders = new WasmDecoders();
		expect(decoders.decodeInBuffer("zstd", buffer, frame.length, CHUNK_BYTES).length).toBe(CHUNK_BYTES);
		expect(decoders.decodedInSteps).toBe(1);
		expect(Buffer.compare(whole.subarray(0, CHUNK_BYTES), data)).toBe(0);
		expect(whole.subarray(CHUNK_BYTES).every((byte) => byte === 0xee)).toBe(true);
	});

	it("never write output over encoded bytes not yet read, where the output runs 6 MB ahead of the input", () => {
		// 6 MB from RLE blocks of 4 bytes each, then 2 MB of random raw blocks: the output reaches the raw blocks'
		// bytes in the shared buffer long before the decoder reads them.
		const random = randomBytes(2_000_000, 7);
		const blocks: Block[] = [];
		for (let at = 0; at < 6_000_000; at += MAX_BLOCK) blocks.push({ rle: (at / MAX_BLOCK) & 0xff, size: Math.min(MAX_BLOCK, 6_000_000 - at) });
		blocks.push(...rawBlocks(random));
		const frame = zstdFrame(blocks, 17);
		const expected = new Uint8Array(CHUNK_BYTES);
		for (let at = 0; at < 6_000_000; at += MAX_BLOCK) expected.fill((at / MAX_BLOCK) & 0xff, at, Math.min(at + MAX_BLOCK, 6_000_000));
		expected.set(random, 6_000_000);
		const decoders = new WasmDecoders();
		const { input, output } = inOneBuffer(frame, CHUNK_BYTES);
		expect(decoders.decode("zstd", input, output).length).toBe(CHUNK_BYTES);
		expect(decoders.decodedInSteps).toBe(1);
		expect(Buffer.compare(output, expected)).toBe(0);
		// The whole input was staged before the output reached it, and no more than it.
		expect(decoders.memoryBytes).toBeLessThan(frame.length + 3 * 2 ** 20);
	});

	it("find NaT in values cut by a step's end, as decoding whole finds them", () => {
		// Raw blocks of an odd size and a small window: steps end anywhere in a value.
		const nat = [0, 1, 2, 500, 12_499, 12_500, 12_501, 99_998, 99_999];
		const data = datetimes(100_000, nat);
		const frame = zstdFrame(rawBlocks(data, 10_007), 14);
		const stepped = new WasmDecoders(undefined, { windowBytes: 1000 });
		const output = new Uint8Array(data.length);
		const decoded = stepped.decode("zstd", frame, output, true);
		expect(stepped.decodedInSteps).toBe(1);
		expect(Buffer.compare(output, data)).toBe(0);
		expect(Array.from(decoded.natPositions!)).toEqual(nat);
		expect(Array.from(new WasmDecoders().decode("zstd", frame, new Uint8Array(data.length), true).natPositions!)).toEqual(nat);

		// Big-endian NaT (unswapped, 0x80 first) is listed too; a value that is neither is not.
		const bigEndian = datetimes(100_000);
		bigEndian.set([0x80, 0, 0, 0, 0, 0, 0, 0], 8 * 4242);
		bigEndian.set([0x80, 0, 0, 0, 0, 0, 0, 1], 8 * 4243);
		const found = stepped.decode("zstd", zstdFrame(rawBlocks(bigEndian, 10_007), 14), new Uint8Array(bigEndian.length), true).natPositions!;
		expect(Array.from(found)).toEqual([4242]);
	});

	it("say the bytes are not whole values, and give up listing NaT where more than one in 16 may be", () => {
		const stepped = new WasmDecoders(undefined, { windowBytes: 1000 });
		const odd = randomBytes(100_003, 3);
		expect(stepped.decode("zstd", zstdFrame(rawBlocks(odd, 10_007), 14), new Uint8Array(odd.length), true)).toEqual({ length: odd.length, natPositions: null });
		const allNaT = datetimes(20_000, Array.from({ length: 20_000 }, (_, i) => i));
		expect(stepped.decode("zstd", zstdFrame(rawBlocks(allNaT, 10_007), 14), new Uint8Array(allNaT.length), true).natPositions).toBeNull();
	});

	it("refuse output past the buffer, a cut frame and a content size that does not match, as decoding whole does", () => {
		const data = datetimes(100_000);
		const frame = zstdFrame(rawBlocks(data, 10_007), 14);
		const stepped = new WasmDecoders(undefined, { windowBytes: 1000 });
		expect(() => stepped.decode("zstd", frame, new Uint8Array(data.length - 8))).toThrow(/^zstd: the chunk does not decompress \(Destination buffer is too small\)$/);
		expect(() => stepped.decode("zstd", frame.subarray(0, frame.length - 100), new Uint8Array(data.length))).toThrow(/^zstd: the chunk does not decompress \(/);
		const lying = frame.slice();
		lying[6] ^= 1; // the declared content size, one more or less than the blocks hold
		expect(() => stepped.decode("zstd", lying, new Uint8Array(data.length + 8))).toThrow(/^zstd: the chunk does not decompress \(/);
		// A frame that does not parse is left to the one-shot decoder, which names the failure.
		expect(() => stepped.decode("zstd", Uint8Array.of(1, 2, 3, 4, 5), new Uint8Array(data.length))).toThrow(/^zstd: the chunk does not decompress \(Src size is incorrect\)$/);
		expect(stepped.decodedInSteps).toBe(0);
	});
});

describe("blosc chunks of 8 MB decoded a run of blocks at a time", () => {
	it("decode into their own buffer holding the encoded bytes and a few blocks, where whole they held 8 MB more", () => {
		const data = datetimes(CHUNK_BYTES / 8, [3, 65_536, 999_999]);
		const encoded = bloscBuffer(data, 256 * 1024);
		const decoders = new WasmDecoders();
		const before = decoders.memoryBytes;
		const { input, output } = inOneBuffer(encoded, CHUNK_BYTES);
		const decoded = decoders.decode("blosc", input, output, true);
		expect(decoded.length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(output, data)).toBe(0);
		expect(Array.from(decoded.natPositions!)).toEqual([3, 65_536, 999_999]);
		expect(decoders.decodedInSteps).toBe(1);
		expect(decoders.memoryBytes - before).toBeLessThan(encoded.length + 2 * 2 ** 20);
	});

	it("never write output over encoded bytes not yet read, where blocks of zeros run the output 4 MB ahead", () => {
		const data = new Uint8Array(CHUNK_BYTES);
		data.set(randomBytes(CHUNK_BYTES / 2, 9), CHUNK_BYTES / 2);
		const blocksize = 256 * 1024;
		const encoded = bloscBuffer(data, blocksize, 8, (j) => (j + 1) * blocksize <= CHUNK_BYTES / 2);
		expect(encoded.length).toBeLessThan(CHUNK_BYTES / 2 + 100_000);
		for (const decodeFromEnd of [false, true]) {
			const decoders = new WasmDecoders();
			const { input, output } = inOneBuffer(encoded, CHUNK_BYTES);
			const length = decodeFromEnd ? decoders.decodeInBuffer("blosc", input.buffer as ArrayBuffer, input.length, CHUNK_BYTES).length : decoders.decode("blosc", input, output).length;
			expect(length).toBe(CHUNK_BYTES);
			expect(Buffer.compare(output, data)).toBe(0);
			expect(decoders.decodedInSteps).toBe(1);
		}
	});

	it("decode blocks of any size, whole a buffer whose block starts are outside it, and refuse a corrupt block with blosc's status", () => {
		const data = datetimes(CHUNK_BYTES / 8, [1, 65_537, 999_998]);
		const decoders = new WasmDecoders();
		// Blocks that end inside a value: NaT cut by a run's end is still found.
		const uneven = bloscBuffer(data, 256 * 1024 + 4, 4);
		const output = new Uint8Array(CHUNK_BYTES);
		expect(Array.from(decoders.decode("blosc", uneven, output, true).natPositions!)).toEqual([1, 65_537, 999_998]);
		expect(Buffer.compare(output, data)).toBe(0);
		expect(decoders.decodedInSteps).toBe(1);

		const outside = bloscBuffer(data, 256 * 1024);
		new DataView(outside.buffer).setUint32(16 + 4 * 3, outside.length + 10, true);
		expect(() => decoders.decode("blosc", outside, new Uint8Array(CHUNK_BYTES))).toThrow(/^blosc: the chunk does not decompress \(corrupt compressed data\)$/);
		expect(decoders.decodedInSteps).toBe(1);

		const corrupt = bloscBuffer(data, 256 * 1024);
		const view = new DataView(corrupt.buffer);
		const fifth = view.getUint32(16 + 4 * 5, true);
		view.setUint32(fifth, 0x7fffffff, true); // the fifth block says it holds more bytes than the buffer
		expect(() => decoders.decode("blosc", corrupt, new Uint8Array(CHUNK_BYTES))).toThrow(/^blosc: the chunk does not decompress \(corrupt compressed data\)$/);
		expect(() => new WasmDecoders().decode("blosc", corrupt, new Uint8Array(CHUNK_BYTES - 8))).toThrow(/^blosc: the chunk does not decompress \(header sizes do not match the chunk\)$/);
	});
});

/**
 * numcodecs' lz4 framing (the decoded size, then one block) of a block that runs `zeros` zero bytes (one literal
 * zero, then a match of the byte before it) and then `data` as its last literals; `zeros` 0 for literals alone.
 */
function lz4Frame(zeros: number, data: Uint8Array): Uint8Array {
	const bytes: number[] = [];
	if (zeros > 0) bytes.push(0x1f, 0, 1, 0, ...lengthBytes(zeros - 1 - 4 - 15));
	bytes.push(0xf0, ...lengthBytes(data.length - 15));
	const frame = new Uint8Array(4 + bytes.length + data.length);
	new DataView(frame.buffer).setUint32(0, zeros + data.length, true);
	frame.set(bytes, 4);
	frame.set(data, 4 + bytes.length);
	return frame;
}

describe("lz4 chunks of 8 MB decoded in steps", () => {
	it("decode into their own buffer with a few MiB of WebAssembly memory, where whole they took 16 MB more", () => {
		const data = datetimes(CHUNK_BYTES / 8, [0, 77, 999_999]);
		const frame = lz4Frame(0, data);
		const decoders = new WasmDecoders();
		const before = decoders.memoryBytes;
		const { input, output } = inOneBuffer(frame, CHUNK_BYTES);
		const decoded = decoders.decode("lz4", input, output, true);
		expect(decoded.length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(output, data)).toBe(0);
		expect(Array.from(decoded.natPositions!)).toEqual([0, 77, 999_999]);
		expect(decoders.decodedInSteps).toBe(1);
		// A 512 KiB window after 64 KiB of history, and the input staged ahead of it.
		expect(decoders.memoryBytes - before).toBeLessThan(3 * 2 ** 20);

		// Decoded whole (a window too large to step), the input and output both take the module's memory.
		const whole = new WasmDecoders(undefined, { windowBytes: 1 << 24 });
		const wholeOutput = new Uint8Array(CHUNK_BYTES);
		expect(whole.decode("lz4", frame, wholeOutput).length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(wholeOutput, data)).toBe(0);
		expect(whole.memoryBytes).toBeGreaterThan(2 * CHUNK_BYTES);
	});

	it("never write output over encoded bytes not yet read, where the output runs 6 MB ahead of the input", () => {
		const random = randomBytes(2_000_000, 11);
		const frame = lz4Frame(6_000_000, random);
		const expected = new Uint8Array(CHUNK_BYTES);
		expected.set(random, 6_000_000);
		const decoders = new WasmDecoders();
		const { input, output } = inOneBuffer(frame, CHUNK_BYTES);
		expect(decoders.decode("lz4", input, output).length).toBe(CHUNK_BYTES);
		expect(decoders.decodedInSteps).toBe(1);
		expect(Buffer.compare(output, expected)).toBe(0);
		expect(decoders.memoryBytes).toBeLessThan(frame.length + 3 * 2 ** 20);

		// In a decode thread's buffer: the chunk moved to end where the output ends, the bytes past it untouched.
		const buffer = new ArrayBuffer(8_388_608);
		const whole = new Uint8Array(buffer);
		whole.set(frame);
		whole.fill(0xee, CHUNK_BYTES);
		expect(decoders.decodeInBuffer("lz4", buffer, frame.length, CHUNK_BYTES).length).toBe(CHUNK_BYTES);
		expect(Buffer.compare(whole.subarray(0, CHUNK_BYTES), expected)).toBe(0);
		expect(whole.subarray(CHUNK_BYTES).every((byte) => byte === 0xee)).toBe(true);
	});

	it("refuse a declared size past the buffer, a cut block and a size that does not match, as decoding whole does", () => {
		const data = datetimes(CHUNK_BYTES / 8);
		const frame = lz4Frame(0, data);
		for (const decoders of [new WasmDecoders(), new WasmDecoders(undefined, { windowBytes: 1 << 24 })]) {
			expect(() => decoders.decode("lz4", frame, new Uint8Array(CHUNK_BYTES - 8))).toThrow(`lz4: chunk declares ${CHUNK_BYTES} bytes, more than the ${CHUNK_BYTES - 8} it may hold`);
			expect(() => decoders.decode("lz4", frame.subarray(0, frame.length - 1), new Uint8Array(CHUNK_BYTES))).toThrow(/^lz4: the chunk does not decompress/);
			const relabelled = frame.slice();
			new DataView(relabelled.buffer).setUint32(0, CHUNK_BYTES - 8, true);
			expect(() => decoders.decode("lz4", relabelled, new Uint8Array(CHUNK_BYTES))).toThrow(/^lz4: /);
		}
	});
});
