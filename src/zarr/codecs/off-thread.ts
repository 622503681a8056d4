import { availableParallelism } from "node:os";
import { natPositionsOf, recordNatPositions } from "../../convert/nat-positions.js";
import type { BufferPool } from "../../memory/buffer-pool.js";
import { copyOfBytes } from "../../memory/copy-of-bytes.js";
import { packageFile, packageFileMissing } from "../../package-file.js";
import { decodeThreadsAsked } from "./decode-threads-asked.js";
import { DecoderPool } from "./decoder-pool.js";
import { decodersWasmFile } from "./wasm/decoders-file.js";
import type { WasmCodec, WasmDecoders } from "./wasm/decoder-module.js";
import type { StreamedRow, StreamedRowSpec } from "./wasm/streamed-row.js";
import { Dt64ExportError, errorInContext } from "../../errors.js";

/** This module's URL: undefined in a CommonJS bundle, though TypeScript types it as a string. */
const moduleUrl = import.meta.url as string | undefined;
let workerModule: URL | undefined;

/**
 * The module of the decode threads: beside this one once built (dist/, or the CLI bundle, where the bundler emits it
 * as its own entry), or the built one when this module runs from the TypeScript sources (tests), as a thread cannot
 * run TypeScript. Refused when it is not there (see package-file.ts), rather than a thread failing to start.
 */
function workerUrl(): URL {
	if (workerModule === undefined) {
		const subject = "dt64-export's decode-worker.js (the module of its zstd, lz4 and blosc decode threads)";
		const fromSources = moduleUrl?.endsWith(".ts") === true;
		workerModule = fromSources
			? packageFile(subject, moduleUrl, () => new URL("../../../dist/zarr/codecs/decode-worker.js", import.meta.url))
			: packageFile(subject, moduleUrl, () => new URL("./decode-worker.js", import.meta.url));
	}
	return workerModule;
}

/**
 * Checks that the files the zstd, lz4 and blosc decoders load are there (the decoders' WebAssembly, and the decode
 * threads' module unless `DT64_DECODE_THREADS` is 0), when an array with such chunks is opened: a bundled package
 * then fails with the same error whatever the array's size (decoded here or on threads, see onThreads), before its
 * first chunk is read.
 */
function requireDecoderFiles(): void {
	decodersWasmFile();
	if (threadCount() > 0) workerUrl();
}

/**
 * How many decode threads: `DT64_DECODE_THREADS` when set (0 decodes on the calling thread), else one per core but
 * the one the main thread reads, converts and writes on, 1 to 4. A thread costs about 75 ms of CPU to start and
 * 10-20 MiB (its isolate, its WebAssembly heap): on 2 cores a second decode thread only competes with the main
 * thread (measured: one thread as fast or faster on every zstd and blosc store of the bench, and 20 MiB less).
 * Nor does the main thread decoding chunks beside the one thread pay (tried: 0.33 s against 0.30 for 20M zstd
 * values, bench/HISTORY.md): with the two chunk buffers an export holds, one decodes while the other is converted,
 * written and read into again, two halves of about equal length, and the main thread's idle time in a profile is
 * mostly its waits for the reads and writes, whose copies run on libuv's threads (a third of the export's CPU).
 */
export function defaultDecodeThreads(cores = availableParallelism()): number {
	return Math.min(4, Math.max(1, cores - 1));
}

function threadCount(): number {
	return decodeThreadsAsked() ?? defaultDecodeThreads();
}

/**
 * Whether the chunks of an array decode on the decode threads: unless the array is small (ChunkSpec.decodeHere),
 * where the calling thread decodes them sooner than a thread would start; always when `DT64_DECODE_THREADS` asks
 * for threads.
 */
function onThreads(smallArray: boolean): boolean {
	return !smallArray || (decodeThreadsAsked() ?? 0) > 0;
}

let shared: DecoderPool | null | undefined;
/**
 * The decoders on this thread, where no decode thread is used: loaded on first use, so that a process whose
 * threads decode never parses the WebAssembly (600 kB) on its main thread.
 */
let onThisThread: Promise<WasmDecoders> | undefined;

/**
 * The decoders, on this thread. A failure to load them (their module, their WebAssembly) is the package's, not the
 * chunk's: it is never reported as a corrupt chunk, which any other error of a codec is (see pipeline.ts).
 */
