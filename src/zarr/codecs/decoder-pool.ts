import { Worker } from "node:worker_threads";
import { abortError, onAbort } from "../../abort.js";
import { Dt64ExportError } from "../../errors.js";
import type { CompiledAnswer, DecodeAnswer, DecodeRequest, DecodeThreadData, ModuleGift, StreamMessage } from "./decode-worker.js";
import type { StreamedRowSpec } from "./wasm/streamed-row.js";
import type { WasmCodec } from "./wasm/decoder-module.js";

/**
 * The error a chunk held by a failed thread gets. A thread that could not load the decoders' files threw this
 * package's own error (PACKAGE_FILE_MISSING), whose code and fields Node posts with its message: it is kept, as the
 * calling thread would have thrown it. Anything else is the thread's failure, not the chunk's: INTERNAL.
 */
function threadFailure(codec: WasmCodec, error: Error): Dt64ExportError {
	const { code, path } = error as Error & { code?: unknown; path?: string };
	if (error.name === "Dt64ExportError" && code === "PACKAGE_FILE_MISSING") return new Dt64ExportError(code, error.message, { path, cause: error });
	return new Dt64ExportError("INTERNAL", `${codec}: the decode thread failed (${error.message.replace(/\s+/g, " ")})`);
}

/** Where a chunk decodes when not into its own buffer: from `offset` on in a shared buffer (DecodeRequest.target). */
export interface SharedTarget {
	readonly buffer: SharedArrayBuffer;
	readonly offset: number;
}

/** A decoded chunk: the first `length` bytes of `buffer`, as handed back by the thread. */
export interface Decoded {
	/** Absent for a chunk decoded in its shared target where its encoded bytes were (see DecoderPool.decode). */
	readonly buffer?: ArrayBuffer;
	readonly length: number;
	/** Where NaT may be among the values, as the thread found (asked for with `scanNaT`; see DecodedLength). */
	readonly natPositions: Int32Array | null;
}

interface Task {
	readonly codec: WasmCodec;
	resolve(decoded: Decoded): void;
	reject(error: Error): void;
}

/**
 * A chunk not yet sent to a thread: its request but for the id, given when it is sent, and its task; and the signal
 * of the export it belongs to, which takes it out of the pool, never sent, once aborted (see DecoderPool.#watch).
 */
type Waiting = Task & Omit<DecodeRequest, "id"> & { readonly signal?: AbortSignal };

/** How many chunks of an export wait, and how to stop listening to its signal once none does (onAbort). */
interface Watched {
	readonly stop: () => void;
	waiting: number;
}

/**
 * Chunks sent to a thread at most and not answered: the one it decodes, and the next, which it starts as soon as it
 * answers (no round trip to this thread between two chunks). The others wait here, where an abort takes them out;
 * in the thread's queue each would be decoded, for nobody.
 */
export const CHUNKS_PER_THREAD = 2;

/**
 * How long the threads may all be idle (no chunk in flight or waiting, no row streaming) before they stop: a
 * long-running program that exported once keeps no thread, nor its 10-20 MiB (4 threads: 141 MiB of RSS against
 * 103 without, trial 33). The next chunk starts them again, with the decoders compiled already.
 */
const IDLE_STOP_MS = 30_000;

/**
 * A row of zstd chunks streamed on one decode thread (wasm/streamed-row.ts): its bands are asked for in turn, each
 * buffer transferred there and back as a chunk's is; `close` ends a row left before its last band.
 */
export interface RowOnThread {
	band(buffer: ArrayBuffer, rows: number, last: boolean, scanNaT: boolean): Promise<Decoded>;
	close(): void;
}

/** One decode thread and the chunks sent to it that it has not answered. */
interface DecodeThread {
	readonly worker: Worker;
	readonly pending: Map<number, Task>;
	/**
	 * Whether a chunk may be sent to it: it was started with the compiled decoders, compiles them itself (a chunk
	 * then waits in its queue), or has been sent them. A thread started to wait for another's module is not ready
	 * until then: a chunk sent before the module would reach it before its decoders exist.
	 */
	ready: boolean;
}

