/**
 * A sparse array (zarr-python 3 writes no chunk that is all fill: `write_empty_chunks=False`) read cheaply from a
 * local store: a folder of chunk keys some of which were found missing is listed once, and a key not in it is missing
 * without a failed open; a 1-D array's runs of missing chunks are read as one band of the fill value. What stays:
 * every value and fill exact, a chunk added or removed during the export read as it is when read (a listing is
 * checked against its folder's times, and one changed within 2 s is not trusted), a store moved away READ_FAILED, a
 * missing chunk of an array without a fill value CHUNK_MISSING naming it. Behaviour only: nothing here is timed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/index.js";
import { DirectoryStore } from "../src/store/directory-store.js";
import { tempDir } from "./support/cli.js";
import { writeStoredZip } from "./support/zip.js";
import { writtenEarlier } from "./support/written-earlier.js";

const NAT = -(2n ** 63n);
const HOUR = 3600n;

/** Waits past the time a folder's listing answers without a look at the folder (20 ms). */
const pastFreshness = () => new Promise((resolve) => setTimeout(resolve, 40));

/**
 * `length` hourly times in chunks of `chunk`, only every `every`-th chunk written (the others all fill, not written):
 * the values the export must give, fill values included (`fill`: NaT, or a time).
 */
async function sparseStore(folder: string, length: number, chunk: number, every: number, fill: bigint = NAT): Promise<(bigint | null)[]> {
	const values = BigInt64Array.from({ length }, (_, i) => (Math.floor(i / chunk) % every === 0 ? BigInt(i) * HOUR : fill));
	await writeArray(folder, "", { shape: [length], chunks: [chunk], values, dimensionNames: ["time"], fillValue: fill === NAT ? undefined : Number(fill) });
	writtenEarlier(folder);
	return [...values].map((value) => (value === NAT ? null : value * 1000n));
}

async function exported(store: string, options: Record<string, unknown> = {}): Promise<(bigint | null)[]> {
	const file = path.join(tempDir(), "out.arrow");
	await exportToFile(store, file, { unit: "ms", ...options });
	const column = tableFromIPC(fs.readFileSync(file)).getChildAt(0)!;
	return Array.from({ length: column.length }, (_, i) => {
		const value = column.get(i) as bigint | number | null;
		return value === null ? null : BigInt(value);
	});
}

/**
 * A `shape` array of hourly times (the flat C-order position, in hours) in chunks of `chunks`, only the chunks
 * `written` says written (the others all fill, not written): the values in C order an export must give.
 */
async function sparseNdStore(folder: string, shape: number[], chunks: number[], written: (coords: number[]) => boolean, fill: bigint = NAT, writeEmptyChunks = false): Promise<(bigint | null)[]> {
	const strides = shape.map((_, axis) => shape.slice(axis + 1).reduce((a, b) => a * b, 1));
	const length = shape.reduce((a, b) => a * b, 1);
	const values = BigInt64Array.from({ length }, (_, i) => {
		const coords = strides.map((stride, axis) => Math.floor(Math.floor(i / stride) % shape[axis] / chunks[axis]));
		return written(coords) ? BigInt(i) * HOUR : fill;
	});
	await writeArray(folder, "", { shape, chunks, values, fillValue: fill === NAT ? undefined : Number(fill), writeEmptyChunks });
	writtenEarlier(folder);
	return [...values].map((value) => (value === NAT ? null : value * 1000n));
}

/** The columns of an export of `store` to Arrow, by name; the time column (the array's) as `time`. */
async function exportedColumns(store: string, options: Record<string, unknown> = {}): Promise<Record<string, (bigint | number | null)[]>> {
	const file = path.join(tempDir(), "out.arrow");
	await exportToFile(store, file, { unit: "ms", ...options });
	const table = tableFromIPC(fs.readFileSync(file));
	return Object.fromEntries(
		table.schema.fields.map((field, k) => {
			const column = table.getChildAt(k)!;
			return [field.name.startsWith("dim_") ? field.name : "time", Array.from({ length: column.length }, (_, i) => column.get(i) as bigint | number | null)];
		}),
	);
}

