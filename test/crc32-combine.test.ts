/** crc32Combine against zlib's CRC-32 of the bytes joined: every split of pieces of several lengths, and long lengths. */
import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { crc32Combine } from "../src/store/crc32-combine.js";

describe("crc32Combine", () => {
	it("gives the CRC-32 of two pieces joined, from theirs and the second's length", () => {
		for (const length of [0, 1, 2, 7, 64, 255, 1000]) {
			const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + 7) & 0xff);
			for (let split = 0; split <= length; split += Math.max(1, Math.floor(length / 13))) {
				expect(crc32Combine(zlib.crc32(bytes.subarray(0, split)), zlib.crc32(bytes.subarray(split)), length - split)).toBe(zlib.crc32(bytes));
			}
		}
	});

	it("shifts by long lengths (a shard of megabytes) as zlib's running CRC does", () => {
		const second = new Uint8Array(5 * 2 ** 20 + 3).fill(0xa5);
		const first = Uint8Array.of(1, 2, 3);
		expect(crc32Combine(zlib.crc32(first), zlib.crc32(second), second.length)).toBe(zlib.crc32(second, zlib.crc32(first)));
	});
});