/**
 * Decode threads (worker_threads) for zstd, lz4 and blosc: the main thread only sends encoded bytes and receives
 * output buffers, so decoding runs on every core while the main thread converts and writes. A chunk goes to the
 * thread with the fewest chunks in flight; a thread is started when one is needed, up to `size`.
 *
 * One thread compiles the decoders and every other thread is given its module (V8 then shares the compiled code,
 * and its optimized tier once one thread has run it enough): a thread started before the module exists waits for
 * it, so that warm() starts every thread at once and none compiles again. Until the module exists, the compiling
 * thread takes one chunk and the others wait here, to go to whichever thread is free once it does (in the
 * compiling thread's queue they would be decoded one after the other).
 *
 * Idle threads are unref'd: a pool never keeps its process alive, and an embedding program need not close it.
 * A thread that fails outside a decode (a crash, an uncaught error, an exit) fails every chunk it held with an
 * error naming the codec, and is replaced by the next chunk that needs a thread; nothing waits on it forever.
 */
export class DecoderPool {
	readonly #threads: DecodeThread[] = [];
	/** Chunks no thread can take yet (see #pick), oldest first. */
	readonly #waiting: Waiting[] = [];
	#nextId = 0;
	#nextRow = 0;
	/** The decoders as the first thread compiled them: later threads are started with them. */
	#compiled: object | undefined;
	/** Resolved once a chunk has been sent to a thread (see chunkSent). */
	#markSent: () => void = () => undefined;
	readonly #firstSent = new Promise<void>((resolve) => {
		this.#markSent = resolve;
	});

	/** Rows streaming on a thread (streamRow) not yet ended: their threads hold their state between bands. */
	#rowsOpen = 0;
	/** Stops the threads once they have all been idle for `idleStopMs` (see IDLE_STOP_MS). */
	#idleTimer: NodeJS.Timeout | undefined;

	/** `workerUrl`: the thread's module (decode-worker.js, or a test's); `idleStopMs`: see IDLE_STOP_MS. */
	constructor(
		readonly size: number,
		private readonly workerUrl: URL,
		private readonly idleStopMs = IDLE_STOP_MS,
	) {}

	/** Whether no thread holds a chunk or a row, and no chunk waits for one. */
	#idle(): boolean {
		return this.#waiting.length === 0 && this.#rowsOpen === 0 && this.#threads.every((thread) => thread.pending.size === 0);
	}

	/** Once every thread is idle, stops them all after idleStopMs unless work comes first (#busy). */
	#stopWhenIdle(): void {
		if (this.#idleTimer !== undefined || this.#threads.length === 0 || !this.#idle()) return;
		this.#idleTimer = setTimeout(() => {
			this.#idleTimer = undefined;
			if (!this.#idle()) return;
			// The compiled decoders stay: threads started for the next chunk are given them.
			for (const thread of this.#threads.splice(0)) void thread.worker.terminate();
		}, this.idleStopMs);
		this.#idleTimer.unref();
	}

	/** Work came: the idle threads are not stopped. */
	#busy(): void {
		clearTimeout(this.#idleTimer);
		this.#idleTimer = undefined;
	}

	/**
	 * Decodes the first `inputLength` bytes of `buffer` into its first bytes, up to `capacity` (at most its size).
	 * The buffer is transferred to the thread and back (do not use it meanwhile): the answer holds the one to use
	 * afterwards. With `target`, the decoded bytes go there instead (`capacity` bytes of a shared buffer from its
	 * offset, written by the thread where they are) and the answer's buffer holds the encoded bytes as sent; without
	 * `buffer` too, the encoded bytes are the first `inputLength` of that region, decoded where they are (the answer
	 * has no buffer then).
	 */
	decode(codec: WasmCodec, buffer: ArrayBuffer | undefined, inputLength: number, capacity: number, scanNaT = false, signal?: AbortSignal, target?: SharedTarget): Promise<Decoded> {
		return new Promise<Decoded>((resolve, reject) => {
			if (signal?.aborted === true) {
				reject(abortError(signal));
				return;
			}
			const into = target === undefined ? {} : { target: target.buffer, targetOffset: target.offset };
			const waiting: Waiting = { codec, buffer, inputLength, capacity, scanNaT, ...into, resolve, reject, signal };
			this.#waiting.push(waiting);
			this.#dispatch();
			// Not sent: it waits for a thread, until the export is aborted.
			if (signal !== undefined && this.#waiting.includes(waiting)) this.#watch(signal);
		});
	}

	/**
	 * Listens once to an export's signal however many of its chunks wait (a listener per chunk made Node warn of a
	 * possible leak past 10, at --concurrency 16 or over HTTP's 32: trial 25, finding 12); #unwatch when one is sent.
	 */
	#watch(signal: AbortSignal): void {
		let watched = this.#watched.get(signal);
		if (watched === undefined) {
			watched = { stop: onAbort(signal, () => this.#dropAll(signal)), waiting: 0 };
			this.#watched.set(signal, watched);
		}
		watched.waiting++;
	}

	#unwatch(signal: AbortSignal | undefined): void {
		const watched = signal === undefined ? undefined : this.#watched.get(signal);
		if (watched === undefined || --watched.waiting > 0) return;
		watched.stop();
		this.#watched.delete(signal!);
	}

	/** The export's signals chunks wait under, each with its one listener. */
	readonly #watched = new Map<AbortSignal, Watched>();

	/** Takes the waiting chunks of an aborted export out, never sent. */
	#dropAll(signal: AbortSignal): void {
		this.#watched.delete(signal);
		const dropped: Waiting[] = [];
		for (let at = this.#waiting.length - 1; at >= 0; at--) {
			if (this.#waiting[at].signal === signal) dropped.unshift(...this.#waiting.splice(at, 1));
		}
		for (const waiting of dropped) waiting.reject(abortError(signal));
	}

	/** Sends the waiting chunks to the threads that can take them, starting threads as #pick says. */
	#dispatch(): void {
		while (this.#waiting.length > 0) {
			const thread = this.#pick();
			if (thread === undefined) return;
			const { resolve, reject, signal, ...unsent } = this.#waiting.shift()!;
			this.#busy();
			this.#unwatch(signal);
			const id = this.#nextId++;
			// Referenced while it holds a chunk: the process waits for the answer. A chunk waiting here always has a
			// thread holding one (the compiling thread), which keeps the process alive for it too.
			if (thread.pending.size === 0) thread.worker.ref();
			thread.pending.set(id, { codec: unsent.codec, resolve, reject });
			const request: DecodeRequest = { id, ...unsent };
			thread.worker.postMessage(request, request.buffer === undefined ? [] : [request.buffer]);
			this.#markSent();
		}
	}

	/**
	 * Streams a row of zstd chunks on one thread, all its bands there (its streams' state is that thread's): the ready
	 * thread with the fewest chunks in flight, or a new one when it holds some and fewer than `size` run. Its bands
	 * count among that thread's chunks in flight, and fail as they do when the thread fails.
	 */
	streamRow(spec: StreamedRowSpec): RowOnThread {
		let best: DecodeThread | undefined;
		for (const thread of this.#threads) if (thread.ready && (best === undefined || thread.pending.size < best.pending.size)) best = thread;
		const start = best === undefined || (best.pending.size > 0 && this.#threads.length < this.size && this.#compiled !== undefined);
		const thread = start ? this.#start() : best!;
		const row = this.#nextRow++;
		const send = (message: StreamMessage, transfer: ArrayBuffer[] = []) => thread.worker.postMessage(message, transfer);
		send({ stream: "open", row, spec });
		this.#markSent();
		this.#busy();
		this.#rowsOpen++;
		let ended = false;
		const end = () => {
			if (ended) return;
			ended = true;
			this.#rowsOpen--;
			this.#stopWhenIdle();
		};
		return {
			band: (buffer, rows, last, scanNaT) =>
				new Promise<Decoded>((resolve, reject) => {
					if (ended || !this.#threads.includes(thread)) {
						reject(threadFailure("zstd", new Error(ended ? "the streamed row has ended" : "the thread streaming the row has stopped")));
						return;
					}
					const id = this.#nextId++;
					if (thread.pending.size === 0) thread.worker.ref();
					thread.pending.set(id, { codec: "zstd", resolve, reject });
					send({ stream: "band", id, row, buffer, rows, last, scanNaT }, [buffer]);
					if (last) end();
				}),
			close: () => {
				if (!ended && this.#threads.includes(thread)) send({ stream: "close", row });
				end();
			},
		};
	}

	/**
	 * Starts the threads before any chunk needs them: a thread takes a twentieth of a second or more to start (its
	 * isolate, its module), which then overlaps whatever precedes the first decode. All start now, on the cores
	 * there are: one compiles the decoders, and the others are sent its module as soon as it has.
	 */
	warm(): void {
		this.#busy();
		while (this.#threads.length < this.size) this.#start();
	}

	/** Resolves once a chunk has been sent to a thread: at once if one has. */
	get chunkSent(): Promise<void> {
		return this.#firstSent;
	}

	/** How many threads run now. */
	get running(): number {
		return this.#threads.length;
	}

	/** Stops every thread; chunks in flight or waiting fail. */
	async close(): Promise<void> {
		this.#busy();
		for (const task of this.#waiting.splice(0)) {
			this.#unwatch(task.signal);
			task.reject(new Error("the decoder pool was closed"));
		}
		const threads = this.#threads.splice(0);
		await Promise.all(threads.map((thread) => this.#fail(thread, new Error("the decoder pool was closed"))));
	}

	/**
	 * The thread for the next chunk: the ready thread with the fewest chunks, or a new thread while fewer than `size`
	 * run and each holds one; undefined while the chunk must wait, which is while the decoders are being compiled
	 * and the compiling thread already holds a chunk, and while every thread holds CHUNKS_PER_THREAD.
	 */
	#pick(): DecodeThread | undefined {
		let best: DecodeThread | undefined;
		for (const thread of this.#threads) if (thread.ready && (best === undefined || thread.pending.size < best.pending.size)) best = thread;
		if (this.#compiled === undefined) {
			if (best === undefined) return this.#start();
			return best.pending.size === 0 ? best : undefined;
		}
		if (best !== undefined && best.pending.size === 0) return best;
		if (this.#threads.length < this.size) return this.#start();
		return best !== undefined && best.pending.size < CHUNKS_PER_THREAD ? best : undefined;
	}

	#start(): DecodeThread {
		// Without the module and with a thread already compiling it, the new thread waits for it (see #send).
		const awaitModule = this.#compiled === undefined && this.#threads.length > 0;
		// No options of the host's command line: a thread inherits them (`--input-type=module` breaks it).
		const workerData: DecodeThreadData = { module: this.#compiled, awaitModule };
		const thread: DecodeThread = { worker: new Worker(this.workerUrl, { execArgv: [], workerData }), pending: new Map(), ready: !awaitModule };
		thread.worker.on("message", (answer: DecodeAnswer | CompiledAnswer) => {
			if ("compiled" in answer) {
				this.#compiled ??= answer.compiled;
				for (const waiting of this.#threads) if (!waiting.ready) this.#send(waiting, this.#compiled);
				this.#dispatch();
				return;
			}
			const task = thread.pending.get(answer.id);
			if (task === undefined) return;
			thread.pending.delete(answer.id);
			if (thread.pending.size === 0) thread.worker.unref();
			if ("error" in answer) task.reject(new Dt64ExportError(answer.code, answer.error, answer.fields));
			else task.resolve({ buffer: answer.buffer, length: answer.length, natPositions: answer.natPositions ?? null });
			// Its place is free: the next chunk waiting goes (see CHUNKS_PER_THREAD).
			this.#dispatch();
			this.#stopWhenIdle();
		});
		thread.worker.on("error", (error) => void this.#fail(thread, error));
		thread.worker.on("exit", (code) => void this.#fail(thread, new Error(`exited with code ${code}`)));
		// After the listeners: adding a "message" listener refs the worker again (Node 20), and a thread started by
		// warm() that never gets a chunk would then keep the process alive (inspect never exited).
		thread.worker.unref();
		this.#threads.push(thread);
		return thread;
	}

	/** Gives a waiting thread the compiled decoders: every chunk sent to it from now on comes after them. */
	#send(thread: DecodeThread, module: object): void {
		const gift: ModuleGift = { module };
		thread.worker.postMessage(gift);
		thread.ready = true;
	}

	/** Takes a thread out of the pool, fails what it held, and stops it where it still runs. */
	async #fail(thread: DecodeThread, error: Error): Promise<void> {
		const at = this.#threads.indexOf(thread);
		if (at !== -1) this.#threads.splice(at, 1);
		// The thread that was to compile the decoders failed first: the threads waiting for its module would wait
		// forever. They hold no chunk; the next chunk starts a thread that compiles again.
		if (this.#compiled === undefined && !this.#threads.some((other) => other.ready)) {
			for (const waiting of this.#threads.splice(0)) void waiting.worker.terminate();
		}
		for (const task of thread.pending.values()) task.reject(threadFailure(task.codec, error));
		thread.pending.clear();
		// Chunks waiting for the module it was to compile go to a thread started anew.
		this.#dispatch();
		await thread.worker.terminate();
	}
}
