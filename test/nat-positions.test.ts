/**
 * Where NaT may be (src/convert/nat-positions.ts): the decode threads scan datetime64 chunks in WebAssembly
 * (decoders.c `nat_positions`, both byte orders), the views they hand back carry the positions, the views cut from
 * them carry theirs, and the conversion checks only those values. Stores with NaT-free chunks beside chunks with NaT,
 * through the pool's reused buffers, are compared value by value in pool-differential.test.ts.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { natPositionsOf, recordNatPositions } from "../src/convert/nat-positions.js";
import { planConversion } from "../src/convert/plan.js";
import { convertWithPlan } from "../src/convert/to-arrow-timestamps.js";
import { parseDatetime64Type } from "../src/dtype/datetime64.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { openTimeArray } from "../src/open-array.js";
import { createDecodePipeline } from "../src/zarr/codecs/pipeline.js";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { sliceValues } from "../src/zarr/chunk-values.js";
import { tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
/** NaT's bytes read in the other byte order: what a big-endian chunk holds before the export swaps it. */
const NAT_SWAPPED = 0x80n;

/** A zstd frame of raw (stored) blocks: the bytes as they are, which puts any value exactly where a test wants it. */
function rawZstdFrame(content: Uint8Array): Uint8Array {
	const blockBytes = 128 * 1024;
	const blocks = Math.max(1, Math.ceil(content.length / blockBytes));
	// Magic, then a descriptor (single segment, a 4-byte content size), then each block's 3-byte header and bytes.
	const frame = new Uint8Array(9 + 3 * blocks + content.length);
	frame.set([0x28, 0xb5, 0x2f, 0xfd, 0xa0]);
	new DataView(frame.buffer).setUint32(5, content.length, true);
	let out = 9;
	for (let k = 0; k < blocks; k++) {
		const block = content.subarray(k * blockBytes, (k + 1) * blockBytes);
		const header = (k === blocks - 1 ? 1 : 0) | (block.length << 3);
		frame.set([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff], out);
		frame.set(block, out + 3);
		out += 3 + block.length;
	}
	return frame;
}

const bytesOf = (values: BigInt64Array) => new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
const counts = (length: number, at: Record<number, bigint> = {}) => BigInt64Array.from({ length }, (_, i) => at[i] ?? 1_700_000_000_000_000_000n + BigInt(i));

const positions = (...at: number[]) => Int32Array.from(at);

describe("the decoders' NaT scan", () => {
	const decoders = new WasmDecoders();
	const scan = (content: Uint8Array, scanNaT = true) => decoders.decode("zstd", rawZstdFrame(content), new Uint8Array(content.length + 64), scanNaT);

	it("finds no NaT where there is none, and is only asked for datetime64 chunks", () => {
		expect(scan(bytesOf(counts(1000)))).toEqual({ length: 8000, natPositions: positions() });
		expect(scan(bytesOf(counts(1000)), false)).toEqual({ length: 8000, natPositions: null });
	});

	it("finds NaT at the first, a middle and the last value, in runs of every length (the 16-value runs' tail)", () => {
		for (const length of [1, 2, 3, 15, 16, 17, 1000, 1001, 200_001]) {
			for (const at of new Set([0, length >> 1, length - 1])) expect(scan(bytesOf(counts(length, { [at]: NAT }))).natPositions, `${length} values, NaT at ${at}`).toEqual(positions(at));
			expect(scan(bytesOf(counts(length))).natPositions, `${length} values`).toEqual(positions());
		}
		const many = Object.fromEntries(Array.from({ length: 300 }, (_, k) => [k * 101 + (k % 7), NAT]));
		expect(scan(bytesOf(counts(40_000, many))).natPositions).toEqual(Int32Array.from(Object.keys(many), Number));
	});

	it("finds NaT in either byte order, and takes its neighbours for values", () => {
		expect(scan(bytesOf(counts(64, { 17: NAT_SWAPPED, 40: NAT }))).natPositions).toEqual(positions(17, 40));
		for (const near of [NAT + 1n, -1n, 0n, 0x81n, 0x7fn, 0x8000n, 2n ** 63n - 1n, -(2n ** 62n)]) expect(scan(bytesOf(counts(64, { 5: near }))).natPositions, String(near)).toEqual(positions());
	});

	it("says nothing of bytes that are not whole 8-byte values, nor where more than one value in 16 may be NaT", () => {
		expect(scan(new Uint8Array(8001)).natPositions).toBeNull();
		expect(scan(new Uint8Array(12)).natPositions).toBeNull();
		expect(scan(new Uint8Array(0))).toEqual({ length: 0, natPositions: positions() });
		const dense = Object.fromEntries(Array.from({ length: 200 }, (_, k) => [k * 7, NAT]));
		expect(scan(bytesOf(counts(1600, dense))).natPositions).toBeNull();
		// Room for a sixteenth of the values and 16 more: a chunk of 16 NaT is told in full, one of 64 is not.
		expect(scan(bytesOf(counts(16).fill(NAT))).natPositions).toEqual(Int32Array.from({ length: 16 }, (_, i) => i));
		expect(scan(bytesOf(counts(64).fill(NAT))).natPositions).toBeNull();
	});
});

