/**
 * Rows of zstd chunks streamed into their bands (zarr/streamed-rows.ts, codecs/wasm/streamed-row.ts) instead of read
 * whole: on 3-D stores of 2 MiB chunks (the smallest streamed), with edge chunks along the first two axes, NaT
 * among the values, the export's file is byte for byte the one the same array stored uncompressed (read chunk by
 * chunk) gives; missing chunks, corrupt, truncated and padded chunks, and an export left mid-row, behave as a chunk
 * read whole does. On the decode threads here; test/streamed-rows-in-thread.test.ts runs the same on the calling
 * thread (DT64_DECODE_THREADS=0).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { encodeChunk, extractChunk } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { BufferPool } from "../src/memory/buffer-pool.js";
import { openTable } from "../src/open-table.js";
import { rowsStreamed } from "../src/zarr/codecs/off-thread.js";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { idleStreamInstances } from "../src/zarr/codecs/wasm/streamed-row.js";
import { tempDir } from "./support/cli.js";
import { exportTimeThroughPool } from "./support/pool-export.js";
import { interruptOnceUnderWay, runCliWithFaultyThreads } from "./support/spawned-node.js";
import { CHUNKS, declaringMoreThanHeld, NAT, openFiles, openFilesOnceBackTo, RAW, rowsStreamedSince, SHAPE, skippableFramesAround, storeValues, streamedDuring, streamsOnThreads, writeTimeStore, ZSTD, type StoreOptions } from "./support/streamed-store.js";

const onThreads = streamsOnThreads();

/** A group with the 3-D datetime64[ms] array `time` (test/support/streamed-store.ts): its folder. */
const store = (name: string, options: StoreOptions = {}) => writeTimeStore(path.join(tempDir("dt64-streamed-"), name), ["time", "y", "x"], options);

/** A v2 group with the array `time` as zarr-python 2 writes it (chunk keys `0.1.0`), `compressor` its compressor. */
async function v2Store(name: string, compressor: { id: string; level: number } | null): Promise<string> {
	const root = path.join(tempDir("dt64-streamed-"), name);
	const dir = path.join(root, "time");
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	const zarray = { zarr_format: 2, shape: SHAPE, chunks: CHUNKS, dtype: "<M8[ms]", compressor, fill_value: null, order: "C", filters: null, dimension_separator: "." };
	fs.writeFileSync(path.join(dir, ".zarray"), JSON.stringify(zarray));
	fs.writeFileSync(path.join(dir, ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["time", "y", "x"] }));
	const all = storeValues();
	const codecs = compressor === null ? RAW : ZSTD;
	for (let i = 0; i < 2; i++) {
		for (let j = 0; j < 3; j++) {
			const chunk = extractChunk(all, SHAPE, CHUNKS, [i * CHUNKS[0], j * CHUNKS[1], 0], NAT);
			const bytes = await encodeChunk(chunk, CHUNKS, codecs, { fill: NAT, writeEmptyChunks: true });
			fs.writeFileSync(path.join(dir, `${i}.${j}.0`), bytes!);
		}
	}
	return root;
}

/** Exports `root` through the pool as the CLI does: the output's bytes. */
async function exported(root: string): Promise<Buffer> {
	const out = path.join(tempDir("dt64-streamed-out-"), "out.arrow");
	await exportTimeThroughPool(root, new BufferPool(), out);
	return fs.readFileSync(out);
}

/** The export of `root` refused: its error. */
async function refused(root: string): Promise<{ code: unknown; key: unknown; message: string; outputs: string[] }> {
	const dir = tempDir("dt64-streamed-out-");
	const before = rowsStreamed();
	const error = await exportTimeThroughPool(root, new BufferPool(), path.join(dir, "out.arrow")).then(
		() => undefined,
		(failure: unknown) => failure as { code?: unknown; key?: unknown; message: string },
	);
	if (error === undefined) throw new Error("the export did not fail");
	expect(rowsStreamedSince(before)).toBeGreaterThan(0);
	return { code: error.code, key: error.key, message: error.message, outputs: fs.readdirSync(dir) };
}

