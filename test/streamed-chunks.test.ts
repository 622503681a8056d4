/**
 * Chunks of zstd streamed into the bands of their boxes in chunk order (zarr/streamed-chunks.ts,
 * stream/streamed-chunk-bands.ts) instead of read whole: on a 3-D store of 2 MiB chunks (the smallest streamed), with
 * edge chunks along the first two axes and NaT among the values, the export's file (`--index --order chunk`) is
 * byte for byte the one the same array stored uncompressed (read chunk by chunk) gives; a time range that cuts a
 * chunk's first rows, missing, corrupt, truncated and padded chunks, and an export left mid-chunk behave as a chunk
 * read whole does. On the decode threads here; test/streamed-chunks-in-thread.test.ts runs the same on the calling
 * thread (DT64_DECODE_THREADS=0).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { openTable } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { tableReaderWith, type TableBand } from "../src/stream/table-reader.js";
import { rowsStreamed } from "../src/zarr/codecs/off-thread.js";
import { tempDir } from "./support/cli.js";
import { runCliWithFaultyThreads } from "./support/spawned-node.js";
import { CHUNKS, declaringMoreThanHeld, NAT, openFiles, openFilesOnceBackTo, RAW, rowsStreamedSince, SHAPE, skippableFramesAround, storeValues, streamedDuring, streamsOnThreads, writeTimeStore, ZSTD, type StoreOptions } from "./support/streamed-store.js";

const onThreads = streamsOnThreads();

/**
 * A group with the 3-D datetime64[ms] array `time` (test/support/streamed-store.ts) over the dimensions t, y, x (not
 * `time`, the array's own column): its folder.
 */
const store = (name: string, options: StoreOptions = {}) => writeTimeStore(path.join(tempDir("dt64-streamed-chunks-"), name), ["t", "y", "x"], options);

/** Exports `root` in chunk order with index columns through a pool handed back by the output file, as the CLI does: the file. */
async function exportInChunkOrder(root: string, out: string): Promise<void> {
	const pool = new BufferPool();
	const table = await openTable(root, { columns: ["time"], unit: "ms", bufferPool: pool, indexSource: "positions" });
	const { reader, batcher, writer } = createTableExportStages(table, { unit: "ms", index: true, order: "chunk" });
	await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
}

/** The bytes of the export of `root` in chunk order. */
async function exported(root: string): Promise<Buffer> {
	const out = path.join(tempDir("dt64-streamed-chunks-out-"), "out.arrow");
	await exportInChunkOrder(root, out);
	return fs.readFileSync(out);
}

/** The export of `root` refused: its error, and what is left in its output folder. */
async function refused(root: string): Promise<{ code: unknown; key: unknown; path: unknown; message: string; outputs: string[] }> {
	const dir = tempDir("dt64-streamed-chunks-out-");
	const { result: error, streamed } = await streamedDuring(() =>
		exportInChunkOrder(root, path.join(dir, "out.arrow")).then(
			() => undefined,
			(failure: unknown) => failure as { code?: unknown; key?: unknown; path?: unknown; message: string },
		),
	);
	if (error === undefined) throw new Error("the export did not fail");
	expect(streamed).toBeGreaterThan(0);
	return { code: error.code, key: error.key, path: error.path, message: error.message, outputs: fs.readdirSync(dir) };
}

/** Every value of the bands of `root`'s time array read in chunk order over the rows `rows`, in order. */
async function bandValues(root: string, rows: { start: number; end: number }): Promise<BigInt64Array> {
	const pool = new BufferPool();
	const table = await openTable(root, { columns: ["time"], unit: "ms", bufferPool: pool, indexSource: "positions" });
	const reader = tableReaderWith([table.columns[0].chunks], table.shape, { order: "chunk", rows, bufferPool: pool });
	const bands: BigInt64Array[] = [];
	// Copied: a band's buffer may be the pool's next band.
	for await (const band of reader as AsyncIterable<TableBand>) bands.push((band.columns[0] as BigInt64Array).slice());
	const all = new BigInt64Array(bands.reduce((sum, band) => sum + band.length, 0));
	let at = 0;
	for (const band of bands) {
		all.set(band, at);
		at += band.length;
	}
	return all;
}

