/** The inner chunks kept between the range search's probes and the export: kept and given back as read. */
import { describe, expect, it } from "vitest";
import { KeptInnerChunks } from "../src/zarr/kept-inner-chunks.js";

describe("kept inner chunks", () => {
	it("keep a copy of a Node Buffer (whose slice is a view) and give a copy back: neither the reader's later use of its buffer nor the decoder's changes what is kept", () => {
		const kept = new KeptInnerChunks();
		const read = Buffer.from([1, 2, 3, 4]);
		kept.keep("/c/0", 3, read);
		read.fill(0);
		const first = kept.take("/c/0", 3);
		expect(Array.from(first ?? [])).toEqual([1, 2, 3, 4]);
		first?.fill(9);
		expect(Array.from(kept.take("/c/0", 3) ?? [])).toEqual([1, 2, 3, 4]);
	});

	it("once the search is over, forget those outside the rows read, and give each of the others once, its bytes themselves", () => {
		const kept = new KeptInnerChunks();
		kept.keep("/c/0", 0, Buffer.from([1, 2, 3]), [0]);
		kept.keep("/c/1", 1, Buffer.from([4, 5]), [11]);
		kept.keep("/c/1", 2, Buffer.from([6]), [12]);
		kept.keep("/c/9", 0, Buffer.from([7, 8, 9, 10]));
		expect(kept.bytes).toBe(10);
		// The rows read are those of inner chunks 11 to 12: the others (and one of coordinates unknown) go now.
		kept.lastReads((coords) => coords[0] >= 11 && coords[0] < 13);
		expect(kept.bytes).toBe(3);
		expect([kept.has("/c/0", 0), kept.has("/c/9", 0)]).toEqual([false, false]);
		expect(Array.from(kept.take("/c/1", 1) ?? [])).toEqual([4, 5]);
		expect(kept.bytes).toBe(1);
		// Given once: not again, though still known as kept (a run of its shard reads around it, never into its place).
		expect(kept.take("/c/1", 1)).toBeUndefined();
		expect(kept.has("/c/1", 1)).toBe(true);
		expect(Array.from(kept.take("/c/1", 2) ?? [])).toEqual([6]);
		expect(kept.bytes).toBe(0);
	});
});