describe(`rows of zstd chunks streamed into bands (${onThreads ? "decode threads" : "calling thread"})`, () => {
	it("give the file the same array read chunk by chunk gives, edge chunks and NaT included", async () => {
		const reference = await exported(await store("raw.zarr", { codecs: RAW }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd.zarr")));
		expect(streamed).toBe(2);
		expect(result.equals(reference)).toBe(true);
		// A content checksum, checked by the stream, changes nothing.
		const checked = await streamedDuring(async () => exported(await store("checked.zarr", { checksum: true })));
		expect(checked.streamed).toBe(2);
		expect(checked.result.equals(reference)).toBe(true);
	});

	it("stream a v2 array's rows of zstd chunks too, to the file its uncompressed twin gives", async () => {
		const reference = await exported(await v2Store("raw-v2.zarr", null));
		const { result, streamed } = await streamedDuring(async () => exported(await v2Store("zstd-v2.zarr", { id: "zstd", level: 0 })));
		expect(streamed).toBe(2);
		expect(result.equals(reference)).toBe(true);
	});

	it("read a row with a missing chunk chunk by chunk (the fill value), and stream the others", async () => {
		const omitChunks = (coords: number[]) => coords[0] === 1 && coords[1] === 2;
		const reference = await exported(await store("raw-missing.zarr", { codecs: RAW, omitChunks }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd-missing.zarr", { omitChunks })));
		expect(streamed).toBe(1);
		expect(result.equals(reference)).toBe(true);
	});

	it("skip skippable frames after the frame, as a chunk read whole does", async () => {
		const reference = await exported(await store("raw-skip.zarr", { codecs: RAW }));
		const { result, streamed } = await streamedDuring(async () => exported(await store("zstd-skip.zarr", { corruptChunk: skippableFramesAround })));
		expect(streamed).toBe(2);
		expect(result.equals(reference)).toBe(true);
	});

	it("read a row whole where a chunk's frame is not one to stream, which then says why it does not decode", async () => {
		// The frame declares 4 KiB more than the chunk holds: the chunk read whole refuses it by its header.
		const dir = tempDir("dt64-streamed-out-");
		const before = rowsStreamed();
		const error = await exportTimeThroughPool(await store("declared.zarr", { corruptChunk: declaringMoreThanHeld }), new BufferPool(), path.join(dir, "out.arrow")).then(
			() => undefined,
			(failure: unknown) => failure as { code?: unknown; key?: unknown; message: string },
		);
		expect(rowsStreamedSince(before)).toBe(0);
		expect([error?.code, error?.key]).toEqual(["CHUNK_CORRUPT", "time/c/0/1/0"]);
		expect(error?.message).toBe("chunk time/c/0/1/0: cannot decode: zstd: chunk declares 2101248 bytes, more than its expected 2097152");
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("refuse a corrupt chunk with its key, and leave nothing at the output", async () => {
		// A block of the frame's middle given the reserved block type.
		const corruptChunk = (coords: number[], bytes: Uint8Array) => {
			if (coords[0] !== 1 || coords[1] !== 1) return bytes;
			const copy = Uint8Array.from(bytes);
			for (let at = 3 * (copy.length >> 2); at < copy.length; at++) copy[at] ^= 0x5a;
			return copy;
		};
		const error = await refused(await store("corrupt.zarr", { corruptChunk }));
		expect(error.code).toBe("CHUNK_CORRUPT");
		expect(error.key).toBe("time/c/1/1/0");
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

	it("close the row's files and stay usable when the export is left mid-row", async () => {
		const root = await store("left.zarr");
		const files = openFiles();
		const pool = new BufferPool();
		const table = await openTable(root, { columns: ["time"], unit: "ms", bufferPool: pool, indexSource: "positions" });
		const { reader, batcher, writer } = createTableExportStages(table, { unit: "ms", index: false });
		let batches = 0;
		const before = rowsStreamed();
		const leaving = new Writable({
			write(_chunk, _encoding, done) {
				done(++batches === 2 ? new Error("left") : undefined);
			},
		});
		await expect(pipeline(reader, batcher, writer, leaving)).rejects.toThrow("left");
		expect(rowsStreamedSince(before)).toBe(1);
		// The generator's cleanup runs once the band asked for ahead is answered.
		expect(await openFilesOnceBackTo(files)).toBe(files);
		// Here, the row's three streams are handed back to this thread's instances (a decode thread's are its own).
		if (!onThreads) expect(idleStreamInstances(new WasmDecoders().module)).toBe(3);
		// The thread (or this one) streams the next export's rows as well.
		const reference = await exported(await store("raw-after.zarr", { codecs: RAW }));
		expect((await exported(root)).equals(reference)).toBe(true);
	});
});

describe.runIf(onThreads)("a decode thread that fails while it streams a row", () => {
	for (const fault of ["exit", "throw"]) {
		it(`(${fault}) fails the export with one line, exit 1, nothing at -o`, async () => {
			const root = await store(`faulty-${fault}.zarr`);
			const outDir = tempDir("dt64-streamed-out-");
			const result = await runCliWithFaultyThreads([root, "--array", "time", "-o", path.join(outDir, "t.arrow")], fault);
			// The row's chunks named, as a chunk decoded whole is ("chunk c/3: cannot decode: zstd: the decode thread failed").
			expect(result.stderr).toMatch(/^dt64-export: chunks time\/c\/(\d+)\/0\/0 to time\/c\/\1\/\d+\/0 \(a row streamed\): cannot decode: zstd: the decode thread failed \(.*\) \[INTERNAL\]\n$/);
			expect(result.status).toBe(1);
			expect(fs.readdirSync(outDir)).toEqual([]);
		}, 20_000);
	}

	it("Ctrl-C while a row's band never comes: exit 130, nothing at -o, no hang", async () => {
		const root = await store("faulty-hang.zarr");
		const outDir = tempDir("dt64-streamed-out-");
		const result = await runCliWithFaultyThreads([root, "--array", "time", "-o", path.join(outDir, "t.arrow")], "hang", interruptOnceUnderWay(outDir));
		expect(result.stderr).toBe("dt64-export: interrupted by SIGINT\n");
		expect(result.status).toBe(130);
		expect(fs.readdirSync(outDir)).toEqual([]);
	}, 20_000);
});
