/**
 * `start`/`end` from JavaScript that are not strings (a Date, a number, null) are USAGE errors saying what to pass,
 * checked before anything is read (trial 25, finding 13: an uncoded `TypeError: text.trim is not a function`).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportToFile } from "../src/index.js";
import { REPO, tempDir } from "./support/cli.js";

describe("time bounds that are not strings", () => {
	it("a Date, a number, null: USAGE naming the option and what to pass", async () => {
		const store = path.join(REPO, "data/weather-station.zarr");
		const output = path.join(tempDir("dt64-bounds-"), "t.arrow");
		for (const [options, option, got] of [
			[{ start: new Date("2023-03-01T00:00:00Z") }, "start", "a Date: pass date.toISOString()"],
			[{ end: 1_617_000_000_000 }, "end", "the number 1617000000000: write it as a string"],
			[{ start: null }, "start", "null"],
		] as const) {
			await expect(exportToFile(store, output, options as unknown as { start?: string })).rejects.toMatchObject({
				code: "USAGE",
				option,
				message: `${option}: expected an ISO 8601 date or date-time string (e.g. "2021-03-04" or "2021-03-04T05:06:07Z"), got ${got}`,
			});
		}
	});
});
