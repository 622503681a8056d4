import * as path from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { openTimeArray } from "../src/open-array.js";
import { tableOfTimeArray } from "../src/open-table.js";
import { BATCH_ROWS } from "../src/stream/band-joiner.js";
import { TableReader } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { tempDir } from "./support/cli.js";

const work = tempDir("dt64-reader-");

/**
 * A 1-D source of `chunks` chunks of `size` values that records which chunks were read. By default each chunk is a
 * band of its own, as large as a batch (smaller ones are gathered into one batch, see band-joiner.ts).
 */
function countingSource(chunks: number, size = BATCH_ROWS): ChunkSource & { reads: number[] } {
	const reads: number[] = [];
	return {
		reads,
		chunkShape: [size],
		gridShape: [chunks],
		describe: (coords) => `c/${coords[0]}`,
		async read(coords) {
			reads.push(coords[0]);
			const values = new BigInt64Array(size);
			for (let i = 0; i < size; i++) values[i] = BigInt(coords[0] * size + i);
			return values;
		},
	};
}

const settle = async () => {
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Waits (up to 20 s) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
	for (let waited = 0; !condition(); waited += 10) {
		if (waited > 20_000) throw new Error("the condition did not come true in 20 s");
		await settle();
		await tick();
	}
}

/** Waits until `measure` has kept its value through five rounds of the event loop and 10 ms each. */
async function untilStill(measure: () => number): Promise<void> {
	for (let still = 0, last = measure(); still < 5; ) {
		await settle();
		await tick();
		const now = measure();
		still = now === last ? still + 1 : 0;
		last = now;
	}
}

/** Chunks of the store of exportCountingReads. */
const COUNTED_CHUNKS = 24;

/**
 * The export stages (Arrow IPC, concurrency 4) of a store of COUNTED_CHUNKS chunks written as `name`, each as large
 * as a batch (smaller ones are gathered, see band-joiner.ts), and the chunks it reads, in the order it launches them.
 */
async function exportCountingReads(name: string) {
	const root = path.join(work, name);
	const values = new BigInt64Array(COUNTED_CHUNKS * BATCH_ROWS);
	for (let i = 0; i < values.length; i++) values[i] = BigInt(i);
	await writeArray(root, "", { shape: [values.length], chunks: [BATCH_ROWS], values, codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
	const array = await openTimeArray(root);
	const reads: number[] = [];
	const counted = { ...array, chunks: { ...array.chunks, read: (coords: readonly number[], signal?: AbortSignal) => (reads.push(coords[0]), array.chunks.read(coords, signal)) } };
	return { reads, ...createTableExportStages(tableOfTimeArray(counted), { format: "arrow", concurrency: 4 }) };
}

describe("TableReader of one array: reading ahead", () => {
	for (const concurrency of [1, 2, 4]) {
		it(`behind an output that stopped, holds the chunk being written and ${concurrency} read ahead, no more (concurrency ${concurrency})`, async () => {
			const source = countingSource(50);
			const reader = new TableReader([source], [50 * BATCH_ROWS], { concurrency });
			// An output that never finishes its first write: a disk that stalls.
			const stalled = new Writable({ objectMode: true, highWaterMark: 1, write: () => undefined });
			reader.pipe(stalled);
			await settle();
			// Each chunk held is a chunk of memory: nothing waits in the reader's own buffer.
			expect(source.reads.length).toBe(1 + concurrency);
			reader.destroy();
		});
	}

	it("holdReadAheadWhile: while the condition holds, only the chunk waited for is read", async () => {
		const source = countingSource(50);
		const reader = new TableReader([source], [50 * BATCH_ROWS], { concurrency: 4 });
		let hold = true;
		reader.holdReadAheadWhile(() => hold);
		const taken: unknown[] = [];
		const slow = new Writable({ objectMode: true, highWaterMark: 1, write: (_band, _encoding, done) => taken.push(done) });
		reader.pipe(slow);
		await settle();
		expect(source.reads.length).toBe(1);
		hold = false;
		(taken.shift() as () => void)();
		await settle();
		// The next chunk is taken: read-ahead resumes up to the concurrency.
		expect(source.reads.length).toBe(2 + 4);
		reader.destroy();
	});

	it("an export holds its reads back while its encoded output waits for the destination", async () => {
		const { reads, reader, batcher, writer } = await exportCountingReads("held.zarr");
		// A destination whose first write never ends: each stage fills, then the reader stops reading ahead.
		const stalled = new Writable({ write: () => undefined });
		const done = pipeline(reader, batcher, writer, stalled).catch(() => undefined);
		for (let i = 0; i < 10; i++) await settle();
		// Held: the chunk being written, the one encoded and waiting, the one converted and waiting, and the reads
		// launched before the output stopped; none after (reading ahead on: 7).
		expect(reads.length).toBeLessThanOrEqual(6);
		reader.destroy();
		await done;
	});

	it("reads every chunk once, in order, whatever finishes first", async () => {
		const source = countingSource(30, 4);
		const slow: ChunkSource = {
			...source,
			async read(coords, signal) {
				await new Promise((resolve) => setTimeout(resolve, (coords[0] * 7) % 5));
				return source.read(coords, signal);
			},
		};
		const bands: bigint[] = [];
		for await (const band of new TableReader([slow], [120], { concurrency: 3 })) bands.push(...(band as { columns: BigInt64Array[] }).columns[0]);
		expect(bands).toEqual(Array.from({ length: 120 }, (_, i) => BigInt(i)));
		expect([...source.reads].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
	});
});

describe("an export reading ahead behind a slow destination", () => {
	it("reads no further ahead while the destination has a write in flight", async () => {
		const { reads, reader, batcher, writer } = await exportCountingReads("in-flight.zarr");
		// A destination whose writes end only when the test says: a disk slower than the reads.
		const pending: (() => void)[] = [];
		const slow = new Writable({ write: (_chunk, _encoding, done) => pending.push(() => done()) });
		const finished = pipeline(reader, batcher, writer, slow);
		// The reads are real file reads: on a busy machine they take a while, so the test waits for the first write
		// and then for the reads to stop, by the clock as well as by turns of the event loop.
		await until(() => pending.length > 0);
		await untilStill(() => reads.length);
		const held = reads.length;
		// Still the first chunk's write in flight: the reads launched before it began, and nothing since.
		expect(pending.length).toBeGreaterThan(0);
		expect(held).toBeLessThanOrEqual(5);
		for (let i = 0; i < 10; i++) await settle();
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(reads.length).toBe(held);
		// Each write that ends lets the export go on, and it ends with every chunk read once. The writes are ended
		// until the pipeline itself has finished: a write may still come after the last read was launched (the
		// reads are real file reads, slower on a busy machine), and one left pending would hang the export.
		let over = false;
		const ended = finished.finally(() => {
			over = true;
		});
		while (!over) {
			const next = pending.shift();
			if (next) next();
			else await new Promise((resolve) => setTimeout(resolve, 1));
			await settle();
		}
		await ended;
		expect([...reads].sort((a, b) => a - b)).toEqual(Array.from({ length: COUNTED_CHUNKS }, (_, i) => i));
	});
});
