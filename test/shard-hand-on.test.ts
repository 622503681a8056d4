/**
 * A 1-D sharded array read a shard at a time hands its values on as its inner chunks are decoded (readBands with
 * `shards`, one column): bands of one inner chunk, then two, four, ... up to a shard (the same bands whatever the
 * timing), each handed on once its inner chunks are decoded, never past one not decoded yet or failed, with where
 * NaT may be (unknown past a missing inner chunk); a range cuts the first and last shards; the next shards are read
 * while one is handed on, as many as the limit holds. Driven by hand: each
 * inner chunk's decode settles when the test says, so no timing is involved.
 */
import { describe, expect, it } from "vitest";
import { natPositionsOf } from "../src/convert/nat-positions.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { readBands, type ValueBand } from "../src/stream/chunk-bands.js";
import type { ChunkSource, ShardBands } from "../src/zarr/chunk-source.js";
import type { OpenedShard } from "../src/zarr/shard-bands.js";

const INNER = 10;
const PER = 4;
/** Three shards, the last of two inner chunks, the last of them ragged. */
const LENGTH = 10 * INNER - 3;

interface Deferred {
	resolve(positions: Int32Array | null): void;
	reject(error: Error): void;
}

/** A sharded source whose inner chunks settle by hand: `settle(shard, k, ...)`; each opened shard is recorded. */
function handDriven(pool?: BufferPool) {
	const opened: { shard: number; start: number; end: number; values: BigInt64Array }[] = [];
	const deferred = new Map<string, Deferred>();
	const shardBands: ShardBands<BigInt64Array> = {
		innerPerShard: PER,
		innerValues: INNER,
		describe: (shard) => `c/${shard}`,
		read: () => Promise.reject(new Error("read whole: not expected")),
		open(shard, start, end): OpenedShard<BigInt64Array> {
			const count = Math.min(PER, 10 - shard * PER);
			const last = Math.min(end, count);
			const bytes = pool?.acquire(last * INNER * 8) ?? new Uint8Array(last * INNER * 8);
			const values = new BigInt64Array(bytes.buffer, bytes.byteOffset, last * INNER);
			const parts: Promise<Int32Array | null>[] = [];
			const decoded: boolean[] = [];
			const positions: (Int32Array | null)[] = [];
			for (let k = start; k < last; k++) {
				const at = parts.length;
				decoded.push(false);
				positions.push(null);
				parts.push(
					new Promise<Int32Array | null>((resolve, reject) => {
						deferred.set(`${shard},${k}`, {
							resolve: (found) => {
								// The inner chunk's values in its place: its global indices (0 where missing, as a fill).
								for (let i = 0; i < INNER; i++) values[k * INNER + i] = found === null ? 0n : BigInt((shard * PER + k) * INNER + i);
								positions[at] = found;
								decoded[at] = true;
								resolve(found);
							},
							reject,
						});
					}),
				);
				parts[at].catch(() => undefined);
			}
			opened.push({ shard, start, end, values });
			return { values, start, parts, decoded, positions };
		},
	};
	const source: ChunkSource<BigInt64Array> = {
		chunkShape: [INNER],
		gridShape: [10],
		describe: (coords) => `inner ${coords[0]}`,
		read: () => Promise.reject(new Error("inner chunk by inner chunk: not expected")),
		shardBands,
	};
	const settle = (shard: number, k: number, positions: Int32Array | null = new Int32Array(0)) => deferred.get(`${shard},${k}`)!.resolve(positions);
	const fail = (shard: number, k: number, error: Error) => deferred.get(`${shard},${k}`)!.reject(error);
	return { source, opened, settle, fail };
}

