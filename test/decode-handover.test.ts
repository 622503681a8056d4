/**
 * A chunk file read into a buffer of the export's pool is handed to a decode thread as it is (transferred, no
 * copy) and comes back to the pool once decoded; any other view is copied and stays the caller's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BufferPool, capacityFor } from "../src/memory/buffer-pool.js";
import { decodeWasmCodec } from "../src/zarr/codecs/off-thread.js";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures", "codecs");
const encoded = fs.readFileSync(path.join(FIXTURES, "zstd-1-20011.bin"));
/** The data of make_codec_fixtures.py: value(i) = 1.7e18 + i * 1e9 + (i * 7919) % 1000. */
const expected = new Uint8Array(BigInt64Array.from({ length: 20011 }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n + BigInt((i * 7919) % 1000)).buffer);

describe("encoded bytes handed to a decode thread", () => {
	it("a whole buffer of the pool goes over without a copy and comes back to the pool", async () => {
		const pool = new BufferPool();
		const input = pool.acquire(encoded.byteLength);
		input.set(encoded);
		const decoded = await decodeWasmCodec("zstd", input, expected.byteLength + 64, pool);
		expect(Buffer.compare(decoded, expected)).toBe(0);
		// Transferred: the caller's view is detached, its buffer is the pool's again.
		expect(input.byteLength).toBe(0);
		expect(pool.freeBytes).toBe(capacityFor(encoded.byteLength));
		expect(pool.acquire(encoded.byteLength).byteLength).toBe(encoded.byteLength);
		expect(pool.reused).toBe(1);
	});

	it("a view of a larger buffer, or of a buffer not the pool's, is copied and stays the caller's", async () => {
		const pool = new BufferPool();
		const larger = pool.acquire(encoded.byteLength + 10);
		larger.set(encoded);
		const foreign = Buffer.from(encoded);
		for (const input of [larger.subarray(0, encoded.byteLength), foreign]) {
			const decoded = await decodeWasmCodec("zstd", input, expected.byteLength + 64, pool);
			expect(Buffer.compare(decoded, expected)).toBe(0);
			expect(Buffer.compare(input, encoded)).toBe(0);
		}
	});
});
