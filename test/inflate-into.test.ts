import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { inflateInto, InflateOverflowError } from "../src/zarr/codecs/inflate-into.js";

/** 1 MB of int64-like data that compresses as chunks of timestamps do. */
function payload(bytes = 1_000_000): Buffer {
	const data = Buffer.allocUnsafe(bytes);
	for (let i = 0; i + 8 <= bytes; i += 8) data.writeBigInt64LE(1_700_000_000n + BigInt(i * 450 + (i % 7)), i);
	return data;
}

describe("inflateInto: Node's zlib inflating into the caller's buffer", () => {
	const data = payload();
	for (const [format, compress] of [
		["gunzip", zlib.gzipSync],
		["inflate", zlib.deflateSync],
	] as const) {
		it(`${format}: zlib writes the output in place, into the buffer given (no copy, no buffer of its own)`, async () => {
			const target = Buffer.alloc(data.length + 65);
			const { bytes, inPlace } = await inflateInto(format, compress(data, { level: 1 }), target);
			expect(inPlace).toBe(true);
			expect(bytes.buffer).toBe(target.buffer);
			expect(bytes.byteOffset).toBe(target.byteOffset);
			expect(bytes.equals(data)).toBe(true);
		});

		it(`${format}: without the in-place fields, the output is copied into the buffer and is the same`, async () => {
			const target = Buffer.alloc(data.length + 65);
			const { bytes, inPlace } = await inflateInto(format, compress(data, { level: 6 }), target, { inPlace: false });
			expect(inPlace).toBe(false);
			expect(bytes.buffer).toBe(target.buffer);
			expect(bytes.equals(data)).toBe(true);
		});
	}

	it("a view into a larger buffer is written at its own offset, and nothing outside the view is touched", async () => {
		const backing = Buffer.alloc(data.length + 300, 0xee);
		const target = backing.subarray(100, 100 + data.length + 100);
		const { bytes, inPlace } = await inflateInto("gunzip", zlib.gzipSync(data), target);
		expect(inPlace).toBe(true);
		expect(bytes.byteOffset).toBe(100);
		expect(bytes.equals(data)).toBe(true);
		expect(backing.subarray(0, 100).every((b) => b === 0xee)).toBe(true);
		// Inside the view, past the output, zlib may scribble (Chromium's zlib copies in wide steps): that room is its own.
		expect(backing.subarray(100 + target.length).every((b) => b === 0xee)).toBe(true);
	});

	it("output past the buffer is refused, in place or not", async () => {
		for (const inPlace of [true, false]) {
			await expect(inflateInto("gunzip", zlib.gzipSync(data), Buffer.alloc(data.length - 1), { inPlace })).rejects.toBeInstanceOf(InflateOverflowError);
		}
		// Filling the buffer exactly is not an overflow: zlib looks for more in a buffer of its own and finds none.
		const exact = await inflateInto("gunzip", zlib.gzipSync(data), Buffer.alloc(data.length));
		expect(exact.bytes.equals(data)).toBe(true);
	});

	it("corrupt, truncated and empty input: zlib's error, or no bytes", async () => {
		const gz = zlib.gzipSync(data);
		const corrupt = Buffer.from(gz);
		corrupt[gz.length >> 1] ^= 0xff;
		await expect(inflateInto("gunzip", corrupt, Buffer.alloc(data.length + 64))).rejects.toThrow(/invalid|incorrect|check/i);
		await expect(inflateInto("gunzip", gz.subarray(0, gz.length - 10), Buffer.alloc(data.length + 64))).rejects.toThrow(/unexpected end/i);
		await expect(inflateInto("inflate", gz, Buffer.alloc(data.length + 64))).rejects.toThrow(/header/i);
		const empty = await inflateInto("gunzip", zlib.gzipSync(Buffer.alloc(0)), Buffer.alloc(64));
		expect(empty.bytes.length).toBe(0);
	});
});
