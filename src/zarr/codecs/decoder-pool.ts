import { Worker } from "node:worker_threads";
import { Dt64ExportError } from "../../errors.js";
import type { DecodeAnswer, DecodeRequest } from "./decode-worker.js";
import type { WasmCodec } from "./wasm/decoder-module.js";

/** A decoded chunk: the first `length` bytes of `buffer`, as handed back by the thread. */
export interface Decoded {
	readonly buffer: ArrayBuffer;
	readonly length: number;
}

interface Task {
	readonly codec: WasmCodec;
	resolve(decoded: Decoded): void;
	reject(error: Error): void;
}

/** One decode thread and the chunks sent to it that it has not answered. */
interface DecodeThread {
	readonly worker: Worker;
	readonly pending: Map<number, Task>;
}

/**
 * Decode threads (worker_threads) for zstd, lz4 and blosc: the main thread only sends encoded bytes and receives
 * output buffers, so decoding runs on every core while the main thread converts and writes. A chunk goes to the
 * thread with the fewest chunks in flight; a thread is started when one is needed, up to `size`.
 *
 * Idle threads are unref'd: a pool never keeps its process alive, and an embedding program need not close it.
 * A thread that fails outside a decode (a crash, an uncaught error, an exit) fails every chunk it held with an
 * error naming the codec, and is replaced by the next chunk that needs a thread; nothing waits on it forever.
 */
export class DecoderPool {
	readonly #threads: DecodeThread[] = [];
	#nextId = 0;

	/** `workerUrl`: the thread's module (decode-worker.js, or a test's). */
	constructor(
		readonly size: number,
		private readonly workerUrl: URL,
	) {}

	/**
	 * Decodes the first `inputLength` bytes of `buffer` into its first bytes, up to `capacity` (at most its size).
	 * The buffer is transferred to the thread and back (do not use it meanwhile): the answer holds the one to use
	 * afterwards.
	 */
	decode(codec: WasmCodec, buffer: ArrayBuffer, inputLength: number, capacity: number): Promise<Decoded> {
		const thread = this.#pick();
		const id = this.#nextId++;
		return new Promise<Decoded>((resolve, reject) => {
			if (thread.pending.size === 0) thread.worker.ref();
			thread.pending.set(id, { codec, resolve, reject });
			const request: DecodeRequest = { id, codec, buffer, inputLength, capacity };
			thread.worker.postMessage(request, [buffer]);
		});
	}

	/**
	 * Starts the threads not yet started, before any chunk needs them: a thread takes a tenth of a second or more to
	 * start (its isolate, its module, the WebAssembly), which then overlaps whatever precedes the first decode.
	 */
	warm(): void {
		while (this.#threads.length < this.size) this.#start();
	}

	/** Stops every thread; chunks in flight fail. */
	async close(): Promise<void> {
		const threads = this.#threads.splice(0);
		await Promise.all(threads.map((thread) => this.#fail(thread, new Error("the decoder pool was closed"))));
	}

	#pick(): DecodeThread {
		let best: DecodeThread | undefined;
		for (const thread of this.#threads) if (best === undefined || thread.pending.size < best.pending.size) best = thread;
		if (best !== undefined && (best.pending.size === 0 || this.#threads.length >= this.size)) return best;
		return this.#start();
	}

	#start(): DecodeThread {
		// No options of the host's command line: a thread inherits them (`--input-type=module` breaks it).
		const thread: DecodeThread = { worker: new Worker(this.workerUrl, { execArgv: [] }), pending: new Map() };
		thread.worker.on("message", (answer: DecodeAnswer) => {
			const task = thread.pending.get(answer.id);
			if (task === undefined) return;
			thread.pending.delete(answer.id);
			if (thread.pending.size === 0) thread.worker.unref();
			if ("error" in answer) task.reject(new Dt64ExportError(answer.code, answer.error));
			else task.resolve({ buffer: answer.buffer, length: answer.length });
		});
		thread.worker.on("error", (error) => void this.#fail(thread, error));
		thread.worker.on("exit", (code) => void this.#fail(thread, new Error(`exited with code ${code}`)));
		// After the listeners: adding a "message" listener refs the worker again (Node 20), and a thread started by
		// warm() that never gets a chunk would then keep the process alive (inspect never exited).
		thread.worker.unref();
		this.#threads.push(thread);
		return thread;
	}

	/** Takes a thread out of the pool, fails what it held, and stops it where it still runs. */
	async #fail(thread: DecodeThread, error: Error): Promise<void> {
		const at = this.#threads.indexOf(thread);
		if (at !== -1) this.#threads.splice(at, 1);
		for (const task of thread.pending.values()) {
			task.reject(new Dt64ExportError("INTERNAL", `${task.codec}: the decode thread failed (${error.message.replace(/\s+/g, " ")})`));
		}
		thread.pending.clear();
		await thread.worker.terminate();
	}
}
