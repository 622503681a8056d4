/**
 * The table reader's memory bound, checked structurally instead of by timing or RSS: however far the consumer
 * lags, each column has read no more than the chunks of the rows handed out, its current band and its chunks in
 * flight.
 */
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import * as path from "node:path";
import { DirectoryStore } from "../src/store/directory-store.js";
import { TableReader, type TableBand } from "../src/stream/table-reader.js";
import type { ChunkSource } from "../src/zarr/chunk-source.js";
import type { ChunkValues } from "../src/zarr/chunk-values.js";
import { REPO } from "./support/cli.js";

/** A 1-D source whose chunk k holds k * chunk + i, counting the chunks read. */
function countingSource(length: number, chunk: number): ChunkSource<ChunkValues> & { reads: number } {
	const source = {
		reads: 0,
		chunkShape: [chunk],
		gridShape: [Math.ceil(length / chunk)],
		describe: (coords: readonly number[]) => `c/${coords[0]}`,
		async read(coords: readonly number[]) {
			source.reads++;
			return Float64Array.from({ length: chunk }, (_, i) => coords[0] * chunk + i);
		},
	};
	return source;
}

describe("TableReader", () => {
	it("aligns columns of different chunkings and reads ahead a bounded number of chunks per column", async () => {
		const length = 10_000;
		const concurrency = 3;
		const columns = [countingSource(length, 10), countingSource(length, 64), countingSource(length, 1000)];
		const reader = new TableReader(columns, [length], { concurrency });
		let rows = 0;
		for await (const band of reader as AsyncIterable<TableBand>) {
			for (const values of band.columns) expect(Array.from(values as Float64Array)).toEqual(Array.from({ length: band.length }, (_, i) => rows + i));
			rows += band.length;
			// Let any read-ahead run before measuring it.
			await new Promise((resolve) => setTimeout(resolve, 1));
			for (const column of columns) {
				const chunk = column.chunkShape[0];
				expect(column.reads).toBeLessThanOrEqual(Math.ceil(rows / chunk) + 1 + concurrency + 1);
			}
		}
		expect(rows).toBe(length);
	});

	it("in chunk order, cuts a column over fewer axes to each chunk's box, holding at most two of its bands", async () => {
		const rows = 1000;
		const concurrency = 2;
		// grid(row, col) = row * 4 + col over [1000, 4] in chunks of [10, 2]; along(row) = row in chunks of 7; across(col) = col.
		const grid = {
			chunkShape: [10, 2],
			gridShape: [100, 2],
			describe: (coords: readonly number[]) => coords.join("."),
			read: async (coords: readonly number[]) => Float64Array.from({ length: 20 }, (_, i) => (coords[0] * 10 + Math.floor(i / 2)) * 4 + coords[1] * 2 + (i % 2)),
		};
		const along = countingSource(rows, 7);
		const across = countingSource(4, 4);
		const reader = new TableReader([grid, { source: along, shape: [rows], axes: [0] }, { source: across, shape: [4], axes: [1] }], [rows, 4], { order: "chunk", concurrency });
		let boxes = 0;
		for await (const band of reader as AsyncIterable<TableBand>) {
			if (band.region.kind !== "box") throw new Error("chunk order gives boxes");
			const [first, col] = band.region.origin;
			expect(band.region.extent).toEqual([10, 2]);
			expect(Array.from(band.columns[1] as Float64Array)).toEqual(Array.from({ length: 10 }, (_, i) => first + i));
			expect(Array.from(band.columns[2] as Float64Array)).toEqual([col, col + 1]);
			boxes++;
			await new Promise((resolve) => setTimeout(resolve, 1));
			expect(along.reads).toBeLessThanOrEqual(Math.ceil((first + 10) / 7) + 1 + concurrency + 1);
		}
		expect(boxes).toBe(200);
		expect(across.reads).toBe(1);
	});
});

describe("TableReader destroyed (an export aborted)", () => {
	/** A 1-D source whose reads take `ms` each, recording when each started and whether its signal was aborted then. */
	function slowSource(length: number, chunk: number, ms: number) {
		const starts: { at: number; aborted: boolean }[] = [];
		const source: ChunkSource<ChunkValues> = {
			chunkShape: [chunk],
			gridShape: [Math.ceil(length / chunk)],
			describe: (coords: readonly number[]) => `c/${coords[0]}`,
			async read(coords: readonly number[], signal?: AbortSignal) {
				starts.push({ at: performance.now(), aborted: signal?.aborted === true });
				await new Promise((resolve) => setTimeout(resolve, ms));
				return Float64Array.from({ length: chunk }, (_, i) => coords[0] * chunk + i);
			},
		};
		return { source, starts };
	}

	it.each(["c", "chunk"] as const)("order %s: no chunk read starts once it is destroyed, not even when a read in flight ends after it (a local store's reads ignore the signal)", async (order) => {
		// In chunk order the columns share one chunk shape.
		const columns = [slowSource(100_000, 100, 30), slowSource(100_000, order === "chunk" ? 100 : 250, 30)];
		const reader = new TableReader(
			columns.map((column) => column.source),
			[100_000],
			{ order, concurrency: 4 },
		);
		const controller = new AbortController();
		const sink = new Writable({ objectMode: true, write: (_band, _encoding, done) => done() });
		const piped = pipeline(reader, sink, { signal: controller.signal }).then(
			() => undefined,
			(error: unknown) => error,
		);
		// Wait until the consumer waits on reads in flight (they take 30 ms), then abort in the middle of them.
		await new Promise((resolve) => setTimeout(resolve, 100));
		const abortedAt = performance.now();
		controller.abort();
		expect(await piped).toMatchObject({ name: "AbortError" });
		await new Promise((resolve) => setTimeout(resolve, 150));
		for (const { starts } of columns) {
			expect(starts.length).toBeGreaterThan(0);
			expect(starts.filter((start) => start.at > abortedAt)).toEqual([]);
		}
	});

	it("a local store reads no file once the signal is aborted (its reads cannot be cancelled once started)", async () => {
		const store = new DirectoryStore(path.join(REPO, "data/weather-station.zarr"));
		const controller = new AbortController();
		expect(await store.get("/zarr.json", { signal: controller.signal })).toBeInstanceOf(Uint8Array);
		controller.abort();
		for (const small of [true, false]) {
			await expect(store.get("/zarr.json", { signal: controller.signal, small })).rejects.toMatchObject({ name: "AbortError" });
		}
		await expect(store.getRange("/zarr.json", { offset: 0, length: 1 }, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
	});
});
