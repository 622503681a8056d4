/**
 * A run of missing chunks read as one fill band (ChunkSource.readMissingRun: a 1-D array's consecutive missing chunks,
 * an N-d array's whole rows of them) is filled in a buffer of the export's pool, which the output hands back once
 * written, as it does a chunk read: a new buffer of up to 512 KiB per run waited for the collector, and a 2-D array
 * written a tenth ahead peaked 20 MiB higher than before runs were read as one (97 against 81 MiB; pooled, 72). Each
 * case exports through a PoisoningPool (a buffer spoilt the moment it comes back), so a band handed back while still
 * in use shows in the values, and counts the buffers of a run's size that come back.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { capacityFor } from "../src/memory/buffer-pool.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";
import { countReturns, exportTimeThroughPool } from "./support/pool-export.js";
import { writtenEarlier } from "./support/written-earlier.js";

const work = tempDir("dt64-missing-run-pooled-");
const NAT = -(2n ** 63n);
const HOUR = 3600n;

interface Case {
	name: string;
	shape: number[];
	chunks: number[];
	/** Whether the chunk at these grid coordinates is written (the others are all NaT, not written). */
	written: (coords: number[]) => boolean;
}

const CASES: Case[] = [
	{ name: "1-D, one chunk in ten written", shape: [40_000], chunks: [100], written: ([c]) => c % 10 === 0 },
	{ name: "2-D written a tenth ahead (whole rows of chunks missing)", shape: [4_000, 40], chunks: [4, 4], written: ([row]) => row < 50 },
];

describe("runs of missing chunks are filled in the export's pool and handed back once written", () => {
	for (const c of CASES) {
		it(c.name, async () => {
			const strides = c.shape.map((_, axis) => c.shape.slice(axis + 1).reduce((a, b) => a * b, 1));
			const length = c.shape.reduce((a, b) => a * b, 1);
			const values = BigInt64Array.from({ length }, (_, i) => {
				const coords = strides.map((stride, axis) => Math.floor((Math.floor(i / stride) % c.shape[axis]) / c.chunks[axis]));
				return c.written(coords) ? BigInt(i) * HOUR : NAT;
			});
			const store = path.join(work, `${c.name.replace(/\W+/g, "-")}.zarr`);
			const dimensionNames = c.shape.length === 1 ? ["time"] : ["time", "x"];
			await writeArray(store, "time", { shape: c.shape, chunks: c.chunks, values, dimensionNames, writeEmptyChunks: false });
			writtenEarlier(store);
			const pool = new PoisoningPool();
			const acquired = new Map<number, number>();
			const acquire = pool.acquire.bind(pool);
			pool.acquire = (size: number, room?: number) => {
				acquired.set(size, (acquired.get(size) ?? 0) + 1);
				return acquire(size, room);
			};
			const back = countReturns(pool);
			const column = await exportTimeThroughPool(store, pool, path.join(work, `${path.basename(store)}.arrow`));
			expect(column.length).toBe(length);
			let wrong = 0;
			for (let i = 0; i < length; i++) {
				const got = column.get(i) as bigint | null;
				const want = values[i] === NAT ? null : values[i] * 1000n;
				if ((got === null ? null : BigInt(got)) !== want) wrong++;
			}
			expect(wrong, "values wrong (a band back while in use?)").toBe(0);
			// The runs' bands came from the pool (buffers of whole rows of chunks, more than one) and came back, all but
			// the export's last band, written as it ends. Before, none was the pool's.
			const rowBytes = 8 * c.chunks.reduce((a, b) => a * b, 1) * (c.shape.length === 1 ? 1 : c.shape[1] / c.chunks[1]);
			const runSizes = [...acquired.keys()].filter((size) => size > rowBytes && size % rowBytes === 0);
			const runsAcquired = runSizes.reduce((n, size) => n + acquired.get(size)!, 0);
			expect(runsAcquired, "runs filled in the pool").toBeGreaterThanOrEqual(3);
			const capacities = new Set(runSizes.map(capacityFor));
			const returned = [...back.entries()].filter(([capacity]) => capacities.has(capacity)).reduce((n, [, count]) => n + count, 0);
			expect(returned).toBeGreaterThanOrEqual(runsAcquired - 1);
		});
	}
});
