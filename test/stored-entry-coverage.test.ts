/** StoredEntryCoverage: an entry's CRC-32 from the ranges read of it, given once all of its bytes are read. */
import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { MAX_RUNS_PER_ENTRY, StoredEntryCoverage } from "../src/store/stored-entry-coverage.js";

const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 0xff);
const crc = (part: Uint8Array) => zlib.crc32(part);
const add = (coverage: StoredEntryCoverage, offset: number, length: number, name = "e", of = bytes) => coverage.add(name, of.length, offset, of.subarray(offset, offset + length), crc);

describe("StoredEntryCoverage", () => {
	it("gives the entry's CRC-32 once ranges in any order and overlap have read all of it, once", () => {
		const coverage = new StoredEntryCoverage();
		expect(add(coverage, 900, 100)).toBeUndefined();
		expect(add(coverage, 0, 10)).toBeUndefined();
		expect(add(coverage, 500, 200)).toBeUndefined();
		expect(add(coverage, 5, 600)).toBeUndefined();
		expect(add(coverage, 0, 0)).toBeUndefined();
		// 700..900 left: a range over all of it, with bytes read before on both sides.
		expect(add(coverage, 650, 300)).toBe(zlib.crc32(bytes));
		expect(add(coverage, 0, 1000)).toBeUndefined();
		expect(add(coverage, 0, 1000, "other")).toBe(zlib.crc32(bytes));
	});

	it("gives the CRC-32 of the bytes as first read: a byte read again differently does not count", () => {
		const coverage = new StoredEntryCoverage();
		expect(add(coverage, 0, 600)).toBeUndefined();
		const changed = bytes.slice();
		changed[100] ^= 1;
		expect(add(coverage, 0, 1000, "e", changed)).toBe(zlib.crc32(bytes));
	});

	it(`stops following an entry read in more than ${MAX_RUNS_PER_ENTRY} separate runs`, () => {
		const size = 2 * (MAX_RUNS_PER_ENTRY + 1);
		const many = new Uint8Array(size).fill(3);
		const coverage = new StoredEntryCoverage();
		for (let run = 0; run <= MAX_RUNS_PER_ENTRY; run++) expect(coverage.add("e", size, 2 * run, many.subarray(2 * run, 2 * run + 1), crc)).toBeUndefined();
		expect(coverage.add("e", size, 0, many, crc)).toBeUndefined();
	});
});
