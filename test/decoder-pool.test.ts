/**
 * The decode threads share one compiled module: the first thread compiles the decoders and posts the module, and
 * every other thread gets it (V8 then shares the compiled code and its optimized tier), instead of each compiling
 * its own: given at start once it exists, or sent as a first message to a thread started while it was compiled. A
 * stand-in thread (support/module-echo-worker.mjs) answers how it got its module.
 */
import { getEventListeners } from "node:events";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { CHUNKS_PER_THREAD, DecoderPool } from "../src/zarr/codecs/decoder-pool.js";
import { defaultDecodeThreads } from "../src/zarr/codecs/off-thread.js";
import { rejection } from "./support/thrown.js";

const WORKER = new URL("./support/module-echo-worker.mjs", import.meta.url);
const COMPILED = 0;
const GIVEN_AT_START = 1;
const SENT = 2;

const chunk = (pool: DecoderPool) => pool.decode("zstd", new ArrayBuffer(8), 0, 8);

describe("DecoderPool", () => {
	it("warm() starts every thread at once: the first compiles, the others are sent its module before any chunk", async () => {
		const pool = new DecoderPool(3, WORKER);
		try {
			pool.warm();
			// Sent before the module exists: the compiling thread takes one, and the others wait in the pool until the
			// threads started beside it have the module (in its queue, they would all be its own: every answer 0).
			// No thread compiled twice (1), and none got a chunk before its module (-1).
			const answers = await Promise.all(Array.from({ length: 12 }, () => chunk(pool)));
			expect(new Set(answers.map((answer) => answer.length))).toEqual(new Set([COMPILED, SENT]));
			const later = await Promise.all(Array.from({ length: 6 }, () => chunk(pool)));
			expect(new Set(later.map((answer) => answer.length))).toEqual(new Set([COMPILED, SENT]));
		} finally {
			await pool.close();
		}
	});

	it("when the compiling thread dies first, the threads waiting for its module go too, and the next chunk starts over", async () => {
		const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dt64-pool-")), "died");
		process.env.DT64_TEST_MARKER = marker;
		const pool = new DecoderPool(2, new URL("./support/compiler-dies-once-worker.mjs", import.meta.url));
		try {
			pool.warm();
			await expect(chunk(pool)).rejects.toThrow(/the decode thread failed \(exited with code 3\)/);
			expect(fs.readFileSync(marker, "utf8")).toBe("died");
			expect(await chunk(pool)).toMatchObject({ length: COMPILED });
			const answers = await Promise.all([chunk(pool), chunk(pool)]);
			expect(answers.map((answer) => answer.length).sort()).toEqual([COMPILED, GIVEN_AT_START]);
		} finally {
			await pool.close();
			delete process.env.DT64_TEST_MARKER;
		}
	});

	it("a thread that cannot load the decoders' files fails its chunks with that error and code, not as a thread failure", async () => {
		const worker = new URL("./support/missing-decoders-worker.mjs", import.meta.url);
		const pool = new DecoderPool(1, worker);
		try {
			const missing = fileURLToPath(new URL("./no-such-decoders.wasm", worker));
			const refusal = await rejection(chunk(pool));
			expect(refusal).toMatchObject({ code: "PACKAGE_FILE_MISSING", path: missing });
			expect(refusal.message.split(": dt64-export's modules were moved")[0]).toBe(`dt64-export's decoders.wasm (its zstd, lz4 and blosc decoders' WebAssembly) cannot be read at ${missing} (ENOENT: no such file or directory)`);
		} finally {
			await pool.close();
		}
	});

	it("an aborted export's chunks that wait for a thread are never sent: at most CHUNKS_PER_THREAD a thread are decoded after the abort", async () => {
		const pool = new DecoderPool(2, new URL("./support/slow-counting-worker.mjs", import.meta.url));
		const controller = new AbortController();
		try {
			pool.warm();
			const chunks = Array.from({ length: 24 }, () => pool.decode("zstd", new ArrayBuffer(8), 0, 8, false, controller.signal));
			await Promise.race(chunks);
			controller.abort();
			const settled = await Promise.allSettled(chunks);
			const decoded = settled.filter((result) => result.status === "fulfilled").length;
			// The first, and what the threads held when it was answered: on main, all 24 went to the threads' queues.
			expect(decoded).toBeLessThanOrEqual(1 + 2 * CHUNKS_PER_THREAD);
			const refused = settled.filter((result): result is PromiseRejectedResult => result.status === "rejected");
			expect(refused.length).toBe(24 - decoded);
			for (const { reason } of refused) expect(reason).toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
			// Another export's chunks still go: the pool goes on.
			expect(await pool.decode("zstd", new ArrayBuffer(8), 0, 8)).toMatchObject({ length: expect.any(Number) });
			// A chunk of an aborted export is refused at once.
			await expect(pool.decode("zstd", new ArrayBuffer(8), 0, 8, false, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
		} finally {
			await pool.close();
		}
	});

	it("one abort listener on an export's signal however many of its chunks wait, none once they are sent (trial 25, finding 12)", async () => {
		const pool = new DecoderPool(1, new URL("./support/slow-counting-worker.mjs", import.meta.url));
		const controller = new AbortController();
		try {
			pool.warm();
			// 32 chunks of one export (HTTP's default concurrency): a listener each made Node warn of a leak past 10.
			const chunks = Array.from({ length: 32 }, () => pool.decode("zstd", new ArrayBuffer(8), 0, 8, false, controller.signal));
			expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
			await Promise.all(chunks);
			expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
		} finally {
			await pool.close();
		}
	});

	it("chunks beyond CHUNKS_PER_THREAD a thread wait in the pool, and all are decoded, by every thread", async () => {
		const pool = new DecoderPool(2, new URL("./support/slow-counting-worker.mjs", import.meta.url));
		try {
			pool.warm();
			const answers = await Promise.all(Array.from({ length: 12 }, () => pool.decode("zstd", new ArrayBuffer(8), 0, 8)));
			// Each thread counts its own: together they decoded all 12.
			const counts = answers.map((answer) => answer.length);
			expect(counts.filter((count) => count === 1)).toHaveLength(2);
			expect(Math.max(...counts)).toBeLessThan(12);
		} finally {
			await pool.close();
		}
	});

	it("an export's chunks reach the decode threads with its signal, so that an abort holds back those waiting", async () => {
		const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "dt64-pool-signal-")), "a.zarr");
		// 8 MB of int64 in chunks of 800 kB, zstd: decoded on the decode threads.
		const values = BigInt64Array.from({ length: 1_000_000 }, (_, i) => BigInt(1_600_000_000 + i * 60));
		const codecs = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }];
		await writeArray(root, "", { shape: [values.length], chunks: [100_000], dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, values, codecs });
		const original = DecoderPool.prototype.decode;
		const decode = vi.spyOn(DecoderPool.prototype, "decode");
		try {
			await exportToFile(root, path.join(path.dirname(root), "whole.arrow"));
			expect(decode).toHaveBeenCalledTimes(10);
			for (const call of decode.mock.calls) expect(call[5]).toBeInstanceOf(AbortSignal);
			decode.mockClear();
			const controller = new AbortController();
			decode.mockImplementationOnce(function (this: DecoderPool, ...args) {
				queueMicrotask(() => controller.abort());
				return original.apply(this, args);
			});
			await expect(exportToFile(root, path.join(path.dirname(root), "aborted.arrow"), { signal: controller.signal, concurrency: 8 })).rejects.toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
			for (const call of decode.mock.calls) expect(call[5]?.aborted).toBe(true);
		} finally {
			decode.mockRestore();
		}
	});

	it("without warm(), chunks wait for the first thread's module rather than start threads that compile again", async () => {
		const pool = new DecoderPool(2, WORKER);
		try {
			const answers = await Promise.all([1, 2, 3].map(() => chunk(pool)));
			// The first thread compiled and took the first chunk; the second thread was started with its module.
			expect(answers.map((answer) => answer.length).sort()).toEqual([COMPILED, COMPILED, GIVEN_AT_START]);
		} finally {
			await pool.close();
		}
	});

	it("the threads stop once all are idle, and the next chunk starts one again with the decoders compiled already (a long-running program kept them, 10-20 MiB each, for good)", async () => {
		// Idle for 0 ms: stopped on the turn after their last answer (30 s in an export).
		const pool = new DecoderPool(2, WORKER, 0);
		try {
			await Promise.all([1, 2, 3, 4].map(() => chunk(pool)));
			expect(pool.running).toBe(2);
			for (const deadline = Date.now() + 20_000; pool.running > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
			expect(pool.running).toBe(0);
			// Started with the module the first thread compiled: none compiles again.
			expect((await chunk(pool)).length).toBe(GIVEN_AT_START);
			expect(pool.running).toBe(1);
		} finally {
			await pool.close();
		}
	});

	it("close() fails the chunks still waiting for the module", async () => {
		const pool = new DecoderPool(2, WORKER);
		// Observed before close(), which rejects them at once.
		const first = expect(chunk(pool)).rejects.toThrow(/the decode thread failed \(the decoder pool was closed\)/);
		const waiting = expect(chunk(pool)).rejects.toThrow(/^the decoder pool was closed$/);
		await pool.close();
		await Promise.all([first, waiting]);
	});
});

describe("the number of decode threads", () => {
	it("says when its first chunk has been sent to a thread (the CLI loads apache-arrow after that)", async () => {
		const pool = new DecoderPool(1, WORKER);
		try {
			let sent = false;
			void pool.chunkSent.then(() => {
				sent = true;
			});
			pool.warm();
			await new Promise((resolve) => setTimeout(resolve, 100));
			expect(sent).toBe(false);
			const decoded = chunk(pool);
			await pool.chunkSent;
			expect(sent).toBe(true);
			await decoded;
			// Once sent, at once.
			await pool.chunkSent;
		} finally {
			await pool.close();
		}
	});

	it("one per core but the main thread's, 1 to 4", () => {
		expect([1, 2, 3, 4, 5, 8, 64].map((cores) => defaultDecodeThreads(cores))).toEqual([1, 1, 2, 3, 4, 4, 4]);
	});
});
