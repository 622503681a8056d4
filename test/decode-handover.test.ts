/**
 * A chunk file read into a buffer of the export's pool, with room for its decoded bytes, is handed to a decode thread
 * as it is (transferred, no copy) and comes back holding the decoded bytes: one buffer per chunk, not two. Any other
 * view is copied (into a buffer with that room) and stays the caller's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { BufferPool, capacityFor } from "../src/memory/buffer-pool.js";
import { decodeWasmCodec, decodeWasmCodecInto } from "../src/zarr/codecs/off-thread.js";

const FIXTURES = path.resolve(import.meta.dirname, "fixtures", "codecs");
const encoded = fs.readFileSync(path.join(FIXTURES, "zstd-1-20011.bin"));
/** The data of make_codec_fixtures.py: value(i) = 1.7e18 + i * 1e9 + (i * 7919) % 1000. */
const expected = new Uint8Array(BigInt64Array.from({ length: 20011 }, (_, i) => 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000_000n + BigInt((i * 7919) % 1000)).buffer);

describe("encoded bytes handed to a decode thread", () => {
	it("a whole buffer of the pool with room for the decoded bytes goes over without a copy and comes back holding them", async () => {
		const pool = new BufferPool();
		const capacity = expected.byteLength + 64;
		const input = pool.acquire(encoded.byteLength, capacity);
		input.set(encoded);
		const decoded = await decodeWasmCodec("zstd", input, capacity, pool);
		expect(Buffer.compare(decoded, expected)).toBe(0);
		// Transferred: the caller's view is detached; the decoded bytes are in the same pooled buffer, which comes back
		// once they are dead. No second buffer was taken.
		expect(input.byteLength).toBe(0);
		expect(decoded.buffer.byteLength).toBe(capacityFor(capacity));
		expect(pool.freeBytes).toBe(0);
		pool.release(decoded);
		expect(pool.freeBytes).toBe(capacityFor(capacity));
		expect(pool.acquire(encoded.byteLength, capacity).byteLength).toBe(encoded.byteLength);
		expect(pool.reused).toBe(1);
	});

	it("a view of a larger buffer, a buffer without room, or a buffer not the pool's, is copied and stays the caller's", async () => {
		const pool = new BufferPool();
		const capacity = expected.byteLength + 64;
		const larger = pool.acquire(encoded.byteLength + 10, capacity);
		larger.set(encoded);
		const small = pool.acquire(encoded.byteLength);
		small.set(encoded);
		const foreign = Buffer.from(encoded);
		for (const input of [larger.subarray(0, encoded.byteLength), small, foreign]) {
			const decoded = await decodeWasmCodec("zstd", input, capacity, pool);
			expect(Buffer.compare(decoded, expected)).toBe(0);
			expect(Buffer.compare(input, encoded)).toBe(0);
		}
	});

	it("into a target that is not shared, on a decode thread: an input that is a whole buffer of the pool without room comes back once decoded", async () => {
		const pool = new BufferPool();
		const back = new Set<ArrayBufferLike>();
		pool.onReturn((buffer) => back.add(buffer));
		// Read on its own, its encoded size only (an inner chunk read alone with no room, see ShardIndexReader).
		const input = pool.acquire(encoded.byteLength);
		input.set(encoded);
		const buffer = input.buffer;
		const target = new Uint8Array(expected.byteLength);
		const { length } = await decodeWasmCodecInto("zstd", input, target, pool);
		expect(length).toBe(expected.byteLength);
		expect(Buffer.compare(target, expected)).toBe(0);
		// Copied into a buffer with room, decoded there: the input's use is over, and its buffer is back.
		expect(back.has(buffer)).toBe(true);
	});

	it("without decode threads, a whole buffer with room is decoded where it is", async () => {
		const pool = new BufferPool();
		const capacity = expected.byteLength + 64;
		const input = pool.acquire(encoded.byteLength, capacity);
		input.set(encoded);
		// A fresh copy of the module, whose decoders are chosen at its first decode: the calling thread's.
		vi.resetModules();
		process.env.DT64_DECODE_THREADS = "0";
		let decoded: Uint8Array;
		try {
			const { decodeWasmCodec: decodeHere } = await import("../src/zarr/codecs/off-thread.js");
			decoded = await decodeHere("zstd", input, capacity, pool);
		} finally {
			delete process.env.DT64_DECODE_THREADS;
		}
		expect(Buffer.compare(decoded, expected)).toBe(0);
		expect(decoded.buffer).toBe(input.buffer);
		pool.release(decoded);
		expect(pool.freeBytes).toBe(capacityFor(capacity));
	});
});
