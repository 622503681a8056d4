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
});
