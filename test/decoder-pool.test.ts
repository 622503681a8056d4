/**
 * The decode threads share one compiled module: the first thread compiles the decoders and posts the module, and
 * the threads started after it are given it (V8 then shares the compiled code and its optimized tier), instead of
 * each compiling its own. A stand-in thread (support/module-echo-worker.mjs) answers whether it was given one.
 */
import { describe, expect, it } from "vitest";
import { DecoderPool } from "../src/zarr/codecs/decoder-pool.js";

const WORKER = new URL("./support/module-echo-worker.mjs", import.meta.url);

describe("DecoderPool", () => {
	it("starts the threads after the first with the module it compiled", async () => {
		const pool = new DecoderPool(2, WORKER);
		try {
			pool.warm();
			// The first thread's module comes before its first answer: the second thread starts with it.
			expect((await pool.decode("zstd", new ArrayBuffer(8), 0, 8)).length).toBe(0);
			const answers = await Promise.all([pool.decode("zstd", new ArrayBuffer(8), 0, 8), pool.decode("zstd", new ArrayBuffer(8), 0, 8)]);
			expect(answers.map((answer) => answer.length).sort()).toEqual([0, 1]);
		} finally {
			await pool.close();
		}
	});

	it("sends chunks to the first thread until it has compiled, rather than start one that compiles again", async () => {
		const pool = new DecoderPool(2, WORKER);
		try {
			const answers = await Promise.all([1, 2, 3].map(() => pool.decode("zstd", new ArrayBuffer(8), 0, 8)));
			expect(answers.map((answer) => answer.length)).toEqual([0, 0, 0]);
			// Now compiled: a chunk while the first thread is busy starts a second one, given the module.
			const more = await Promise.all([pool.decode("zstd", new ArrayBuffer(8), 0, 8), pool.decode("zstd", new ArrayBuffer(8), 0, 8)]);
			expect(more.map((answer) => answer.length).sort()).toEqual([0, 1]);
		} finally {
			await pool.close();
		}
	});
});