async function loadDecodersHere(): Promise<WasmDecoders> {
	let module: typeof import("./wasm/decoder-module.js");
	try {
		module = await import("./wasm/decoder-module.js");
	} catch (error) {
		throw packageFileMissing("dt64-export's decoder-module.js (the module of its zstd, lz4 and blosc decoders)", `cannot be loaded (${(error as Error)?.message ?? String(error)})`, undefined, error);
	}
	return module.loadWasmDecoders();
}

/** The process's decode threads, shared by every export (null: decode on the calling thread). */
function sharedPool(): DecoderPool | null {
	if (shared === undefined) {
		const size = threadCount();
		shared = size === 0 ? null : new DecoderPool(size, workerUrl());
	}
	return shared;
}

/** How many decode threads this process has started and still runs (0 before any is needed). */
export function decodeThreadsRunning(): number {
	return shared?.running ?? 0;
}

/** Chunks this process has decoded on the calling thread and on the decode threads (see decodeWasmCodec). */
const decodedChunks = { here: 0, onThreads: 0 };

/** How many zstd, lz4 and blosc chunks this process has decoded on the calling thread and on the decode threads. */
export function chunksDecoded(): { readonly here: number; readonly onThreads: number } {
	return { ...decodedChunks };
}

/** Whether an array opened in this process decodes its chunks on the decode threads (see arrayOpened). */
let arraysOnThreads = false;

/**
 * Resolves once a chunk of an array opened to decode on the decode threads has been sent to one, or after
 * `timeoutMs`; at once when no such array was opened. The CLI loads apache-arrow (40 ms of this thread's time)
 * after that: the first chunk then decodes while it loads, where it used to wait for the load to read and send it.
 */
export function firstChunkSent(timeoutMs: number): Promise<void> {
	if (!arraysOnThreads || shared == null) return Promise.resolve();
	return new Promise<void>((resolve) => {
		const timer = setTimeout(resolve, timeoutMs);
		void shared!.chunkSent.then(() => {
			clearTimeout(timer);
			resolve();
		});
	});
}

/**
 * Starts the decode threads ahead of the first chunk (an array whose codecs decode there is being opened), where
 * its chunks decode on threads at all (not a small array's; see onThreads).
 */
export function warmDecodeThreads(smallArray = false): void {
	if (onThreads(smallArray)) sharedPool()?.warm();
}

/**
 * An array with zstd, lz4 or blosc chunks is opened (`smallArray`: they decode on the calling thread, see
 * onThreads): the files of their decoders are checked (requireDecoderFiles), the decode threads start if they are to
 * decode them, and firstChunkSent waits for them from now on.
 */
export function arrayOpened(smallArray: boolean): void {
	requireDecoderFiles();
	warmDecodeThreads(smallArray);
	if (onThreads(smallArray) && sharedPool() !== null) arraysOnThreads = true;
}

/**
 * Decodes a zstd, lz4 or blosc chunk off the main thread and returns the decoded bytes (at most `capacity`, which
 * the decoder refuses to pass): a view of a buffer of `bufferPool` (or a new one), which the pool may take back once
 * its bytes are dead.
 *
 * The chunk holds one buffer, not two: its encoded bytes and then its decoded bytes. A whole buffer of the pool with
 * room for `capacity` bytes (a chunk file read with GetOptions.room) is decoded into where it is; any other input is
 * first copied into a buffer with that room. The decoder never writes output over input it has not yet copied into
 * WebAssembly memory, so the two may share the buffer (WasmDecoders.decodeInBuffer). A whole buffer handed over is
 * the caller's no longer (decoding is the encoded bytes' last use): its view is left detached, or holds the decoded
 * bytes.
 *
 * With `scanNaT` (datetime64 counts), the decoder also finds where NaT may be among the values, and the view
 * returned carries it (see nat-positions.ts). With `here` (a chunk of a small array, or a small chunk: see
 * small-array.ts), it decodes on the calling thread. With `signal`, a chunk that waits for a decode thread (each
 * holds CHUNKS_PER_THREAD) is never sent to one once it is aborted: it rejects with the AbortError.
 */
