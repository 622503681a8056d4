/**
 * zstd decodes in place (src/zarr/codecs/wasm/decoder-module.ts): the encoded bytes at the end of the output region,
 * with the margin zstd-frame.ts computes, instead of a region of their own. Frames built by hand here reach the cases
 * the reference encoder never writes: RLE blocks (decoded apart) and blocks that decode to less than their own size,
 * which leave too small a gap for in place (retried apart); both must decode exactly as out of place would.
 */
import { describe, expect, it } from "vitest";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { zstdContentBound } from "../src/zarr/codecs/zstd-frame.js";

const MAX_BLOCK = 128 * 1024;

/** A frame of one segment declaring `content` bytes (4-byte Frame_Content_Size), then `blocks`. */
function frame(contentBytes: number, blocks: Uint8Array[]): Uint8Array {
	const header = Buffer.alloc(9);
	header.writeUInt32LE(0xfd2fb528, 0);
	header[4] = 0xa0;
	header.writeUInt32LE(contentBytes, 5);
	return Buffer.concat([header, ...blocks]);
}

/** A block: its 3-byte header (type 0 raw, 1 RLE, 2 compressed), then its stored bytes. */
function block(type: 0 | 1 | 2, size: number, stored: Uint8Array, last: boolean): Uint8Array {
	const header = Buffer.alloc(3);
	header.writeUIntLE((size << 3) | (type << 1) | (last ? 1 : 0), 0, 3);
	return Buffer.concat([header, stored]);
}

/** A compressed block of literals only (no sequences): RLE literals of `length` bytes of `byte` (5 bytes). */
function rleLiterals(length: number, byte: number, last: boolean): Uint8Array {
	const content = Buffer.from([1 | (3 << 2) | ((length & 0xf) << 4), (length >> 4) & 0xff, (length >> 12) & 0xff, byte, 0]);
	return block(2, content.length, content, last);
}

/** A compressed block holding one raw literal (3 bytes for 1 decoded byte: it decodes to less than its size). */
function oneLiteral(byte: number, last: boolean): Uint8Array {
	const content = Buffer.from([1 << 3, byte, 0]);
	return block(2, content.length, content, last);
}

describe("zstd in place", () => {
	it("needs the frame's headers, 3 bytes per block and one block of margin; none with an RLE block", () => {
		const raw = frame(10, [block(0, 4, Buffer.alloc(4), false), block(0, 6, Buffer.alloc(6), true)]);
		expect(zstdContentBound(raw).inPlaceMargin).toBe(9 + 2 * 3 + MAX_BLOCK);
		const skippable = Buffer.alloc(12);
		skippable.writeUInt32LE(0x184d2a50, 0);
		skippable.writeUInt32LE(4, 4);
		expect(zstdContentBound(Buffer.concat([skippable, raw])).inPlaceMargin).toBe(12 + 9 + 2 * 3 + MAX_BLOCK);
		const rle = frame(10, [block(0, 4, Buffer.alloc(4), false), block(1, 6, Buffer.from([7]), true)]);
		expect(zstdContentBound(rle).inPlaceMargin).toBeUndefined();
	});

	it("decodes a frame with an RLE block apart", () => {
		const content = Buffer.concat([Buffer.from("abcd"), Buffer.alloc(200_000, 0x2a)]);
		const encoded = frame(content.length, [block(0, 4, content.subarray(0, 4), false), block(1, MAX_BLOCK, Buffer.from([0x2a]), false), block(1, 200_000 - MAX_BLOCK, Buffer.from([0x2a]), true)]);
		const output = Buffer.alloc(content.length);
		expect(new WasmDecoders().decode("zstd", encoded, output).length).toBe(content.length);
		expect(Buffer.compare(output, content)).toBe(0);
	});

	it("retries apart a frame whose blocks leave too small a gap in place", () => {
		// One block decodes 128 KiB from 5 bytes, then 120000 blocks each decode 1 byte from 3: the input is 720 kB,
		// the output 251 kB, and the gap in front of the first block (the region's 786 kB less the input) is less
		// than its 128 KiB of output, which zstd refuses in place rather than overwrite input it has not read.
		const count = 120_000;
		const blocks = [rleLiterals(MAX_BLOCK, 0x41, false)];
		for (let i = 0; i < count; i++) blocks.push(oneLiteral((i * 7) & 0xff, i === count - 1));
		const expected = Buffer.concat([Buffer.alloc(MAX_BLOCK, 0x41), Buffer.from(Array.from({ length: count }, (_, i) => (i * 7) & 0xff))]);
		const encoded = frame(expected.length, blocks);
		const output = Buffer.alloc(expected.length);
		expect(new WasmDecoders().decode("zstd", encoded, output).length).toBe(expected.length);
		expect(Buffer.compare(output, expected)).toBe(0);
	});
});
