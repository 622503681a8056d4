import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createExportStages } from "../src/export.js";
import { openTimeArray } from "../src/open-array.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { BufferPool } from "../src/store/buffer-pool.js";
import { readRawInt64, runCli, tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const work = tempDir("dt64-pool-");

let counter = 0;

describe("BufferPool", () => {
	it("hands back only whole buffers it issued, once, within its bound", () => {
		const pool = new BufferPool(3 * 1024);
		const a = pool.acquire(1024);
		const b = pool.acquire(1024);
		pool.release(a.subarray(0, 512)); // a part: the rest may still be in use
		pool.release(Buffer.alloc(1024)); // not issued by this pool
		expect(pool.freeBytes).toBe(0);
		pool.release(a);
		pool.release(a); // twice: kept once
		expect(pool.freeBytes).toBe(1024);
		const again = pool.acquire(1024);
		expect(again.buffer).toBe(a.buffer);
		expect(pool.freeBytes).toBe(0);
		pool.release(again);
		pool.release(b);
		pool.release(pool.acquire(2048)); // 4 KiB would pass the 3 KiB bound: not kept
		expect(pool.freeBytes).toBe(2048);
		expect(pool.acquire(512).buffer).not.toBe(a.buffer); // only exact sizes are reused
	});

	for (const [name, dataType] of [
		["same unit (passed through)", { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }],
		["D -> s (converted in place)", { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } }],
	] as const) {
		it(`an export of uncompressed chunks reuses written buffers and keeps every value: ${name}`, async () => {
			// 80 KB chunks: past the size under which the IPC writer joins pieces (a copy, nothing to hand back).
			const length = 400_000;
			const values = BigInt64Array.from({ length }, (_, i) => (i % 997 === 5 ? NAT : BigInt(i * 7 - 20_000)));
			const root = path.join(work, `${counter++}.zarr`);
			await writeArray(root, "", { shape: [length], chunks: [10_000], dataType, values, codecs: [LE] });
			const pool = new BufferPool();
			const array = await openTimeArray(root, { bufferPool: pool });
			const { reader, batcher, writer } = createExportStages(array, { format: "arrow", concurrency: 3 });
			const out = path.join(work, `${counter++}.arrow`);
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			expect(pool.freeBytes).toBeGreaterThan(0);
			const scale = dataType.configuration.unit === "D" ? 86_400n : 1n;
			const actual = readRawInt64(out);
			expect(actual.length).toBe(length);
			for (let i = 0; i < length; i++) {
				const expected = values[i] === NAT ? null : values[i] * scale;
				if (actual[i] !== expected) expect({ i, value: actual[i] }).toEqual({ i, value: expected });
			}
		});
	}

	it("the CLI's exports of uncompressed stores through the pool are byte for byte those without it", async () => {
		const length = 300_000;
		const values = BigInt64Array.from({ length }, (_, i) => (i % 101 === 0 ? NAT : BigInt(1_700_000_000 + i * 3600)));
		const root = path.join(work, `${counter++}.zarr`);
		await writeArray(root, "", { shape: [length], chunks: [10_240], values, codecs: [LE] });
		const viaCli = path.join(work, `${counter++}.arrow`);
		expect(runCli([root, "-o", viaCli, "-q", "--concurrency", "2"]).status).toBe(0);
		const array = await openTimeArray(root);
		const { reader, batcher, writer } = createExportStages(array, { format: "arrow", concurrency: 2 });
		const plain = path.join(work, `${counter++}.arrow`);
		await pipeline(reader, batcher, writer, new AtomicFileWriter(plain));
		expect(readRawInt64(viaCli)).toEqual(readRawInt64(plain));
	});
});