/** Lets the reads' settled promises run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => BigInt(from + i));
const summary = (band: ValueBand) => ({ offset: band.offset, values: Array.from(band.values) });

describe("a sharded array's values handed on by runs of decoded inner chunks", () => {
	it("hands on runs of inner chunks from one to a shard, each once decoded, never past one not decoded yet", async () => {
		const { source, opened, settle } = handDriven();
		const bands = readBands(source, [LENGTH], { requests: 2, chunks: 2 }, new AbortController().signal, undefined, undefined, undefined, { countHandedOn: true, shards: true });
		const first = bands.next();
		// Two shards read at once, the first waited for.
		await turn();
		expect(opened.map((o) => o.shard)).toEqual([0, 1]);
		settle(0, 0, Int32Array.of(3));
		settle(0, 2, Int32Array.of(0, 9));
		settle(0, 3);
		// The first inner chunk alone, as soon as it is decoded.
		const a = (await first).value as ValueBand;
		expect(summary(a)).toEqual({ offset: 0, values: range(0, 10) });
		expect(Array.from(natPositionsOf(a.values)!)).toEqual([3]);
		// Then two: inner chunk 1 not decoded yet, the band waits for it.
		const second = bands.next();
		let secondTaken = false;
		void second.then(() => (secondTaken = true));
		await turn();
		expect(secondTaken).toBe(false);
		settle(0, 1);
		const b = (await second).value as ValueBand;
		expect(summary(b)).toEqual({ offset: 10, values: range(10, 30) });
		expect(Array.from(natPositionsOf(b.values)!)).toEqual([10, 19]);
		// Then four, cut to the shard's end.
		const c = (await bands.next()).value as ValueBand;
		expect(summary(c)).toEqual({ offset: 30, values: range(30, 40) });
		// Shard 0 handed on: shard 2 is read (no pool counting what was written: the shards not all handed on count).
		await turn();
		expect(opened.map((o) => o.shard)).toEqual([0, 1, 2]);
		// A whole shard from now on; a missing inner chunk (null: NaT not known) is the band's values too, its
		// positions then not known.
		for (let k = 0; k < PER; k++) settle(1, k, k === 1 ? null : new Int32Array(0));
		const d = (await bands.next()).value as ValueBand;
		expect(d.offset).toBe(40);
		expect(d.values.length).toBe(40);
		expect(Array.from(d.values.subarray(0, 10))).toEqual(range(40, 50));
		expect(Array.from(d.values.subarray(10, 20))).toEqual(Array(10).fill(0n));
		expect(Array.from(d.values.subarray(20, 40))).toEqual(range(60, 80));
		expect(natPositionsOf(d.values)).toBeUndefined();
		settle(2, 0);
		settle(2, 1);
		// The last shard's last inner chunk is cut to the array's length.
		const e = (await bands.next()).value as ValueBand;
		expect(summary(e)).toEqual({ offset: 80, values: range(80, LENGTH) });
		expect((await bands.next()).done).toBe(true);
	});

	it("hands on no value of a run that holds an inner chunk that failed: its error comes in its turn", async () => {
		const { source, settle, fail } = handDriven();
		const bands = readBands(source, [LENGTH], { requests: 2, chunks: 2 }, new AbortController().signal, undefined, undefined, undefined, { countHandedOn: true, shards: true });
		const handed: bigint[] = [];
		const all = (async () => {
			for await (const band of bands) handed.push(...band.values);
		})();
		await turn();
		for (let k = 0; k < PER; k++) settle(0, k);
		settle(1, 0);
		fail(1, 1, new Error("chunk c/1 (inner chunk [1]): cannot decode"));
		settle(1, 2);
		settle(1, 3);
		await expect(all).rejects.toThrow("chunk c/1 (inner chunk [1]): cannot decode");
		// Shard 0, and nothing of shard 1's run (a whole shard by then), not even its inner chunk 0.
		expect(handed).toEqual(range(0, 40));
	});

	it("cuts the first and last shards of a range to its rows, reading only the inner chunks it needs", async () => {
		const { source, opened, settle } = handDriven();
		const rows = { start: 15, end: 75 };
		const bands = readBands(source, [LENGTH], { requests: 2, chunks: 2 }, new AbortController().signal, undefined, undefined, rows, { countHandedOn: true, shards: true });
		const out: ValueBand[] = [];
		const all = (async () => {
			for await (const band of bands) out.push(band);
		})();
		await turn();
		expect(opened[0]).toMatchObject({ shard: 0, start: 1, end: 4 });
		for (let k = 1; k < PER; k++) settle(0, k);
		await turn();
		for (let k = 0; k < PER; k++) settle(1, k);
		await all;
		expect(opened.map((o) => [o.shard, o.start, o.end])).toEqual([
			[0, 1, 4],
			[1, 0, 4],
		]);
		expect(out[0].offset).toBe(15);
		expect(out.flatMap((band) => Array.from(band.values))).toEqual(range(15, 75));
	});

	it("holds at most the limit's shards until their buffers come back, once the output hands written buffers back", async () => {
		const pool = new BufferPool();
		pool.expectWrittenBack();
		const { source, opened, settle } = handDriven(pool);
		let outputReady = false;
		const bands = readBands(source, [LENGTH], { requests: 2, chunks: 2 }, new AbortController().signal, undefined, () => outputReady, undefined, {
			bufferPool: pool,
			countHandedOn: true,
			shards: true,
		});
		const first = bands.next();
		await turn();
		for (let k = 0; k < PER; k++) settle(0, k);
		// Shard 0 in bands of one, two and one inner chunks, views of its one buffer.
		const a = [(await first).value as ValueBand, (await bands.next()).value as ValueBand, (await bands.next()).value as ValueBand];
		expect(a.map((band) => band.values.length)).toEqual([10, 20, 10]);
		expect(new Set(a.map((band) => band.values.buffer)).size).toBe(1);
		for (let k = 0; k < PER; k++) settle(1, k);
		const b = (await bands.next()).value as ValueBand;
		expect(b.offset).toBe(40);
		// Both shards handed on, neither written: shard 2 waits while the output is busy.
		const third = bands.next();
		await turn();
		await new Promise((resolve) => setTimeout(resolve, 5));
		expect(opened.map((o) => o.shard)).toEqual([0, 1]);
		// Shard 0 written: its buffer comes back, once its last band is, and shard 2 is read.
		for (const band of a.slice(0, 2)) pool.release(new Uint8Array(band.values.buffer, band.values.byteOffset, band.values.byteLength));
		await turn();
		expect(opened.map((o) => o.shard)).toEqual([0, 1]);
		pool.release(new Uint8Array(a[2].values.buffer, a[2].values.byteOffset, a[2].values.byteLength));
		await turn();
		expect(opened.map((o) => o.shard)).toEqual([0, 1, 2]);
		outputReady = true;
		settle(2, 0);
		settle(2, 1);
		expect(((await third).value as ValueBand).offset).toBe(80);
	});
});
