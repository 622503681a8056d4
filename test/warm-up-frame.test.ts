/**
 * A decode thread started ahead of an export's first zstd chunk decodes a built-in frame while it waits
 * (wasm/warm-up.ts): the frame decodes to the values its script encoded, the warm-up runs its rounds one turn of the
 * event loop at a time and stops when told, and a chunk sent to a thread at any point of its warm-up is decoded as
 * any other.
 */
import * as fs from "node:fs";
import Zstd from "numcodecs/zstd";
import { describe, expect, it } from "vitest";
import { warmUpValues } from "../scripts/warm-up-values.mjs";
import { crc32c } from "../src/zarr/codecs/crc32c.js";
import { DecoderPool } from "../src/zarr/codecs/decoder-pool.js";
import { loadWasmDecoders, STEPPED_CAPACITY } from "../src/zarr/codecs/wasm/decoder-module.js";
import { WARM_UP_DECODED_BYTES, WARM_UP_DECODED_CRC32C, WARM_UP_ZSTD_FRAME } from "../src/zarr/codecs/wasm/warm-up-frame.js";
import { DecoderWarmUp, WARM_UP_ROUNDS } from "../src/zarr/codecs/wasm/warm-up.js";

const WORKER = new URL("../dist/zarr/codecs/decode-worker.js", import.meta.url);

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the decode threads' warm-up", () => {
	it("the frame decodes in steps, by the streaming decoder, to the values its script encodes, NaT found where they are", () => {
		const decoders = loadWasmDecoders();
		const frame = Buffer.from(WARM_UP_ZSTD_FRAME, "base64");
		// Its window (the header's window descriptor, byte 5 after the magic and the frame header descriptor): 1 KiB,
		// not the whole frame (single segment), so the streaming decoder wraps around it as in an 8 MB chunk.
		expect(frame.readUInt32LE(0)).toBe(0xfd2fb528);
		expect(frame[4] & 0x20).toBe(0);
		expect(frame[5]).toBe(0);
		const output = new Uint8Array(STEPPED_CAPACITY);
		const decoded = decoders.decode("zstd", frame, output, true);
		expect(decoders.decodedInSteps).toBe(1);
		expect(decoded.length).toBe(WARM_UP_DECODED_BYTES);
		expect(crc32c(output.subarray(0, WARM_UP_DECODED_BYTES))).toBe(WARM_UP_DECODED_CRC32C);
		const values = warmUpValues();
		expect(new BigInt64Array(output.buffer, 0, values.length)).toEqual(values);
		const nat = [...values.keys()].filter((i) => values[i] === -(2n ** 63n));
		expect(nat.length).toBeGreaterThan(0);
		expect(Array.from(decoded.natPositions!)).toEqual(expect.arrayContaining(nat));
	});

	it("runs a round a turn of the event loop, all of them when nothing comes, and stops when told", async () => {
		const decoders = loadWasmDecoders();
		const whole = new DecoderWarmUp(decoders);
		whole.start();
		expect(whole.rounds).toBe(0);
		while (!whole.ended) await turn();
		expect(whole.rounds).toBe(WARM_UP_ROUNDS);
		// Each round in steps.
		expect(decoders.decodedInSteps).toBe(WARM_UP_ROUNDS);

		const stopped = new DecoderWarmUp(decoders);
		stopped.start();
		await turn();
		await turn();
		stopped.stop();
		const rounds = stopped.rounds;
		expect(rounds).toBeGreaterThan(0);
		expect(rounds).toBeLessThan(WARM_UP_ROUNDS);
		await turn();
		await turn();
		expect(stopped.rounds).toBe(rounds);
		// The same decoders decode a chunk after it as before.
		const values = BigInt64Array.from({ length: 50_000 }, (_, i) => BigInt(1_700_000_000_000_000_000 + i * 1_000_000_007));
		const frame = await Zstd.fromConfig({ id: "zstd", level: 1 }).encode(new Uint8Array(values.buffer));
		const output = new Uint8Array(values.byteLength);
		expect(decoders.decode("zstd", frame, output).length).toBe(values.byteLength);
		expect(new BigInt64Array(output.buffer)).toEqual(values);
	});

	it("a chunk sent to a thread warming up, at once or a while after it started, is decoded as any other", async () => {
		expect(fs.existsSync(WORKER)).toBe(true);
		const values = BigInt64Array.from({ length: 300_000 }, (_, i) => (i % 1000 === 7 ? -(2n ** 63n) : BigInt(1_700_000_000_000_000_000 + i * 999_999_937)));
		const frame = await Zstd.fromConfig({ id: "zstd", level: 1 }).encode(new Uint8Array(values.buffer));
		for (const wait of [0, 2, 10, 40]) {
			const pool = new DecoderPool(1, WORKER);
			try {
				pool.warm(true);
				await new Promise((resolve) => setTimeout(resolve, wait));
				const buffer = new ArrayBuffer(values.byteLength);
				new Uint8Array(buffer).set(frame);
				const decoded = await pool.decode("zstd", buffer, frame.byteLength, values.byteLength, true);
				expect(decoded.length).toBe(values.byteLength);
				expect(new BigInt64Array(decoded.buffer!, 0, values.length)).toEqual(values);
				expect(Array.from(decoded.natPositions!)).toEqual(expect.arrayContaining([7, 1007, 299_007]));
			} finally {
				await pool.close();
			}
		}
	});
});
