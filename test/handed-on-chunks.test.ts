/**
 * A 1-D array's chunks handed on to the writer count against the chunks in flight until the writer hands their
 * buffers back (HandedOnChunks in src/stream/chunk-bands.ts): an export reading two chunks at once holds two chunk
 * buffers in all, not a third read ahead while the chunk before is still being written, and the read ahead starts
 * as soon as a written chunk comes back, not once the consumer asks for the next.
 */
import { describe, expect, it } from "vitest";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { countingHandedOn, readBands } from "../src/stream/chunk-bands.js";
import { tableReaderWith, type TableBand } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

const CHUNK = 1024;
const CHUNKS = 12;

/** Counts the chunk buffers out at once (acquired, not yet handed back whole). */
class CountingPool extends PoisoningPool {
	live = 0;
	mostLive = 0;

	override acquire(size: number, room?: number): Buffer {
		if (size === CHUNK * 8) this.mostLive = Math.max(this.mostLive, ++this.live);
		return super.acquire(size, room);
	}

	override release(view: Uint8Array): void {
		if (view.byteLength === CHUNK * 8) this.live--;
		super.release(view);
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads CHUNKS chunks, each decoded in `decodeMs`, with 2 in flight; the consumer takes each band, "writes" it (hands
 * it back `writeMs` later, as the output file does once written, when `writtenBack`) and asks for the next band
 * after `takeMs`. Returns the values read, the most chunk buffers out at once, and for each chunk how many bands the
 * consumer had asked for and how many chunks had arrived when its read started.
 */
async function run(writtenBack: boolean, { decodeMs, writeMs, takeMs }: { decodeMs: number; writeMs: number; takeMs: number }) {
	const pool = new CountingPool();
	if (writtenBack) pool.expectWrittenBack();
	let asked = 0;
	let arrived = 0;
	const askedAtRead: number[] = [];
	const arrivedAtRead: number[] = [];
	const source: ChunkSource<BigInt64Array> = {
		chunkShape: [CHUNK],
		gridShape: [CHUNKS],
		describe: (coords) => coords.join("."),
		read: async ([k]) => {
			askedAtRead[k] = asked;
			arrivedAtRead[k] = arrived;
			const values = new BigInt64Array(pool.acquire(CHUNK * 8).buffer, 0, CHUNK);
			await sleep(decodeMs);
			for (let i = 0; i < CHUNK; i++) values[i] = BigInt(k * CHUNK + i);
			arrived++;
			return values;
		},
	};
	const bands = readBands(source, [CHUNK * CHUNKS], 2, new AbortController().signal, undefined, undefined, undefined, { bufferPool: pool, countHandedOn: true });
	const got: bigint[] = [];
	for (;;) {
		asked++;
		const next = await bands.next();
		if (next.done) break;
		const values = next.value.values as BigInt64Array;
		got.push(...values);
		if (writtenBack) setTimeout(() => pool.release(new Uint8Array(values.buffer, values.byteOffset, values.byteLength)), writeMs);
		if (takeMs > 0) await sleep(takeMs);
	}
	return { got, mostLive: pool.mostLive, askedAtRead, arrivedAtRead };
}

/** A source of CHUNKS chunks (each filled with its number) whose reads wait until the test lets each finish. */
function heldReads(pool: CountingPool): { source: ChunkSource<BigInt64Array>; pending: Map<number, () => void> } {
	const pending = new Map<number, () => void>();
	const source: ChunkSource<BigInt64Array> = {
		chunkShape: [CHUNK],
		gridShape: [CHUNKS],
		describe: (coords) => coords.join("."),
		read: ([k]) => {
			const values = new BigInt64Array(pool.acquire(CHUNK * 8).buffer, 0, CHUNK).fill(BigInt(k));
			return new Promise((resolve) => pending.set(k, () => resolve(values)));
		},
	};
	return { source, pending };
}

describe("chunks handed on to the writer", () => {
	it("count as chunks in flight until written: two buffers in all", async () => {
		const { got, mostLive, askedAtRead } = await run(true, { decodeMs: 4, writeMs: 2, takeMs: 6 });
		expect(got).toEqual(Array.from({ length: CHUNK * CHUNKS }, (_, i) => BigInt(i)));
		// Without the count, a third chunk was read the moment the one before it arrived, while that one was written.
		expect(mostLive).toBe(2);
		// Read ahead all the same: each chunk from the third on is read before the consumer asks for it.
		for (let k = 2; k < CHUNKS; k++) expect(askedAtRead[k], `chunk ${k}`).toBeLessThanOrEqual(k);
	});

	it("start the next read as one comes back, while the chunk before is still being read", async () => {
		const pool = new CountingPool();
		pool.expectWrittenBack();
		const { source, pending } = heldReads(pool);
		const turn = () => new Promise((resolve) => setImmediate(resolve));
		const bands = readBands(source, [CHUNK * CHUNKS], 2, new AbortController().signal, undefined, undefined, undefined, { bufferPool: pool, countHandedOn: true });
		const first = bands.next();
		await turn();
		expect([...pending.keys()], "two chunks in flight").toEqual([0, 1]);
		pending.get(0)!();
		const band = (await first).value!.values as BigInt64Array;
		expect(band[0]).toBe(0n);
		await turn();
		// Chunk 0 is with the writer, chunk 1 in flight: two buffers, no third read.
		expect(pending.has(2)).toBe(false);
		pool.release(new Uint8Array(band.buffer, band.byteOffset, band.byteLength));
		await turn();
		// Written and back: chunk 2 is read now, while chunk 1 is still being read (not once it arrives).
		expect(pending.has(2)).toBe(true);
		expect(pool.mostLive).toBe(2);
		for (let k = 1; k < CHUNKS; k++) pending.get(k)?.();
		await bands.return(undefined);
	});

	it("are not counted when written buffers do not come back (a pipe): reads ahead go on", async () => {
		const { got, askedAtRead } = await run(false, { decodeMs: 4, writeMs: 2, takeMs: 6 });
		expect(got.length).toBe(CHUNK * CHUNKS);
		for (let k = 2; k < CHUNKS; k++) expect(askedAtRead[k], `chunk ${k}`).toBeLessThanOrEqual(k);
	});

	it("in chunk order too, an edge chunk clipped into other memory handed back at once", async () => {
		// 2-D, chunks of 32 x 32 (1,024 values), the last column of chunks clipped to 16 wide: read in chunk order.
		const shape = [32 * 6, 32 * 3 + 16];
		const pool = new CountingPool();
		pool.expectWrittenBack();
		const source: ChunkSource<BigInt64Array> = {
			chunkShape: [32, 32],
			gridShape: [6, 4],
			describe: (coords) => coords.join("."),
			read: async ([i, j]) => {
				const values = new BigInt64Array(pool.acquire(CHUNK * 8).buffer, 0, CHUNK);
				for (let r = 0; r < 32; r++) for (let c = 0; c < 32; c++) values[r * 32 + c] = BigInt((i * 32 + r) * 1000 + j * 32 + c);
				await sleep(2);
				return values;
			},
		};
		const reader = tableReaderWith([source], shape, { order: "chunk", concurrency: 2, bufferPool: pool });
		let values = 0;
		let wrong = 0;
		for await (const band of reader as AsyncIterable<TableBand>) {
			const column = band.columns[0] as BigInt64Array;
			if (band.region.kind !== "box") throw new Error("a box");
			const [[r0, c0], [rows, cols]] = [band.region.origin, band.region.extent];
			for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (column[r * cols + c] !== BigInt((r0 + r) * 1000 + c0 + c)) wrong++;
			values += column.length;
			// Written a little later; a clipped edge chunk's values are not the pool's.
			setTimeout(() => pool.release(new Uint8Array(column.buffer, column.byteOffset, column.byteLength)), 1);
			await sleep(3);
		}
		expect(wrong).toBe(0);
		expect(values).toBe(shape[0] * shape[1]);
		expect(pool.mostLive).toBe(2);
		// Every chunk came back (the edge ones once clipped): none left to the collector.
		expect(pool.live).toBe(0);
	});

	it("hold the chunk waited for while the output is busy and two are with it, until one comes back or it is idle", async () => {
		const pool = new CountingPool();
		pool.expectWrittenBack();
		const { source, pending } = heldReads(pool);
		const turn = () => new Promise((resolve) => setTimeout(resolve, 5));
		let busy = false;
		const bands = readBands(source, [CHUNK * CHUNKS], 2, new AbortController().signal, undefined, () => !busy, undefined, { bufferPool: pool, countHandedOn: true });
		const taken: BigInt64Array[] = [];
		const take = async () => taken.push((await bands.next()).value!.values as BigInt64Array);
		const first = take();
		await turn();
		expect([...pending.keys()]).toEqual([0, 1]);
		pending.get(0)!();
		await first;
		// The output is writing chunk 0 now.
		busy = true;
		pending.get(1)!();
		await take();
		// Both chunks are with the output, which is busy: the chunk asked for now waits.
		const third = take();
		await turn();
		expect(pending.has(2)).toBe(false);
		const back = (k: number) => pool.release(new Uint8Array(taken[k].buffer, taken[k].byteOffset, taken[k].byteLength));
		back(0);
		await turn();
		expect(pending.has(2)).toBe(true);
		expect(pool.mostLive).toBe(2);
		pending.get(2)!();
		await third;
		// Two with the output again, the next waits, and goes once the output is idle though nothing came back.
		const fourth = take();
		await turn();
		expect(pending.has(3)).toBe(false);
		busy = false;
		await turn();
		expect(pending.has(3)).toBe(true);
		pending.get(3)!();
		await fourth;
		for (let k = 4; k < CHUNKS; k++) pending.get(k)?.();
		await bands.return(undefined);
	});
});

describe("the chunks handed on, counted", () => {
	it("are counted without looking at each one: a chunk back stops counting, and thousands counted cost no walk over them", () => {
		const pool = new BufferPool();
		pool.expectWrittenBack();
		const control = countingHandedOn(pool, 4);
		const views = Array.from({ length: 5000 }, () => pool.acquire(128));
		const chunks = views.map((view) => new BigInt64Array(view.buffer, view.byteOffset, 16));
		const derefs = { count: 0 };
		const deref = WeakRef.prototype.deref;
		WeakRef.prototype.deref = function (this: WeakRef<object>) {
			derefs.count++;
			return deref.call(this);
		};
		try {
			for (const chunk of chunks.slice(0, 3)) {
				expect(control.allows([0], 0)).toBe(true);
				control.arrived!(chunk);
			}
			// Three handed on and one in flight: the limit.
			expect(control.allows([0], 1)).toBe(false);
			expect(control.allows([0], 0)).toBe(true);
			// The same chunk told twice counts once.
			control.arrived!(chunks[0]);
			expect(control.allows([0], 0)).toBe(true);
			pool.release(views[1]);
			expect(control.allows([0], 1)).toBe(true);
			// Thousands held, each asked about: before, every question walked all of them (25 million derefs here).
			for (const chunk of chunks.slice(3)) {
				control.arrived!(chunk);
				control.allows([0], 0);
			}
			expect(control.allows([0], 0)).toBe(false);
			for (const view of [views[0], ...views.slice(2)]) pool.release(view);
			expect(control.allows([0], 3)).toBe(true);
			expect(derefs.count).toBeLessThan(100);
		} finally {
			WeakRef.prototype.deref = deref;
			control.close();
		}
	});
});
