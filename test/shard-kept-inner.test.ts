/**
 * An inner chunk kept from a read of its own (a probe of the range search) is never read again with a run of its
 * shard, also when the run is a whole read (no `within`, as a shard read into one buffer asks): it is decoded from
 * its kept bytes, and a run reading it too read it twice and, with `into`, wrote its encoded bytes into its place in
 * the shard's buffer, where its values were being decoded from the kept bytes. Which write came last depended on
 * timing: an export of `--end` on a sharded zstd array (its range from the first inner chunk, the one the search
 * probed first) wrote the first inner chunk's encoded bytes as times one run in three ("not sorted after all", or
 * rows of garbage dropped as out of range). Driven through ShardIndexReader with a store that records its reads.
 */
import { describe, expect, it } from "vitest";
import { crc32c } from "../scripts/lib/zarr-writer.mjs";
import type { AbsolutePath, AsyncReadable, GetOptions, RangeQuery } from "../src/store/readable.js";
import { ShardIndexReader } from "../src/zarr/shard-index.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const PER = 4;
const INNER_BYTES = [11, 13, 17, 19];

/** One shard of four inner chunks (inner chunk k: bytes of value k + 1), its index at the end with its crc32c. */
function shard(): Uint8Array {
	const data = INNER_BYTES.map((length, k) => new Uint8Array(length).fill(k + 1));
	const dataBytes = INNER_BYTES.reduce((a, b) => a + b, 0);
	const out = new Uint8Array(dataBytes + PER * 16 + 4);
	const view = new DataView(out.buffer);
	let offset = 0;
	data.forEach((bytes, k) => {
		out.set(bytes, offset);
		view.setBigUint64(dataBytes + 16 * k, BigInt(offset), true);
		view.setBigUint64(dataBytes + 16 * k + 8, BigInt(bytes.length), true);
		offset += bytes.length;
	});
	view.setUint32(out.length - 4, crc32c(out.subarray(dataBytes, out.length - 4)), true);
	return out;
}

/** A store of the one shard at /c/0 that records each data range read (the index's suffix reads aside). */
function recordingStore(bytes: Uint8Array) {
	const ranges: { offset: number; length: number }[] = [];
	const store: AsyncReadable = {
		get: async () => bytes.slice(),
		async getRange(_key: AbsolutePath, range: RangeQuery) {
			if ("suffixLength" in range) return bytes.slice(bytes.length - range.suffixLength);
			ranges.push({ offset: range.offset, length: range.length });
			return bytes.slice(range.offset, range.offset + range.length);
		},
		async getRanges(_key: AbsolutePath, asked: readonly { offset: number; length: number }[], options: GetOptions = {}) {
			return asked.map((range, k) => {
				ranges.push({ offset: range.offset, length: range.length });
				const target = options.into?.[k];
				const read = bytes.subarray(range.offset, range.offset + range.length);
				if (target === undefined) return read.slice();
				target.set(read);
				return target;
			});
		},
	};
	return { store, ranges };
}

