import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countText } from "../src/cli/count-text.js";

describe("countText", () => {
	it("groups digits by thousands as toLocaleString('en') does, for every safe integer", () => {
		fc.assert(fc.property(fc.maxSafeInteger().chain((n) => fc.constantFrom(n, n % 1_000_000, n % 1000)), (n) => countText(n) === n.toLocaleString("en")), { seed: 15, numRuns: 2000 });
		for (const n of [0, 1, 999, 1000, 20_000_000, -1234567, Number.MAX_SAFE_INTEGER]) expect(countText(n)).toBe(n.toLocaleString("en"));
	});
});