describe(`chunks of zstd streamed into their bands in chunk order (${onThreads ? "decode threads" : "calling thread"})`, () => {
	it("give the file the same array read chunk by chunk gives, edge chunks and NaT included", async () => {
		const reference = await exported(await store("raw.zarr", { codecs: RAW }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd.zarr")));
		expect(streamed).toBe(6);
		expect(result.equals(reference)).toBe(true);
		// A content checksum, checked by the stream, changes nothing.
		const checked = await streamedDuring(async () => exported(await store("checked.zarr", { checksum: true })));
		expect(checked.streamed).toBe(6);
		expect(checked.result.equals(reference)).toBe(true);
	});

	it("stream a table's zstd column beside a column read chunk by chunk, to the file its uncompressed twin gives", async () => {
		// A second datetime64 array over the same dimensions and chunks: uncompressed here (read whole, read ahead), or
		// zstd in the twin whose every column is uncompressed.
		const twoColumns = async (name: string, codecs: object[]) => {
			const root = await store(name, { codecs });
			await writeArray(root, "later", {
				shape: SHAPE,
				chunks: CHUNKS,
				values: storeValues().map((v) => (v === NAT ? v : v + 500n)),
				dataType: { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } },
				dimensionNames: ["t", "y", "x"],
				codecs: RAW,
			});
			return root;
		};
		const exportBoth = async (root: string) => {
			const out = path.join(tempDir("dt64-streamed-chunks-out-"), "out.arrow");
			const pool = new BufferPool();
			const table = await openTable(root, { columns: ["time", "later"], unit: "ms", bufferPool: pool, indexSource: "positions" });
			const { reader, batcher, writer } = createTableExportStages(table, { unit: "ms", index: true, order: "chunk" });
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			return fs.readFileSync(out);
		};
		const reference = await exportBoth(await twoColumns("raw-two.zarr", RAW));
		const { result, streamed } = await streamedDuring(async () => exportBoth(await twoColumns("zstd-two.zarr", ZSTD)));
		expect(streamed).toBe(6);
		expect(result.equals(reference)).toBe(true);
	});

	it("read whole a chunk whose first rows a range leaves out, and stream one it cuts at its end", async () => {
		const rows = { start: 1, end: 6 };
		const reference = await bandValues(await store("raw-rows.zarr", { codecs: RAW }), rows);
		const { result, streamed } = await streamedDuring(async () => bandValues(await store("zstd-rows.zarr"), rows));
		// The first row of chunks starts before the range (read whole), the second ends after it (streamed).
		expect(streamed).toBe(3);
		expect(result.length).toBe(5 * 5 * 32768);
		expect(Buffer.from(result.buffer).equals(Buffer.from(reference.buffer))).toBe(true);
	});

	it("read a missing chunk whole (the fill value), and stream the others", async () => {
		const omitChunks = (coords: number[]) => coords[0] === 1 && coords[1] === 2;
		const reference = await exported(await store("raw-missing.zarr", { codecs: RAW, omitChunks }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd-missing.zarr", { omitChunks })));
		expect(streamed).toBe(5);
		expect(result.equals(reference)).toBe(true);
	});

	it("skip skippable frames before and after the frame, as a chunk read whole does", async () => {
		const reference = await exported(await store("raw-skip.zarr", { codecs: RAW }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd-skip.zarr", { corruptChunk: skippableFramesAround })));
		expect(streamed).toBe(6);
		expect(result.equals(reference)).toBe(true);
	});

	it("read a chunk whole where its frame is not one to stream, which then says why it does not decode", async () => {
		// The frame declares 4 KiB more than the chunk holds: the chunk read whole refuses it by its header.
		const error = await refused(await store("declared.zarr", { corruptChunk: declaringMoreThanHeld }));
		expect([error.code, error.key, error.path]).toEqual(["CHUNK_CORRUPT", "time/c/0/1/0", "time"]);
		expect(error.message).toBe("chunk time/c/0/1/0: cannot decode: zstd: chunk declares 2101248 bytes, more than its expected 2097152");
		expect(error.outputs).toEqual([]);
	});

	it("refuse a corrupt chunk with its key and array, and leave nothing at the output", async () => {
		// A block of the frame's middle given the reserved block type.
		const corruptChunk = (coords: number[], bytes: Uint8Array) => {
			if (coords[0] !== 1 || coords[1] !== 1) return bytes;
			const copy = Uint8Array.from(bytes);
			for (let at = 3 * (copy.length >> 2); at < copy.length; at++) copy[at] ^= 0x5a;
			return copy;
		};
		const error = await refused(await store("corrupt.zarr", { corruptChunk }));
		expect([error.code, error.key, error.path]).toEqual(["CHUNK_CORRUPT", "time/c/1/1/0", "time"]);
		expect(error.message).toMatch(/^chunk time\/c\/1\/1\/0: cannot decode: zstd: /);
		expect(error.message).not.toContain("\n");
		expect(error.outputs).toEqual([]);
	});

	it("refuse a truncated chunk, and bytes after the frame that are not a skippable frame", async () => {
		const truncated = await refused(await store("truncated.zarr", { corruptChunk: (coords, bytes) => (coords[0] === 0 && coords[1] === 2 ? bytes.subarray(0, bytes.length - 1000) : bytes) }));
		expect([truncated.code, truncated.key]).toEqual(["CHUNK_CORRUPT", "time/c/0/2/0"]);
		expect(truncated.message).toMatch(/^chunk time\/c\/0\/2\/0: cannot decode: zstd: /);
		expect(truncated.outputs).toEqual([]);
		const padded = await refused(await store("padded.zarr", { corruptChunk: (coords, bytes) => (coords[0] === 1 && coords[1] === 0 ? Buffer.concat([bytes, Buffer.alloc(16, 7)]) : bytes) }));
		expect([padded.code, padded.key]).toEqual(["CHUNK_CORRUPT", "time/c/1/0/0"]);
		expect(padded.message).toContain("after the frame");
	});

	it("close the chunk's file and stay usable when the export is left mid-chunk", async () => {
		const root = await store("left.zarr");
		const files = openFiles();
		const pool = new BufferPool();
		const table = await openTable(root, { columns: ["time"], unit: "ms", bufferPool: pool, indexSource: "positions" });
		const { reader, batcher, writer } = createTableExportStages(table, { unit: "ms", index: true, order: "chunk" });
		let batches = 0;
		const before = rowsStreamed();
		const leaving = new Writable({
			write(_chunk, _encoding, done) {
				done(++batches === 2 ? new Error("left") : undefined);
			},
		});
		await expect(pipeline(reader, batcher, writer, leaving)).rejects.toThrow("left");
		expect(rowsStreamedSince(before)).toBeGreaterThan(0);
		// The generator's cleanup runs once the band asked for ahead is answered.
		expect(await openFilesOnceBackTo(files)).toBe(files);
		// The thread (or this one) streams the next export's chunks as well.
		const reference = await exported(await store("raw-after.zarr", { codecs: RAW }));
		expect((await exported(root)).equals(reference)).toBe(true);
	});
});

describe.runIf(onThreads)("a decode thread that fails while it streams a chunk in chunk order", () => {
	for (const fault of ["exit", "throw"]) {
		it(`(${fault}) fails the export with one line naming the chunk, exit 1, nothing at -o`, async () => {
			const root = await store(`faulty-${fault}.zarr`);
			const outDir = tempDir("dt64-streamed-chunks-out-");
			const result = await runCliWithFaultyThreads([root, "--array", "time", "--index", "--order", "chunk", "-o", path.join(outDir, "t.arrow")], fault);
			// Named as a chunk decoded whole is ("chunk c/3: cannot decode: zstd: the decode thread failed").
			expect(result.stderr).toMatch(/^dt64-export: chunk time\/c\/\d+\/\d+\/0: cannot decode: zstd: the decode thread failed \(.*\) \[INTERNAL\]\n$/);
			expect(result.status).toBe(1);
			expect(fs.readdirSync(outDir)).toEqual([]);
		}, 20_000);
	}
});