export async function decodeWasmCodec(codec: WasmCodec, input: Uint8Array, capacity: number, bufferPool?: BufferPool, scanNaT = false, here = false, signal?: AbortSignal): Promise<Uint8Array> {
	const inputLength = input.byteLength;
	const inPlace = bufferPool?.isWhole(input) === true && input.buffer.byteLength >= capacity;
	const pool = onThreads(here) ? sharedPool() : null;
	let decoded: { buffer: ArrayBufferLike; length: number; natPositions: Int32Array | null };
	if (pool === null) {
		decodedChunks.here++;
		onThisThread ??= loadDecodersHere();
		const decoders = await onThisThread;
		if (inPlace) {
			decoded = { buffer: input.buffer, ...decoders.decodeInBuffer(codec, input.buffer as ArrayBuffer, inputLength, capacity, scanNaT) };
		} else {
			const target = bufferPool?.acquire(capacity) ?? Buffer.allocUnsafeSlow(capacity);
			decoded = { buffer: target.buffer, ...decoders.decode(codec, input, target, scanNaT) };
		}
	} else {
		let sent: Uint8Array = input;
		if (!inPlace) {
			sent = bufferPool?.acquire(inputLength, capacity) ?? Buffer.allocUnsafeSlow(Math.max(inputLength, capacity));
			sent.set(input);
		}
		const answer = await pool.decode(codec, sent.buffer as ArrayBuffer, inputLength, capacity, scanNaT, signal);
		decoded = { ...answer, buffer: answer.buffer! };
		decodedChunks.onThreads++;
	}
	const bytes = new Uint8Array(decoded.buffer, 0, decoded.length);
	bufferPool?.adopt(bytes);
	if (decoded.natPositions !== null) recordNatPositions(bytes, decoded.natPositions);
	return bytes;
}

/**
 * Whether a chunk of an array (`here`: see ChunkSpec.decodeHere) that decodes into a target (decodeWasmCodecInto)
 * needs that target in a SharedArrayBuffer: when it decodes on a decode thread, which writes there where it is.
 */
export function decodesIntoShared(here = false): boolean {
	return onThreads(here) && sharedPool() !== null;
}

/**
 * Decodes a zstd, lz4 or blosc chunk into `target` (the decoder refuses to write past it), as decodeWasmCodec does
 * into a buffer of its own: the decoded length, and with `scanNaT` where NaT may be among the values (positions in
 * the chunk). Used for the inner chunks of a shard decoded into one buffer, each at its offset (ShardBands). On a
 * decode thread `target` is a view of a SharedArrayBuffer (see decodesIntoShared), which the thread writes where it
 * is. `input` at the start of `target` (read there, see ShardIndexReader.readInnerChunk) decodes where it is, as a
 * chunk in its own buffer does (WasmDecoders.decodeInBuffer); any other input travels to the thread in a buffer of
 * the pool (its own when it is a whole one) and back, handed back to the pool once decoded, its last use.
 */
export async function decodeWasmCodecInto(
	codec: WasmCodec,
	input: Uint8Array,
	target: Uint8Array,
	bufferPool?: BufferPool,
	scanNaT = false,
	here = false,
	signal?: AbortSignal,
): Promise<{ readonly length: number; readonly natPositions: Int32Array | null }> {
	const pool = onThreads(here) ? sharedPool() : null;
	const inPlace = input.buffer === target.buffer && input.byteOffset === target.byteOffset && input.byteLength <= target.byteLength;
	if (pool === null) {
		decodedChunks.here++;
		onThisThread ??= loadDecodersHere();
		const decoders = await onThisThread;
		if (inPlace) return decoders.decodeInBuffer(codec, target.buffer, input.byteLength, target.byteLength, scanNaT, target.byteOffset);
		const decoded = decoders.decode(codec, input, target, scanNaT);
		bufferPool?.release(input);
		return decoded;
	}
	if (!(target.buffer instanceof SharedArrayBuffer)) {
		// Not shared: decoded apart, then copied (never the case of a target from decodesIntoShared's answer).
		// Input read into the target: a copy of its own (a Buffer's slice() is a view of the target).
		const own = await decodeWasmCodec(codec, inPlace ? copyOfBytes(input) : input, target.byteLength, bufferPool, scanNaT, here, signal);
		target.set(own);
		const natPositions = natPositionsOf(own) ?? null;
		bufferPool?.release(own);
		// Decoded, its last use: a whole buffer of the pool without room to decode in place was copied, not handed over.
		if (!inPlace && own.buffer !== input.buffer) bufferPool?.release(input);
		return { length: own.byteLength, natPositions };
	}
	const inputLength = input.byteLength;
	const into = { buffer: target.buffer, offset: target.byteOffset };
	let sent: Uint8Array | undefined;
	if (!inPlace) {
		sent = input;
		if (bufferPool?.isWhole(input) !== true) {
			sent = bufferPool?.acquire(inputLength) ?? Buffer.allocUnsafeSlow(inputLength);
			sent.set(input);
			bufferPool?.release(input);
		}
	}
	const decoded = await pool.decode(codec, sent?.buffer as ArrayBuffer | undefined, inputLength, target.byteLength, scanNaT, signal, into);
	decodedChunks.onThreads++;
	if (bufferPool !== undefined && decoded.buffer !== undefined) {
		const back = new Uint8Array(decoded.buffer, 0, inputLength);
		bufferPool.adopt(back);
		bufferPool.release(back);
	}
	return { length: decoded.length, natPositions: decoded.natPositions };
}