describe("the positions on decoded views", () => {
	const spec = (scanNaT: boolean) => ({ shape: [1000], dataType: "int64", maxDecodedBytes: 8064, bufferPool: new BufferPool(), scanNaT });
	const LE = { name: "bytes", configuration: { endian: "little" } };
	const BE = { name: "bytes", configuration: { endian: "big" } };
	const ZSTD = { name: "zstd", configuration: { level: 0, checksum: false } };

	it("go from the decode thread to the bytes codec's values, in both byte orders", async () => {
		const clean = counts(1000);
		const withNaT = counts(1000, { 3: NAT, 999: NAT });
		const swapped = (values: BigInt64Array) => {
			const bytes = bytesOf(values.slice());
			for (let at = 0; at < bytes.length; at += 8) bytes.subarray(at, at + 8).reverse();
			return bytes;
		};
		for (const [order, encode] of [
			[LE, (v: BigInt64Array) => bytesOf(v.slice())],
			[BE, swapped],
		] as const) {
			const decode = createDecodePipeline([order, ZSTD], spec(true));
			const a = await decode(rawZstdFrame(encode(clean)));
			expect(a.data).toEqual(clean);
			expect(natPositionsOf(a.data as BigInt64Array)).toEqual(positions());
			const b = await decode(rawZstdFrame(encode(withNaT)));
			expect(b.data).toEqual(withNaT);
			expect(natPositionsOf(b.data as BigInt64Array)).toEqual(positions(3, 999));
			const unasked = await createDecodePipeline([order, ZSTD], spec(false))(rawZstdFrame(encode(clean)));
			expect(natPositionsOf(unasked.data as BigInt64Array)).toBeUndefined();
		}
	});

	it("follow the views cut from a view, shifted to theirs, and only those", () => {
		const whole = counts(100);
		recordNatPositions(whole, positions(3, 10, 15, 20, 99));
		expect(natPositionsOf(sliceValues(whole, 10, 20))).toEqual(positions(0, 5));
		expect(natPositionsOf(sliceValues(whole, 0, 16))).toEqual(positions(3, 10, 15));
		expect(natPositionsOf(sliceValues(whole, 21, 99))).toEqual(positions());
		expect(sliceValues(whole, 0, 100)).toBe(whole);
		expect(natPositionsOf(sliceValues(counts(100), 10, 20))).toBeUndefined();
		// Another view of the same bytes, not cut through sliceValues, knows nothing.
		expect(natPositionsOf(new BigInt64Array(whole.buffer, 80, 10))).toBeUndefined();
	});

	it("are what the conversion goes by: it checks the values there, and no others (so only the decoder may record them)", () => {
		const plan = planConversion(parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } }), "ns");
		const convert = (values: BigInt64Array) => convertWithPlan(values, plan, { rounding: "error", onOverflow: "error" });
		const scanned = counts(10, { 3: NAT, 7: NAT });
		expect(convert(scanned)).toMatchObject({ nullCount: 2, validity: Uint8Array.of(0b01110111, 0b11) });
		const told = counts(10, { 3: NAT, 7: NAT });
		recordNatPositions(told, positions(2, 3, 7));
		expect(convert(told)).toMatchObject({ nullCount: 2, validity: Uint8Array.of(0b01110111, 0b11) });
		const misled = counts(10, { 3: NAT, 7: NAT });
		recordNatPositions(misled, positions(7));
		expect(convert(misled)).toMatchObject({ nullCount: 1 });
	});

	it("are found for the chunks of zstd and blosc datetime64 stores, and not without a thread scan", async () => {
		const work = tempDir("dt64-nat-positions-");
		const values = counts(4000, { 1500: NAT, 3999: NAT });
		const dataType = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
		for (const [name, codecs, found] of [
			["zstd.zarr", [LE, ZSTD], [positions(), positions(500), positions(), positions(999)]],
			["blosc.zarr", [LE, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }], [positions(), positions(500), positions(), positions(999)]],
			["gzip.zarr", [LE, { name: "gzip", configuration: { level: 1 } }], [undefined, undefined, undefined, undefined]],
		] as const) {
			const root = path.join(work, name);
			await writeArray(root, "", { shape: [4000], chunks: [1000], dataType, values, codecs });
			const array = await openTimeArray(root);
			const got = await Promise.all([0, 1, 2, 3].map(async (k) => natPositionsOf(await array.chunks.read([k]))));
			expect(got, name).toEqual(found);
		}
	});
});
