/**
 * The crc32c codec's checksum (slicing-by-8, src/zarr/codecs/crc32c.ts) against the test-store writer's independent
 * byte-at-a-time one, over every alignment of the view and lengths around the 8-byte steps, and the check values.
 */
import { describe, expect, it } from "vitest";
import { crc32c } from "../src/zarr/codecs/crc32c.js";
import { crc32c as writerCrc32c } from "../scripts/lib/zarr-writer.mjs";

describe("crc32c (slicing-by-8)", () => {
	it("matches the standard check value and the RFC 3720 (iSCSI) vectors", () => {
		expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
		expect(crc32c(new Uint8Array(0))).toBe(0);
		expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa);
		expect(crc32c(new Uint8Array(32).fill(0xff))).toBe(0x62a8ab43);
		expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i))).toBe(0x46dd794e);
	});

	it("matches a byte-at-a-time CRC at every offset of the view and lengths 0 to 99, and over 1 MiB", () => {
		const bytes = Uint8Array.from({ length: 2 ** 20 + 16 }, (_, i) => (Math.imul(i, 2654435761) >>> 13) & 0xff);
		for (let offset = 0; offset < 9; offset++) {
			for (let length = 0; length < 100; length++) {
				const view = bytes.subarray(offset, offset + length);
				expect(crc32c(view), `offset ${offset}, length ${length}`).toBe(writerCrc32c(view));
			}
		}
		expect(crc32c(bytes.subarray(3))).toBe(writerCrc32c(bytes.subarray(3)));
	});
});
