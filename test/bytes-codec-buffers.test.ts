/**
 * The bytes codec given a Node Buffer (what zlib inflates a deflated zip entry to) at an offset that is no multiple
 * of the value width (an inner chunk after a shard's index of 68 bytes): its values are a copy of their own. Buffer's
 * `slice` is a view, so a copy made with it kept the offset (RangeError: start offset of BigInt64Array should be a
 * multiple of 8), and swapping big-endian bytes in it swapped the caller's.
 */
import { describe, expect, it } from "vitest";
import { bytesCodec } from "../src/zarr/codecs/bytes.js";
import type { ArrayToBytesCodec } from "../src/zarr/codecs/codec.js";

const spec = { shape: [2], dataType: "int64", maxDecodedBytes: 64 };

describe("the bytes codec over a Node Buffer", () => {
	it("decodes values at an unaligned offset, and leaves the Buffer as it was", () => {
		for (const endian of ["little", "big"] as const) {
			const whole = Buffer.alloc(4 + 16);
			whole.writeBigInt64LE(1704067200n, 4);
			whole.writeBigInt64LE(-1n, 12);
			if (endian === "big") for (const at of [4, 12]) whole.subarray(at, at + 8).reverse();
			const before = Buffer.from(whole);
			const codec = bytesCodec({ endian }, spec) as ArrayToBytesCodec;
			const { data } = codec.decode(whole.subarray(4));
			expect([...(data as BigInt64Array)]).toEqual([1704067200n, -1n]);
			expect(whole.equals(before)).toBe(true);
		}
	});
});
