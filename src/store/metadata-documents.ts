/**
 * The metadata documents (zarr.json, .zarray, .zattrs, .zgroup, .zmetadata) of one opened store, each read once:
 * finding a group's arrays, then opening the ones an export names, then their dimensions' coordinates, read the
 * same documents again, and over an object store each read is a request that waits 30-100 ms. One instance per
 * opened store, so per export (openStore is called once by each): nothing is shared between exports, and the
 * documents go when the export's opening ends (`release`), not with the table that keeps the store.
 *
 * It also bounds the reads in flight: a group of 500 arrays is read a few at a time, in the order asked for.
 */
import { onAbort, throwIfAborted } from "../abort.js";
import { isRefusedKey } from "./refused-key.js";
import type { AbsolutePath, AsyncReadable } from "./readable.js";
import type { ValueBound } from "./value-bound.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import { Dt64ExportError } from "../errors.js";

/** Metadata reads in flight at once: requests wait on latency, and a bucket throttles a client that sends hundreds. */
export const METADATA_READS_IN_FLIGHT = 16;

const decoder = new TextDecoder();

/**
 * The largest metadata document read (zarr.json, .zarray, .zattrs, .zgroup, .zmetadata): a consolidated `.zmetadata`
 * of 200,000 arrays is some 60 MB; a document past this is refused before it is read where its size is known first
 * (a file, a zip entry), so that a store cannot make the process hold gigabytes of text (V8 cannot hold a string of
 * more than 512 MiB anyway). A limit of this tool: it cannot be raised.
 */
export const MAX_METADATA_BYTES = 256 * 2 ** 20;
const METADATA_BOUND: ValueBound = { bytes: MAX_METADATA_BYTES, code: "TOO_LARGE", why: `over the ${MAX_METADATA_BYTES / 2 ** 20} MiB a metadata document may hold (a limit of this tool)` };

export class MetadataDocuments {
	readonly #store: AsyncReadable;
	readonly #pool: BufferPool | undefined;
	/** Each key's text (undefined: absent), or the refusal it met (a 403 that may be a missing key). */
	#texts = new Map<AbsolutePath, Promise<string | undefined>>();
	/**
	 * Keys read ahead that no `read` has asked for yet (their outcome, a failure too, waits for the first), each with
	 * what cancels it: a probe the opening did not need is cancelled when it ends, not left to its retries.
	 */
	#ahead = new Map<AbsolutePath, AbortController>();
	#inFlight = 0;
	/** Reads waiting for their turn, first asked first served. */
	readonly #waiting: (() => void)[] = [];

	/** The signal the store was opened under (OpenStoreOptions.signal): every read goes with it. */
	readonly #signal: AbortSignal | undefined;

	/** The reads ahead in flight, asked for or not: the opening's abort cancels them with the others. */
	readonly #readingAhead = new Set<AbortController>();

	/**
	 * `pool`: the store reads a whole file into its buffers (a folder's DirectoryStore), each document's then handed
	 * back once decoded to text; it was never handed back (one buffer per document of an export with a pool).
	 */
	constructor(store: AsyncReadable, signal?: AbortSignal, pool?: BufferPool) {
		this.#store = store;
		this.#signal = signal;
		this.#pool = pool;
	}

	/**
	 * Cancels the reads ahead in flight. One listener for all of them (a listener each would pass Node's limit of 10 on
	 * the caller's signal), on the signal only while some are in flight: an embedder's signal shared by many exports
	 * would otherwise keep one per export opened under it, and each export's store and buffers with it (trial 33).
	 */
	readonly #cancelReadsAhead = (): void => {
		for (const cancel of this.#readingAhead) cancel.abort(this.#signal?.reason);
	};

	/** Stops listening to the caller's signal (onAbort), while no read ahead is in flight. */
	#stopListening: (() => void) | undefined;

	#readAheadStarted(ahead: AbortController): void {
		if (this.#readingAhead.size === 0 && this.#signal !== undefined) this.#stopListening = onAbort(this.#signal, this.#cancelReadsAhead);
		this.#readingAhead.add(ahead);
	}

	#readAheadEnded(ahead: AbortController): void {
		if (!this.#readingAhead.delete(ahead) || this.#readingAhead.size > 0) return;
		this.#stopListening?.();
		this.#stopListening = undefined;
	}

	/** The text of `key`, undefined when the store does not hold it; read at most once while it is kept. */
	read(key: AbsolutePath): Promise<string | undefined> {
		const kept = this.#texts.get(key);
		if (kept === undefined) return this.#start(key, undefined);
		if (this.#ahead.delete(key)) this.#forgetIfFailed(key, kept);
		return kept;
	}

	/**
	 * Starts reading `keys` now, all at once (in turn), for reads that will ask for them in their own order: the probes
	 * of a node's layout, the documents of the arrays a table opens. Nothing is reported here; each outcome, a failure
	 * included, is kept for the first `read` of its key, so that the reader that asks first meets the error it would
	 * have met reading alone (not a second attempt). A key never asked for costs its request and nothing else.
	 */
	readAhead(keys: Iterable<AbsolutePath>): void {
		for (const key of keys) if (!this.#texts.has(key)) this.#start(key, new AbortController()).catch(() => undefined);
	}

	/**
	 * Forgets every document: the export's opening is over (reads after this read again). The reads ahead nobody asked
	 * for are cancelled: a probe retried after a 503 would otherwise hold the store's requests and the process.
	 */
	release(): void {
		for (const cancel of this.#ahead.values()) cancel.abort();
		this.#texts = new Map();
		this.#ahead = new Map();
	}

	#start(key: AbsolutePath, ahead: AbortController | undefined): Promise<string | undefined> {
		const read = this.#inTurn(() => {
			// A read that waited for its turn while the opening was aborted (or released, for a read ahead) is not started.
			throwIfAborted(this.#signal);
			if (ahead === undefined) return this.#store.get(key, { signal: this.#signal, bound: METADATA_BOUND });
			throwIfAborted(ahead.signal);
			this.#readAheadStarted(ahead);
			return this.#store.get(key, { signal: ahead.signal, bound: METADATA_BOUND }).finally(() => this.#readAheadEnded(ahead));
		}).then((bytes) => {
			if (bytes === undefined) return undefined;
			// A store that could not refuse it before reading (over HTTP): refused before it is decoded.
			if (bytes.length > METADATA_BOUND.bytes) throw new Dt64ExportError("TOO_LARGE", `${key.slice(1)}: ${bytes.length} bytes, ${METADATA_BOUND.why}`, { key: key.slice(1) });
			const text = decoder.decode(bytes);
			this.#pool?.release(bytes);
			return text;
		});
		this.#texts.set(key, read);
		if (ahead !== undefined) this.#ahead.set(key, ahead);
		else this.#forgetIfFailed(key, read);
		return read;
	}

	/** A failure other than a refusal may pass (a connection reset past its retries): whoever asks next reads again. */
	#forgetIfFailed(key: AbsolutePath, read: Promise<string | undefined>): void {
		const texts = this.#texts;
		read.catch((error: unknown) => {
			if (!isRefusedKey(error) && texts.get(key) === read) texts.delete(key);
		});
	}

	async #inTurn<T>(run: () => Promise<T>): Promise<T> {
		if (this.#inFlight >= METADATA_READS_IN_FLIGHT) await new Promise<void>((resolve) => this.#waiting.push(resolve));
		else this.#inFlight++;
		try {
			return await run();
		} finally {
			// The turn passes to the next waiting read as it is: the count in flight stays the same.
			const next = this.#waiting.shift();
			if (next === undefined) this.#inFlight--;
			else next();
		}
	}
}
