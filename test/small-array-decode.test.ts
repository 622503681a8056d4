/**
 * A small array's zstd, lz4 and blosc chunks decode on the calling thread, and no decode thread is started for it:
 * a thread costs more to start than such an array takes to decode. A larger array starts the threads as before.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { decodesHere, SMALL_ARRAY_BYTES } from "../src/zarr/small-array.js";
import { decodeThreadsRunning, defaultDecodeThreads } from "../src/zarr/codecs/off-thread.js";
import { readArrow, REPO, tempDir } from "./support/cli.js";

// The default this file is about: no count asked for.
delete process.env.DT64_DECODE_THREADS;

const work = tempDir("dt64-small-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };

describe("where a zstd, lz4 or blosc chunk decodes", () => {
	it("on the calling thread for an array of at most 4 MiB of fixed-size values", () => {
		expect(SMALL_ARRAY_BYTES).toBe(4 * 2 ** 20);
		expect(decodesHere([524_288], 8)).toBe(true);
		expect(decodesHere([524_289], 8)).toBe(false);
		expect(decodesHere([1024, 1024], 4)).toBe(true);
		expect(decodesHere([1024, 1025], 4)).toBe(false);
		expect(decodesHere([10], "variable")).toBe(false);
	});

	it("a small array (zstd in shards, then an xarray blosc dataset) starts no thread; a larger one starts them", async () => {
		const sharded = path.join(work, "sharded.arrow");
		await exportToFile(path.join(REPO, "data/sharded-2d.zarr"), sharded);
		expect(readArrow(sharded).numRows).toBe(8760);
		const grid = path.join(work, "grid.arrow");
		await exportToFile(path.join(REPO, "test/fixtures/tables/grid.zarr"), grid, { columns: "all", index: true });
		expect(readArrow(grid).numRows).toBe(72);
		expect(decodeThreadsRunning()).toBe(0);

		const store = path.join(work, "large.zarr");
		// datetime64[s] (the writer's default); apache-arrow gives a timestamp as epoch milliseconds.
		const values = BigInt64Array.from({ length: 600_000 }, (_, i) => 1_700_000_000n + BigInt(i));
		await writeArray(store, "", { shape: [values.length], chunks: [100_000], values, codecs: [LE, ZSTD] });
		const large = path.join(work, "large.arrow");
		await exportToFile(store, large);
		const table = readArrow(large);
		expect(table.numRows).toBe(600_000);
		expect(table.getChildAt(0)?.get(599_999)).toBe(1_700_599_999_000);
		expect(decodeThreadsRunning()).toBe(defaultDecodeThreads());
	});
});
