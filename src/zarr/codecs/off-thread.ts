import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { BufferPool } from "../../memory/buffer-pool.js";
import { DecoderPool } from "./decoder-pool.js";
import type { WasmCodec, WasmDecoders } from "./wasm/decoder-module.js";

/**
 * The module of the decode threads: beside this one once built (dist/, or the CLI bundle, where the bundler
 * emits it as its own entry), or the built one when this module runs from the TypeScript sources (tests).
 */
function workerUrl(): URL {
	const beside = new URL("./decode-worker.js", import.meta.url);
	if (existsSync(beside)) return beside;
	return new URL("../../../dist/zarr/codecs/decode-worker.js", import.meta.url);
}

/**
 * How many decode threads: `DT64_DECODE_THREADS` when set (0 decodes on the calling thread), else one per core,
 * 2 to 4 (more than the cores gains nothing; two still overlap decoding with the main thread on one core).
 */
function threadCount(): number {
	const asked = process.env.DT64_DECODE_THREADS;
	if (asked !== undefined && /^[0-9]+$/.test(asked)) return Math.min(Number(asked), 16);
	return Math.min(4, Math.max(2, availableParallelism()));
}

let shared: DecoderPool | null | undefined;
/**
 * The decoders on this thread, where no decode thread is used: loaded on first use, so that a process whose
 * threads decode never parses the WebAssembly (600 kB) on its main thread.
 */
let onThisThread: Promise<WasmDecoders> | undefined;

/** The process's decode threads, shared by every export (null: decode on the calling thread). */
function sharedPool(): DecoderPool | null {
	if (shared === undefined) {
		const size = threadCount();
		shared = size === 0 ? null : new DecoderPool(size, workerUrl());
	}
	return shared;
}

/**
 * Decodes a zstd, lz4 or blosc chunk into a buffer of `capacity` bytes from `bufferPool` (or a new one), off the
 * main thread, and returns the decoded bytes: a view of that buffer, which the pool may take back once its bytes
 * are dead. The decoder refuses output past `capacity`.
 */
export async function decodeWasmCodec(codec: WasmCodec, input: Uint8Array, capacity: number, bufferPool?: BufferPool): Promise<Uint8Array> {
	const target = bufferPool?.acquire(capacity) ?? Buffer.allocUnsafeSlow(capacity);
	const pool = sharedPool();
	if (pool === null) {
		onThisThread ??= import("./wasm/decoder-module.js").then((module) => new module.WasmDecoders());
		const length = (await onThisThread).decode(codec, input, target);
		const bytes = new Uint8Array(target.buffer, target.byteOffset, length);
		bufferPool?.shorten(bytes);
		return bytes;
	}
	// The chunk's bytes go over in a buffer of their own, which the pool takes back once the thread has returned
	// it: the caller's own when it is a whole buffer of the pool (a chunk file read into it: decoding is the bytes'
	// last use, and the caller's view is left detached), else a copy (a view of a larger buffer stays the caller's).
	const inputLength = input.byteLength;
	const whole = bufferPool?.isWhole(input) === true;
	const sent = whole ? input : (bufferPool?.acquire(inputLength) ?? Buffer.allocUnsafeSlow(inputLength));
	if (!whole) sent.set(input);
	const decoded = await pool.decode(codec, sent.buffer as ArrayBuffer, inputLength, target.buffer as ArrayBuffer, capacity);
	if (bufferPool !== undefined) {
		const returned = new Uint8Array(decoded.input, 0, inputLength);
		bufferPool.adopt(returned);
		bufferPool.release(returned);
	}
	const bytes = new Uint8Array(decoded.output, 0, decoded.length);
	bufferPool?.adopt(bytes);
	return bytes;
}
