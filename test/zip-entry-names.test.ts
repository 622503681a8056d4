/**
 * A zip's entry names held compactly (src/store/zip-entry-names.ts: UTF-8 bytes in one buffer, a hash table of rows):
 * the same answers as a Map of strings, whatever the names (non-ASCII, empty, long, alike but for a byte) and however
 * many more than the room first made (the table grown and rehashed), a name added twice being its later row at the
 * first one's place.
 */
import { describe, expect, it } from "vitest";
import { ZipEntryNames } from "../src/store/zip-entry-names.js";

describe("zip entry names", () => {
	it("answers as a Map of strings, past the room first made, for names of every kind", () => {
		const names = new ZipEntryNames(4, 8);
		const reference = new Map<string, number>();
		const order: string[] = [];
		const all = [
			...Array.from({ length: 5000 }, (_, k) => `t/c/${k}`),
			"",
			"é/ü",
			"t/c/1\u0000",
			"日本/時間/0.0",
			"\ufffd",
			`long/${"x".repeat(3000)}`,
			"t/c/12",
			"é/ü",
			"t/c/4999",
		];
		all.forEach((name, row) => {
			names.add(name, row);
			if (!reference.has(name)) order.push(name);
			reference.set(name, row);
		});
		names.trim();
		expect(names.size).toBe(reference.size);
		expect([...names.entries()]).toEqual(order.map((name) => [name, reference.get(name)]));
		for (const name of order) expect(names.rowOf(name), name).toBe(reference.get(name));
		for (const absent of ["t/c/5000", "t/c/", "e/u", "日本/時間/0", "t/c/1\u0001", `long/${"x".repeat(2999)}`]) expect(names.rowOf(absent), absent).toBeUndefined();
		// A name added twice: its later row, at the first one's place.
		expect(names.rowOf("é/ü")).toBe(all.length - 2);
		expect(order.indexOf("é/ü")).toBe(5001);
	});

	it("holds no room: none made for no names", () => {
		const names = new ZipEntryNames(0);
		expect(names.size).toBe(0);
		expect(names.rowOf("a")).toBeUndefined();
		names.add("a", 7);
		expect([...names.entries()]).toEqual([["a", 7]]);
	});
});