describe("a sparse N-d array's values, whole rows of missing chunks read as one band", () => {
	it("2-D and 3-D, folder and zip, C order and chunk order: every value and fill exact, partial edge chunks, a range of rows", async () => {
		const cases = [
			// 2-D: 101 rows in chunks of 3 (the last chunk row partial), 22 columns in chunks of 4 (the last partial); rows
			// of chunks 0-2 written, 21 with one chunk, 30 with its last (edge) chunk, the others missing.
			{ shape: [101, 22], chunks: [3, 4], written: ([r, c]: number[]) => r <= 2 || (r === 21 && c === 2) || (r === 30 && c === 5) },
			// 3-D: 40 × 5 × 6 in chunks of 4 × 2 × 3; rows of chunks 0 and 6 written in part, the rest missing.
			{ shape: [40, 5, 6], chunks: [4, 2, 3], written: ([r, b, c]: number[]) => (r === 0 && b === 1) || (r === 6 && b === 2 && c === 0) },
			// Nothing written at all.
			{ shape: [50, 8], chunks: [2, 2], written: () => false },
		];
		for (const { shape, chunks, written } of cases) {
			for (const fill of [NAT, 7n * HOUR]) {
				const folder = path.join(tempDir(), "sparse-nd.zarr");
				const expected = await sparseNdStore(folder, shape, chunks, written, fill);
				const dense = path.join(tempDir(), "dense-nd.zarr");
				await sparseNdStore(dense, shape, chunks, written, fill, true);
				const zip = path.join(tempDir(), "sparse-nd.zip");
				writeStoredZip(folder, zip);
				const rowSize = shape.slice(1).reduce((a, b) => a * b, 1);
				for (const store of [folder, zip]) {
					const cOrder = await exportedColumns(store, { index: true });
					expect(cOrder.time.map((value) => (value === null ? null : BigInt(value)))).toEqual(expected);
					expect(cOrder.dim_0).toEqual(Array.from({ length: expected.length }, (_, i) => BigInt(Math.floor(i / rowSize))));
					// Chunk order: each chunk's values (clipped at the edges) in C order, chunks in C order of the grid.
					const chunkOrder = await exportedColumns(store, { index: true, order: "chunk" });
					const positions = chunkOrder.dim_0.map((row, i) => Number(row) * rowSize + shape.slice(1).reduce((at, _, axis) => at * shape[axis + 1] + Number(chunkOrder[`dim_${axis + 1}`][i]), 0));
					expect(chunkOrder.time.map((value) => (value === null ? null : BigInt(value)))).toEqual(positions.map((position) => expected[position]));
					expect([...positions].sort((a, b) => a - b)).toEqual(Array.from({ length: expected.length }, (_, i) => i));
					// A range of rows (by time: the written values rise in C order), cut inside chunk rows at both ends: as
					// from the same array with every chunk written (all fill ones too), which reads each chunk.
					if (fill === NAT && expected.some((value) => value !== null)) {
						const range = { index: true, start: new Date(4 * rowSize * 3_600_000).toISOString(), end: new Date(98 * rowSize * 3_600_000).toISOString() };
						expect(await exportedColumns(store, range)).toEqual(await exportedColumns(dense, range));
					}
				}
			}
		}
	});
});

describe("a sparse 1-D array's values, read through runs of missing chunks", () => {
	it("folder and zip: every value and fill exact (NaT fill, a time fill), a partial last chunk, a range of rows", async () => {
		for (const fill of [NAT, 7n * HOUR]) {
			const folder = path.join(tempDir(), "sparse.zarr");
			// 100,003 values in chunks of 3: 33,335 chunks, one in 7 written, the last one partial.
			const expected = await sparseStore(folder, 100_003, 3, 7, fill);
			const zip = path.join(tempDir(), "sparse.zip");
			writeStoredZip(folder, zip);
			for (const store of [folder, zip]) {
				expect(await exported(store)).toEqual(expected);
				// Rows 10..99,990 (hours from 1970-01-01T10), cut inside chunks at both ends.
				expect(await exported(store, { start: "1970-01-01T10:00:00", end: new Date(99_990 * 3_600_000).toISOString() })).toEqual(
					expected.slice(10, 99_990).filter((value) => value !== null && value >= 10n * 3_600_000n && value < 99_990n * 3_600_000n),
				);
			}
		}
	});

	it("every chunk missing: all fill, in a folder of no chunk and in one whose chunks were all removed", async () => {
		const folder = path.join(tempDir(), "empty.zarr");
		await sparseStore(folder, 70_001, 1, 70_001);
		fs.rmSync(path.join(folder, "c", "0"));
		writtenEarlier(folder);
		expect(await exported(folder)).toEqual(new Array(70_001).fill(null));
		fs.rmSync(path.join(folder, "c"), { recursive: true });
		expect(await exported(folder)).toEqual(new Array(70_001).fill(null));
	});

	it("a v2 array without a fill value: its first missing chunk is CHUNK_MISSING, named, as when read one by one", async () => {
		const folder = path.join(tempDir(), "v2-null.zarr");
		fs.mkdirSync(folder);
		fs.writeFileSync(path.join(folder, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [12], chunks: [2], dtype: "<M8[s]", compressor: null, fill_value: null, filters: null, order: "C" }));
		for (const chunk of [0, 1, 5]) fs.writeFileSync(path.join(folder, String(chunk)), Buffer.from(BigInt64Array.from([1n, 2n]).buffer));
		writtenEarlier(folder);
		await expect(exported(folder)).rejects.toMatchObject({ code: "CHUNK_MISSING", key: "2", message: expect.stringContaining("chunk 2: missing, and the array has no fill value") });
	});
});