describe("an inner chunk kept from a probe", () => {
	it("is not read again by a whole read of its shard, nor into its place", async () => {
		const { store, ranges } = recordingStore(shard());
		const reader = new ShardIndexReader(store, [PER], [LE, { name: "crc32c" }], "end");
		// The probe: inner chunk 0 alone (the pass of one block), kept.
		const probed = await reader.readInnerChunk("/c/0", [0], undefined, 1, { start: [0], end: [1] });
		expect(Array.from(probed!)).toEqual(new Array(11).fill(1));
		expect(ranges).toEqual([{ offset: 0, length: 11 }]);
		ranges.length = 0;
		// The whole read of the shard into one buffer, as ShardBands asks: each inner chunk's place, by index slot.
		const places = INNER_BYTES.map((length) => new Uint8Array(length));
		const placed: number[] = [];
		const into = (slot: number, length: number) => (placed.push(slot), places[slot].subarray(0, length));
		const read = await Promise.all([0, 1, 2, 3].map((k) => reader.readInnerChunk("/c/0", [k], undefined, 1, undefined, true, into)));
		read.forEach((bytes, k) => expect(Array.from(bytes!), `inner chunk ${k}`).toEqual(new Array(INNER_BYTES[k]).fill(k + 1)));
		// Inner chunk 0 from its kept bytes; the others in one run, from the end of inner chunk 0.
		expect(ranges).toEqual([
			{ offset: 11, length: 13 },
			{ offset: 24, length: 17 },
			{ offset: 41, length: 19 },
		]);
		expect(placed).toEqual([1, 2, 3]);
		// Nothing was written into inner chunk 0's place: its values are decoded there from the kept bytes.
		expect(Array.from(places[0])).toEqual(new Array(11).fill(0));
	});

	it("is not, nor is an inner chunk of a run another pass holds, read again into a place by a wider run", async () => {
		const { store, ranges } = recordingStore(shard());
		const reader = new ShardIndexReader(store, [PER], [LE, { name: "crc32c" }], "end");
		// A pass of inner chunks 2 and 3 (a shard's buffer of its own: places A), its run held, its reads in flight...
		const placesA = INNER_BYTES.map((length) => new Uint8Array(length));
		const intoA = (slot: number, length: number) => placesA[slot].subarray(0, length);
		const passA = [2, 3].map((k) => reader.readInnerChunk("/c/0", [k], undefined, 1, { start: [2], end: [4] }, true, intoA));
		// ...when a whole read of the shard into another buffer (places B) starts: inner chunks 2 and 3 are the held
		// run's, given to the first pass; this read reads them again on their own, into buffers of their own.
		const placesB = INNER_BYTES.map((length) => new Uint8Array(length));
		const placedB: number[] = [];
		const intoB = (slot: number, length: number) => (placedB.push(slot), placesB[slot].subarray(0, length));
		const passB = [0, 1, 2, 3].map((k) => reader.readInnerChunk("/c/0", [k], undefined, 1, undefined, true, intoB));
		const [readA, readB] = [await Promise.all(passA), await Promise.all(passB)];
		readA.forEach((bytes, k) => expect(Array.from(bytes!), `pass A, inner chunk ${k + 2}`).toEqual(new Array(INNER_BYTES[k + 2]).fill(k + 3)));
		readB.forEach((bytes, k) => expect(Array.from(bytes!), `pass B, inner chunk ${k}`).toEqual(new Array(INNER_BYTES[k]).fill(k + 1)));
		// Each place of B was written by the read that gave its bytes, or by none: the bytes given for inner chunks 2
		// and 3 are not their places, which their values are decoded into, so nothing else wrote there.
		for (const k of [2, 3]) {
			expect(readB[k]!.buffer === placesB[k].buffer, `inner chunk ${k} given in its place`).toBe(false);
			expect(Array.from(placesB[k]), `inner chunk ${k}'s place in B`).toEqual(new Array(INNER_BYTES[k]).fill(0));
		}
		expect(placedB).toEqual([0, 1]);
		expect(ranges).toEqual([
			{ offset: 24, length: 17 },
			{ offset: 41, length: 19 },
			{ offset: 0, length: 11 },
			{ offset: 11, length: 13 },
			{ offset: 24, length: 17 },
			{ offset: 41, length: 19 },
		]);
	});

	it("is given once more after the search, if the rows read hold it, and forgotten: held no longer than that read", async () => {
		const { store, ranges } = recordingStore(shard());
		const reader = new ShardIndexReader(store, [PER], [LE, { name: "crc32c" }], "end");
		// Probes of inner chunks 0 and 3 alone, kept with their coordinates in the array's grid.
		await reader.readInnerChunk("/c/0", [0], undefined, 1, { start: [0], end: [1] }, true, undefined, [0]);
		await reader.readInnerChunk("/c/0", [3], undefined, 1, { start: [3], end: [4] }, true, undefined, [3]);
		expect(reader.keptBytes).toBe(11 + 19);
		// The rows selected lie in inner chunks 0 to 2: inner chunk 3 is no read's any more.
		reader.lastReads((coords) => coords[0] < 3);
		expect(reader.keptBytes).toBe(11);
		ranges.length = 0;
		const places = INNER_BYTES.map((length) => new Uint8Array(length));
		const into = (slot: number, length: number) => places[slot].subarray(0, length);
		const read = await Promise.all([0, 1, 2].map((k) => reader.readInnerChunk("/c/0", [k], undefined, 1, { start: [0], end: [3] }, false, into, [k])));
		read.forEach((bytes, k) => expect(Array.from(bytes!), `inner chunk ${k}`).toEqual(new Array(INNER_BYTES[k]).fill(k + 1)));
		// Inner chunk 0 from its kept bytes, then held no more; its place never written by the run of 1 and 2.
		expect(ranges).toEqual([
			{ offset: 11, length: 13 },
			{ offset: 24, length: 17 },
		]);
		expect(Array.from(places[0])).toEqual(new Array(11).fill(0));
		expect(reader.keptBytes).toBe(0);
	});
});
