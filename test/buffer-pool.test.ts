import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { openTimeArray } from "../src/open-array.js";
import { tableOfTimeArray } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { BufferPool, capacityFor } from "../src/memory/buffer-pool.js";
import { readRawInt64, runCli, tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const work = tempDir("dt64-pool-");

let counter = 0;

describe("BufferPool", () => {
	it("gives a buffer with room past the view when asked (encoded bytes read where they will decode)", () => {
		const pool = new BufferPool();
		const read = pool.acquire(5000, 9000);
		expect(read.length).toBe(5000);
		expect(read.buffer.byteLength).toBe(capacityFor(9000));
		expect(pool.isWhole(read)).toBe(true);
		pool.release(read);
		expect(pool.acquire(8500).buffer).toBe(read.buffer);
		// Shared ones too: a range's last shard, cut to its inner chunks, takes a whole shard's buffer back.
		const shard = pool.acquireShared(800_000);
		pool.release(shard);
		const cut = pool.acquireShared(240_000, 800_000);
		expect(cut.length).toBe(240_000);
		expect(cut.buffer).toBe(shard.buffer);
	});

	it("hands back only whole buffers it issued, once, within its bound", () => {
		const pool = new BufferPool(3 * 4096);
		const a = pool.acquire(1024);
		const b = pool.acquire(1024);
		expect(a.length).toBe(1024);
		pool.release(a.subarray(0, 512)); // a part: the rest may still be in use
		pool.release(a.subarray(0, 512)); // the same part again: still half
		pool.release(Buffer.alloc(1024)); // not issued by this pool
		expect(pool.freeBytes).toBe(0);
		pool.release(a);
		pool.release(a); // twice: kept once
		expect(pool.freeBytes).toBe(4096); // the buffer's capacity: its size class
		const again = pool.acquire(1000); // another size of the same class
		expect(again.buffer).toBe(a.buffer);
		expect(again.length).toBe(1000);
		expect(pool.reused).toBe(1);
		expect(pool.freeBytes).toBe(0);
		pool.release(again);
		pool.release(b);
		pool.release(pool.acquire(8000)); // 8 KiB would pass the 12 KiB bound: not kept
		expect(pool.freeBytes).toBe(8192);
		expect(pool.acquire(5000).buffer).not.toBe(a.buffer); // another class: a new buffer
	});

	it("takes a buffer back once its parts cover its use, whatever their order and overlaps", () => {
		const pool = new BufferPool();
		const band = pool.acquire(10_000);
		for (const [start, end] of [
			[4000, 6000],
			[0, 1000],
			[5000, 7000], // overlaps a part already dead
			[9000, 10_000],
			[1000, 3999],
		]) {
			pool.release(band.subarray(start, end));
			expect(pool.freeBytes, `after [${start}, ${end})`).toBe(0);
		}
		pool.release(band.subarray(7000, 9000));
		expect(pool.freeBytes).toBe(0); // byte 3999 is still in use
		pool.release(band.subarray(3999, 4000));
		expect(pool.freeBytes).toBe(capacityFor(10_000));
		// Reissued, its old parts count no more: the new use must be said dead again.
		const again = pool.acquire(10_000);
		expect(again.buffer).toBe(band.buffer);
		pool.release(again.subarray(0, 5000));
		expect(pool.freeBytes).toBe(0);
		pool.release(new Uint8Array(again.buffer, 5000, 5001)); // past the use: ignored
		expect(pool.freeBytes).toBe(0);
		pool.release(again.subarray(5000));
		expect(pool.freeBytes).toBe(capacityFor(10_000));
	});

	it("takes a shortened buffer back by the view of what it holds", () => {
		const pool = new BufferPool();
		const target = pool.acquire(10_000);
		const written = target.subarray(0, 8000);
		pool.release(written); // not yet said to be the whole use
		expect(pool.freeBytes).toBe(0);
		pool.shorten(written);
		pool.release(target); // the old length no longer counts
		expect(pool.freeBytes).toBe(0);
		pool.release(written);
		expect(pool.freeBytes).toBe(capacityFor(10_000));
		pool.shorten(Buffer.alloc(10)); // not issued: ignored
	});

	it("marks regions owned only of buffers it issued, takes each mark once and only of the exact region, and forgets them when the buffer comes back", () => {
		const pool = new BufferPool();
		const buffer = pool.acquire(8000);
		const [a, b] = [buffer.subarray(0, 4000), buffer.subarray(4000, 8000)];
		// Absent by default: nothing is anyone's alone until a reader says so.
		expect(pool.takeOwned([a])).toBe(false);
		pool.markOwned(a);
		pool.markOwned(buffer.subarray(2000, 6000)); // overlaps a's: not marked, and a's mark goes (two holders)
		pool.markOwned(Buffer.alloc(100)); // not the pool's: not marked
		expect(pool.takeOwned([buffer.subarray(2000, 6000)])).toBe(false);
		expect(pool.takeOwned([a])).toBe(false);
		expect(pool.takeOwned([Buffer.alloc(100)])).toBe(false);
		pool.markOwned(a);
		// Only the region itself, not a part of it.
		expect(pool.takeOwned([a.subarray(0, 2000)])).toBe(false);
		// Two views of one region are no one's alone; a view not marked spoils the lot, whose marks stay.
		expect(pool.takeOwned([a, a])).toBe(false);
		expect(pool.takeOwned([a, b])).toBe(false);
		pool.markOwned(b);
		expect(pool.takeOwned([a, b])).toBe(true);
		expect(pool.takeOwned([a])).toBe(false);
		expect(pool.takeOwned([b])).toBe(false);
		// Marked again, then the buffer comes back and goes out again: its marks went with it.
		pool.markOwned(a);
		pool.release(buffer);
		const again = pool.acquire(8000);
		expect(again.buffer).toBe(buffer.buffer);
		expect(pool.takeOwned([again.subarray(0, 4000)])).toBe(false);
		// A buffer made again for its use (shortened) loses them too, and bytes said dead lose theirs.
		pool.markOwned(again.subarray(0, 4000));
		pool.shorten(again.subarray(0, 6000));
		expect(pool.takeOwned([again.subarray(0, 4000)])).toBe(false);
		pool.markOwned(again.subarray(0, 4000));
		pool.release(again.subarray(3000, 3008));
		expect(pool.takeOwned([again.subarray(0, 4000)])).toBe(false);
	});

	it("size classes: whole 4 KiB pages, at most 12.5% above the size from 32 KiB up, so nearby sizes share a class", () => {
		expect(capacityFor(1)).toBe(4096);
		expect(capacityFor(4096)).toBe(4096);
		expect(capacityFor(8_000_000)).toBe(8 * 2 ** 20);
		expect(capacityFor(8 * 2 ** 20)).toBe(8 * 2 ** 20);
		expect(capacityFor(8 * 2 ** 20 + 1)).toBe(9 * 2 ** 20);
		expect(capacityFor(2_750_000)).toBe(capacityFor(2_800_000));
		for (let size = 1; size < 2 ** 31; size = Math.ceil(size * 1.37)) {
			const capacity = capacityFor(size);
			expect(capacity).toBeGreaterThanOrEqual(size);
			expect(capacity % 4096).toBe(0);
			expect(capacity).toBeLessThanOrEqual(Math.max(Math.ceil(size / 4096) * 4096, size * 1.125));
		}
	});

	const GZIP = { name: "gzip", configuration: { level: 1 } };
	const ZLIB = { name: "zlib", configuration: { level: 1 } };
	for (const [name, dataType, codecs] of [
		["uncompressed, same unit (passed through)", { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, [LE]],
		["uncompressed, D -> s (converted in place)", { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } }, [LE]],
		["gzip, same unit (inflated into the pool)", { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, [LE, GZIP]],
		["zlib, 10us -> us (inflated into the pool, converted in place)", { name: "numpy.datetime64", configuration: { unit: "us", scale_factor: 10 } }, [LE, ZLIB]],
	] as const) {
		it(`an export reuses written buffers and keeps every value: ${name}`, async () => {
			// 80 KB chunks: past the size under which the IPC writer joins pieces (a copy, nothing to hand back).
			const length = 400_000;
			const values = BigInt64Array.from({ length }, (_, i) => (i % 997 === 5 ? NAT : BigInt(i * 7 - 20_000)));
			const root = path.join(work, `${counter++}.zarr`);
			await writeArray(root, "", { shape: [length], chunks: [10_000], dataType, values, codecs: [...codecs] });
			const pool = new BufferPool();
			const array = await openTimeArray(root, { bufferPool: pool });
			const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { format: "arrow", concurrency: 3 });
			const out = path.join(work, `${counter++}.arrow`);
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			// 40 chunks: all but the first few (in flight at once) are read or inflated into buffers used before.
			expect(pool.reused).toBeGreaterThan(codecs.length > 1 ? 60 : 30);
			const scale = { D: 86_400n, us: 10n, s: 1n }[dataType.configuration.unit];
			const actual = readRawInt64(out);
			expect(actual.length).toBe(length);
			for (let i = 0; i < length; i++) {
				const expected = values[i] === NAT ? null : values[i] * scale;
				if (actual[i] !== expected) expect({ i, value: actual[i] }).toEqual({ i, value: expected });
			}
		});
	}

	it("validity bitmaps of large batches come from the pool and go back once written", async () => {
		const length = 3_600_000;
		const values = BigInt64Array.from({ length }, (_, i) => (i % 1013 === 7 ? NAT : BigInt(i)));
		const root = path.join(work, `${counter++}.zarr`);
		await writeArray(root, "", { shape: [length], chunks: [600_000], values, codecs: [LE] });
		const reusedSizes: number[] = [];
		class WatchedPool extends BufferPool {
			override acquire(size: number): Buffer {
				const before = this.reused;
				const buffer = super.acquire(size);
				if (this.reused > before) reusedSizes.push(size);
				return buffer;
			}
		}
		const pool = new WatchedPool();
		const array = await openTimeArray(root, { bufferPool: pool });
		const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { format: "arrow", concurrency: 2 });
		const out = path.join(work, `${counter++}.arrow`);
		await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
		// 600,000 values: a 75,000-byte bitmap per batch, past the size the IPC writer joins with other pieces.
		expect(reusedSizes.filter((size) => size === 75_000).length).toBeGreaterThanOrEqual(3);
		const actual = readRawInt64(out);
		for (let i = 0; i < length; i++) {
			const expected = values[i] === NAT ? null : values[i];
			if (actual[i] !== expected) expect({ i, value: actual[i] }).toEqual({ i, value: expected });
		}
	});

	it("an export without a pool reuses nothing and gives the same bytes (gzip)", async () => {
		const length = 100_000;
		const values = BigInt64Array.from({ length }, (_, i) => (i % 13 === 0 ? NAT : BigInt(i) * 1_000_003n));
		const root = path.join(work, `${counter++}.zarr`);
		await writeArray(root, "", { shape: [length], chunks: [10_000], values, codecs: [LE, GZIP] });
		const outputs: string[] = [];
		for (const pool of [new BufferPool(), undefined]) {
			const array = await openTimeArray(root, { bufferPool: pool });
			const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { format: "arrow", concurrency: 2 });
			const out = path.join(work, `${counter++}.arrow`);
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			outputs.push(out);
		}
		expect(readRawInt64(outputs[0])).toEqual(readRawInt64(outputs[1]));
	});

	for (const codecs of [[LE], [LE, { name: "gzip", configuration: { level: 1 } }]]) {
		it(`the CLI's exports through the pool are byte for byte those without it: ${codecs.map((c) => c.name).join(", ")}`, async () => {
			const length = 300_000;
			const values = BigInt64Array.from({ length }, (_, i) => (i % 101 === 0 ? NAT : BigInt(1_700_000_000 + i * 3600)));
			const root = path.join(work, `${counter++}.zarr`);
			await writeArray(root, "", { shape: [length], chunks: [10_240], values, codecs });
			const viaCli = path.join(work, `${counter++}.arrow`);
			expect(runCli([root, "-o", viaCli, "-q", "--concurrency", "2"]).status).toBe(0);
			const array = await openTimeArray(root);
			const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { format: "arrow", concurrency: 2 });
			const plain = path.join(work, `${counter++}.arrow`);
			await pipeline(reader, batcher, writer, new AtomicFileWriter(plain));
			expect(readRawInt64(viaCli)).toEqual(readRawInt64(plain));
		});
	}
});
