/**
 * The CLI loads apache-arrow once the first chunk of an array decoded on the decode threads has been sent to one
 * (firstChunkSent in off-thread.ts): a file of its own, since the process's decode threads and the arrays it has
 * opened are module state.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { arrayOpened, firstChunkSent } from "../src/zarr/codecs/off-thread.js";
import { readArrow, REPO, tempDir } from "./support/cli.js";

delete process.env.DT64_DECODE_THREADS;

const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
const AN_HOUR = 3_600_000;

/**
 * Milliseconds `promise` takes to settle. "At once" is not measured: it is asked with a limit of an hour, which the
 * test's timeout would end, so a wait for the limit fails the test.
 */
async function timed(promise: Promise<void>): Promise<number> {
	const started = performance.now();
	await promise;
	return performance.now() - started;
}

describe("firstChunkSent", () => {
	it("resolves at once while no opened array decodes on the threads, a small one included", async () => {
		await firstChunkSent(AN_HOUR);
		await exportToFile(path.join(REPO, "data/sharded-2d.zarr"), path.join(tempDir("dt64-first-"), "small.arrow"));
		await firstChunkSent(AN_HOUR);
	});

	it("once such an array is opened, waits for its first chunk to be sent, or for its time limit", async () => {
		arrayOpened(false);
		const waited = await timed(firstChunkSent(300));
		// The limit's timer is set from the event loop's cached time, which may be a little behind: not the full 300 ms.
		expect(waited).toBeGreaterThanOrEqual(250);
		const work = tempDir("dt64-first-");
		const values = BigInt64Array.from({ length: 600_000 }, (_, i) => BigInt(i));
		await writeArray(path.join(work, "large.zarr"), "", { shape: [values.length], chunks: [100_000], values, codecs: [LE, ZSTD] });
		await exportToFile(path.join(work, "large.zarr"), path.join(work, "large.arrow"));
		expect(readArrow(path.join(work, "large.arrow")).numRows).toBe(600_000);
		// Sent by now: at once, however long the limit.
		await firstChunkSent(AN_HOUR);
	});
});