/** Rows of zstd chunks this process has streamed on the calling thread and on the decode threads (see streamZstdRow). */
const streamedRows = { here: 0, onThreads: 0 };

/** How many rows of zstd chunks this process has streamed, on the calling thread and on the decode threads. */
export function rowsStreamed(): { readonly here: number; readonly onThreads: number } {
	return { ...streamedRows };
}

/**
 * A decode thread's failure while it streamed a row, naming the row's chunks as a chunk decoded whole names its own
 * (`chunk c/3: cannot decode: zstd: the decode thread failed (…)`): which of them the thread was decoding is not
 * known. A chunk's own refusal (CHUNK_CORRUPT, naming it) is left as it is.
 */
function threadFailureInRow(error: unknown, spec: StreamedRowSpec): unknown {
	if (!(error instanceof Dt64ExportError) || error.code !== "INTERNAL") return error;
	const names = spec.chunks.map((chunk) => chunk.name);
	const which = names.length === 1 ? `chunk ${names[0]}` : `chunks ${names[0]} to ${names[names.length - 1]} (a row streamed)`;
	return errorInContext(`${which}: cannot decode`, error, "INTERNAL");
}

/** A row of zstd chunks being streamed (see streamZstdRow). */
export interface StreamingRow {
	/**
	 * Fills `band` (a whole buffer of the pool, `rows` array rows; the row's last band with `last`) and returns it as
	 * the band's values, with the positions of its NaT recorded (nat-positions.ts); `band` is not to be used after.
	 */
	band(band: Uint8Array, rows: number, last: boolean): Promise<BigInt64Array>;
	/** Ends the row: its streams are handed back (a row left before its last band, or after a failure). */
	close(): void;
}

/**
 * Streams a row of zstd chunks (wasm/streamed-row.ts) on a decode thread, all its bands on that one, or on the
 * calling thread where chunks decode there (`DT64_DECODE_THREADS=0`, or `here`: see onThreads). A band comes back
 * as a buffer of `bufferPool`, as a decoded chunk does. The chunks' files stay open until the caller closes them,
 * after the row's last answer.
 */
export function streamZstdRow(spec: StreamedRowSpec, bufferPool: BufferPool, here = false): StreamingRow {
	const pool = onThreads(here) ? sharedPool() : null;
	const record = (bytes: Uint8Array, natPositions: Int32Array | null) => {
		const values = new BigInt64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
		if (natPositions !== null) recordNatPositions(values, natPositions);
		return values;
	};
	if (pool === null) {
		streamedRows.here++;
		onThisThread ??= loadDecodersHere();
		// Loaded as the decoders are, on first use (see loadDecodersHere).
		let row: Promise<StreamedRow> | undefined = onThisThread.then(async (decoders) => {
			const streamed = await import("./wasm/streamed-row.js");
			return new streamed.StreamedRow(decoders.module, spec, streamed.readFileAt);
		});
		row.catch(() => undefined);
		return {
			band: async (band, rows, last) => {
				if (row === undefined) throw new Dt64ExportError("INTERNAL", "zstd: a band asked of a streamed row that has ended");
				const natPositions = (await row).fill(band, rows, last, true);
				return record(band, natPositions);
			},
			close: () => {
				void row?.then((streamed) => streamed.close(), () => undefined);
				row = undefined;
			},
		};
	}
	streamedRows.onThreads++;
	const onThread = pool.streamRow(spec);
	return {
		band: async (band, rows, last) => {
			const length = band.byteLength;
			const decoded = await onThread.band(band.buffer as ArrayBuffer, rows, last, true).catch((error: unknown) => {
				throw threadFailureInRow(error, spec);
			});
			const bytes = new Uint8Array(decoded.buffer!, 0, length);
			bufferPool.adopt(bytes);
			return record(bytes, decoded.natPositions);
		},
		close: () => onThread.close(),
	};
}
