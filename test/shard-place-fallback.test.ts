/**
 * An inner chunk read into its place in its shard's buffer (ShardBands, ReadInto) whose headers do not say it fits
 * there (a zstd frame without a declared content size, as streaming encoders write) is decoded apart, then copied
 * into its place: the copy of its encoded bytes taken first must be a copy. On the calling thread the shard's buffer
 * is the pool's, a Node Buffer, whose `slice()` is a view of the same memory: the chunk decoder then said the place's
 * bytes dead to the pool once decoded (their last use as encoded bytes), while its values were still to be copied
 * there and written. When they and the bytes said dead otherwise (past the array's end, out of a range) covered the
 * rest of its band, the pool took the shard's buffer back once the bands before were written, before that band was:
 * it was written from a buffer the pool had handed on (here spoilt: 0x5A5A... in the output).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { crc32c, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { openTimeArray } from "../src/open-array.js";
import { tableOfTimeArray } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { ChunkDecoder } from "../src/zarr/chunk-decoder.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 0, checksum: false } };
const INNER = 512;
const PER = 2;
const SHARDS = 1;

/** Value k of the array: its 8 bytes all one byte, so that a zstd RLE block of 8 bytes holds it. */
const valueAt = (k: number) => BigInt.asIntN(64, 0x0101010101010101n * BigInt(1 + (k % 251)));

/** A zstd frame without Frame_Content_Size holding `values`, an RLE block of 8 bytes each: 4 bytes a value. */
function frameWithoutSize(values: BigInt64Array): Uint8Array {
	const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
	const out = Buffer.alloc(6 + 4 * values.length);
	out.writeUInt32LE(0xfd2fb528, 0);
	out[4] = 0x00; // no content size, a window descriptor follows
	out[5] = 0x38;
	for (let i = 0; i < values.length; i++) {
		const last = i === values.length - 1 ? 1 : 0;
		out.writeUIntLE((8 << 3) | (1 << 1) | last, 6 + 4 * i, 3);
		out[6 + 4 * i + 3] = bytes[8 * i];
	}
	return out;
}

/** A shard of PER inner chunks of such frames, its index at the end with its crc32c. */
function shardOf(values: BigInt64Array, shard: number): Uint8Array {
	const frames = Array.from({ length: PER }, (_, k) => frameWithoutSize(values.subarray((shard * PER + k) * INNER, (shard * PER + k + 1) * INNER)));
	const data = frames.reduce((n, frame) => n + frame.length, 0);
	const out = Buffer.alloc(data + PER * 16 + 4);
	let offset = 0;
	frames.forEach((frame, k) => {
		out.set(frame, offset);
		out.writeBigUInt64LE(BigInt(offset), data + 16 * k);
		out.writeBigUInt64LE(BigInt(frame.length), data + 16 * k + 8);
		offset += frame.length;
	});
	out.writeUInt32LE(crc32c(out.subarray(data, out.length - 4)), out.length - 4);
	return out;
}

describe("an inner chunk that does not say it fits its place in the shard's buffer", () => {
	it("is decoded apart from a copy: its place is not said dead to the pool before its values are there", async () => {
		const pool = new BufferPool();
		const released: [ArrayBufferLike, number, number][] = [];
		const release = pool.release.bind(pool);
		pool.release = (view) => {
			released.push([view.buffer, view.byteOffset, view.byteLength]);
			release(view);
		};
		const decoder = new ChunkDecoder([INNER], [LE, ZSTD], { dataType: "int64", valueBytes: 8, scanNaT: true }, pool, true);
		expect(decoder.decodesInto).toBe(true);
		const values = BigInt64Array.from({ length: INNER }, (_, k) => valueAt(k));
		// The shard's buffer on the calling thread (ShardBands: the pool's), inner chunk 1's place, its frame read there.
		const shard = pool.acquire(PER * INNER * 8);
		const place = shard.subarray(INNER * 8, 2 * INNER * 8);
		const frame = frameWithoutSize(values);
		place.set(frame);
		await decoder.decodeInto(place.subarray(0, frame.length), place, "c/0 (inner chunk [1])");
		expect(Array.from(new BigInt64Array(shard.buffer, INNER * 8, INNER))).toEqual(Array.from(values));
		expect(released.filter(([buffer]) => buffer === shard.buffer)).toEqual([]);
	});

	it("exported through a pool that spoils what comes back: every value as written", async () => {
		const work = tempDir("dt64-shard-fallback-");
		const store = path.join(work, "a.zarr");
		// One shard, handed on by runs of one inner chunk, then one. The last inner chunk ragged, 100 of its 512 rows in
		// the array: its bytes past the end are said dead when its shard is opened, and its encoded bytes (2054, more
		// than its rows' 800) were said dead once decoded, all of its band with them.
		const length = (SHARDS * PER - 1) * INNER + 100;
		const values = BigInt64Array.from({ length: SHARDS * PER * INNER }, (_, k) => valueAt(k));
		const ns = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [INNER], codecs: [LE, ZSTD], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }];
		await writeArray(store, "", { shape: [length], chunks: [PER * INNER], values: values.subarray(0, length), dataType: ns, codecs });
		for (let s = 0; s < SHARDS; s++) fs.writeFileSync(path.join(store, "c", String(s)), shardOf(values, s));
		for (const poisoning of [true, false]) {
			const pool = poisoning ? new PoisoningPool() : new BufferPool();
			const out = path.join(work, `${poisoning}.arrow`);
			const array = await openTimeArray(store, { bufferPool: pool });
			const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { concurrency: 4 });
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			const got = tableFromIPC(fs.readFileSync(out))
				.getChildAt(0)!
				.data.flatMap((data) => Array.from(data.values as BigInt64Array));
			expect(got.length).toBe(length);
			const wrong = got.findIndex((value, k) => value !== values[k]);
			expect(wrong, `row ${wrong}: ${got[wrong]}, expected ${values[wrong]}`).toBe(-1);
		}
	});
});