describe("a folder's listing of chunk keys (DirectoryStore)", () => {
	/** A store of 8 chunks `c/0`..`c/7`, only c/0 and c/4 written, written an hour ago. */
	async function listedStore(): Promise<{ root: string; store: DirectoryStore }> {
		const root = path.join(tempDir("dt64-listing-"), "s.zarr");
		await sparseStore(root, 16, 2, 4);
		const store = new DirectoryStore(root);
		// A key found missing: its folder is listed from now on.
		expect(await store.get("/c/1")).toBeUndefined();
		expect(store.isAbsent("/c/2")).toBe(true);
		expect(store.isAbsent("/c/4")).toBe(false);
		return { root, store };
	}

	it("a chunk written after the folder was listed is read", async () => {
		const { root, store } = await listedStore();
		fs.writeFileSync(path.join(root, "c", "2"), Buffer.from(BigInt64Array.from([5n, 6n]).buffer));
		await pastFreshness();
		expect(store.isAbsent("/c/2")).toBe(false);
		expect([...((await store.get("/c/2", { small: true })) ?? [])]).toEqual([...new Uint8Array(BigInt64Array.from([5n, 6n]).buffer)]);
		expect(store.isAbsent("/c/3")).toBe(false);
	});

	it("a chunk removed after the folder was listed is missing", async () => {
		const { root, store } = await listedStore();
		fs.rmSync(path.join(root, "c", "4"));
		expect(await store.get("/c/4")).toBeUndefined();
		expect(await store.get("/c/4", { small: true })).toBeUndefined();
	});

	it("the store moved away after its folder was listed: READ_FAILED, not missing chunks", async () => {
		const { root, store } = await listedStore();
		fs.renameSync(root, `${root}.moved`);
		await pastFreshness();
		expect(store.isAbsent("/c/2")).toBe(false);
		for (const small of [true, false]) {
			await expect(store.get("/c/2", { small })).rejects.toMatchObject({ code: "READ_FAILED", message: expect.stringContaining(`the store ${root} is no longer there`) });
		}
	});

	it("a link to the store repointed to another store after the listing: READ_FAILED", async () => {
		const work = tempDir("dt64-listing-");
		await sparseStore(path.join(work, "a.zarr"), 16, 2, 4);
		await sparseStore(path.join(work, "b.zarr"), 16, 2, 1);
		const link = path.join(work, "latest.zarr");
		fs.symlinkSync("a.zarr", link);
		const store = new DirectoryStore(link);
		expect(await store.get("/c/1")).toBeUndefined();
		expect(store.isAbsent("/c/2")).toBe(true);
		fs.rmSync(link);
		fs.symlinkSync("b.zarr", link);
		await pastFreshness();
		expect(store.isAbsent("/c/2")).toBe(false);
		await expect(store.get("/c/2", { small: true })).rejects.toMatchObject({ code: "READ_FAILED", message: expect.stringContaining("is another folder than the one opened") });
	});

	it("a folder changed within the last 2 s is not listed: its keys are opened one by one", async () => {
		const root = path.join(tempDir("dt64-listing-"), "s.zarr");
		await sparseStore(root, 16, 2, 4);
		// Changed "now" as the listing sees it for a minute, not 2 s: set to the present, a stall of 2 s before the listing
		// (a loaded machine) made the folder old enough to be trusted, and the test failed. The listing compares the
		// clock with the modification time, which a minute ahead keeps within its 2 s however late it looks.
		const changed = new Date(Date.now() + 60_000);
		fs.utimesSync(path.join(root, "c"), changed, changed);
		const store = new DirectoryStore(root);
		expect(await store.get("/c/1")).toBeUndefined();
		expect(store.isAbsent("/c/2")).toBe(false);
		expect(await store.get("/c/2")).toBeUndefined();
	});
});
