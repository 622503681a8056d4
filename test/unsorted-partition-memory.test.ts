/**
 * Partitioning unsorted time keeps the JavaScript heap small: the rows held are typed arrays counted in the 64 MiB
 * budget, and the runs of rows a batch splits into (about one per row when the time is random) are found one at a
 * time. They were an array of a batch's runs, a million objects with their BigInt times for a chunk of a million
 * rows, alive while the rows were copied: 540-650 MB of RSS for 10M rows by day, and a heap over 48 MB.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { runCliAsync } from "./support/run-cli-async.js";
import { tempDir } from "./support/cli.js";

const ROWS = 1_000_000;
const work = tempDir("dt64-unsorted-memory-");

/** Random seconds over 2020 (about 190 days), from a fixed-seed LCG. */
function randomSeconds(n: number): BigInt64Array {
	const values = new BigInt64Array(n);
	let x = 12_345n;
	for (let i = 0; i < n; i++) {
		x = (x * 6364136223846793005n + 1442695040888963407n) & 0xffff_ffff_ffff_ffffn;
		values[i] = 1_577_836_800n + ((x >> 40n) % (365n * 86_400n));
	}
	return values;
}

describe("unsorted time by day", () => {
	it("a chunk of a million random times is partitioned within a V8 heap of 48 MB", async () => {
		const store = path.join(work, "random.zarr");
		const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
		await writeArray(store, "", { shape: [ROWS], chunks: [ROWS], dataType: seconds, values: randomSeconds(ROWS), codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
		const out = path.join(work, "by-day");
		const result = await runCliAsync([store, "--partition-by", "day", "--json", "-o", out], { env: { NODE_OPTIONS: "--max-old-space-size=48" } });
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const summary = JSON.parse(result.stdout.toString());
		expect(summary.rows).toBe(ROWS);
		expect(summary.files).toBe(summary.partitions);
	}, 120_000);
});
