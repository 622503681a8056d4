/**
 * A shard read as one chunk of a table's column (ShardBands.read) from an inner chunk past its first: the bytes of its
 * buffer before that inner chunk are no one's, and are said dead when it is opened, so that the buffer comes back to
 * the pool once the rest is written (without that, the first shard of every pooled range export of a table was
 * collected, not reused). Counted: buffers back, not timed.
 */
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/index.js";
import { openTimeArray } from "../src/open-array.js";
import { tempDir } from "./support/cli.js";
import { CountingPool } from "./support/counting-pool.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

process.env.DT64_DECODE_THREADS ??= "2";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
const ns = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
const sharding = (inner: number) => ({ name: "sharding_indexed", configuration: { chunk_shape: [inner], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }] } });
const BASE = 1_700_000_000_000_000_000n;
const work = tempDir("dt64-shard-read-pool-");

describe("a shard read as one chunk from an inner chunk past its first", () => {
	it("says dead the bytes before that inner chunk: the buffer comes back once the values read are", async () => {
		const values = BigInt64Array.from({ length: 16_000 }, (_, i) => BASE + BigInt(i));
		const store = path.join(work, "array.zarr");
		await writeArray(store, "", { shape: [values.length], chunks: [4_000], values, dataType: ns, codecs: [sharding(1_000)] });
		const pool = new CountingPool();
		let back = 0;
		pool.onReturn(() => back++);
		const array = await openTimeArray(store, { bufferPool: pool });
		// The metadata documents read into the pool came back once decoded: counted from here on.
		back = 0;
		// Shard 1, its inner chunks 2 and 3: the values of rows 6,000 to 8,000, in a buffer from the shard's first row.
		const read = (await array.chunks.shardBands!.read(1, 2, 4)) as BigInt64Array;
		const rows = read.subarray(2_000, 4_000);
		expect(Array.from(rows)).toEqual(Array.from(values.subarray(6_000, 8_000)));
		expect(back).toBe(0);
		// What the output does once it has written them.
		pool.release(new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength));
		expect(back).toBe(1);
	});

	it("in a table's range export, every shard buffer of each column comes back", async () => {
		const rows = 48_000;
		const time = BigInt64Array.from({ length: rows }, (_, i) => (i % 97 === 5 ? NAT : BASE + BigInt(i) * 1_000n));
		const v = BigInt64Array.from({ length: rows }, (_, i) => BASE - BigInt(i));
		const store = path.join(work, "table.zarr");
		await writeGroup(store, "");
		await writeArray(store, "time", { shape: [rows], chunks: [8_000], values: time, dataType: ns, dimensionNames: ["time"], codecs: [sharding(2_000)] });
		await writeArray(store, "v", { shape: [rows], chunks: [8_000], values: v, dataType: ns, dimensionNames: ["time"], codecs: [sharding(2_000)] });
		for (const pool of [new CountingPool(), new PoisoningPool()]) {
			const shardBuffers = new Set<ArrayBufferLike>();
			const acquire = pool.acquire.bind(pool);
			const acquireShared = pool.acquireShared.bind(pool);
			// A shard's buffer: 8,000 values, or those from its inner chunk the range starts in (6,000 in shard 1).
			const isShard = (size: number) => size >= 6_000 * 8;
			pool.acquire = (size: number, room?: number) => {
				const buffer = acquire(size, room);
				if (isShard(size)) shardBuffers.add(buffer.buffer);
				return buffer;
			};
			pool.acquireShared = (size: number) => {
				const buffer = acquireShared(size);
				if (isShard(size)) shardBuffers.add(buffer.buffer);
				return buffer;
			};
			const back = new Set<ArrayBufferLike>();
			pool.onReturn((buffer) => back.add(buffer));
			// Rows 10,500 (shard 1, inner chunk 1) to 29,999 (shard 3).
			const out = path.join(work, `${pool.constructor.name}.arrow`);
			await exportToFile(store, out, { start: "2023-11-14T22:13:20.010500", end: "2023-11-14T22:13:20.029999", timeColumn: "time", columns: ["time", "v"], format: "arrow", bufferPool: pool, overwrite: true } as never);
			const table = tableFromIPC(fs.readFileSync(out));
			const kept = Array.from({ length: rows }, (_, i) => i).filter((i) => i >= 10_500 && i < 29_999 && time[i] !== NAT);
			expect(Array.from(table.getChild("v")!.toArray() as BigInt64Array)).toEqual(kept.map((i) => v[i]));
			expect(shardBuffers.size).toBeGreaterThan(0);
			for (const buffer of shardBuffers) expect(back.has(buffer), "a shard buffer not back").toBe(true);
		}
	});
});
