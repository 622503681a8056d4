/**
 * What an export with a `signal` rejects with once it is aborted: Node's AbortError, as `stream.pipeline` gives it
 * (name AbortError, code ABORT_ERR, the signal's reason as `cause`), whenever the abort comes: before the call, while
 * the store is opened or the time searched, or while the stages run. A caller tells a cancelled export from a failed
 * one by that error alone, never by the reason it chose (which may be any value, a string even).
 */
export function abortError(signal: AbortSignal): Error {
	const error = new Error("The operation was aborted", { cause: signal.reason });
	error.name = "AbortError";
	(error as NodeJS.ErrnoException).code = "ABORT_ERR";
	return error;
}

/** Whether the signal is aborted now (a call: the compiler does not carry an earlier check of `aborted` over an await). */
export function isAborted(signal: AbortSignal | undefined): boolean {
	return signal?.aborted === true;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted === true) throw abortError(signal);
}

/**
 * Runs an export under its signal: not at all if it is aborted already, and any error once it is aborted becomes
 * the AbortError (asAbortError), whatever step the abort interrupted (opening the store, the range search, the stages).
 */
export async function abortable<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
	try {
		throwIfAborted(signal);
		return await run();
	} catch (error) {
		throw asAbortError(error, signal);
	}
}

/** The error an export rejects with: any error once the signal is aborted (the abort caused it) becomes the AbortError. */
export function asAbortError(error: unknown, signal: AbortSignal | undefined): unknown {
	if (signal?.aborted !== true) return error;
	const already = error instanceof Error && error.name === "AbortError" && (error as NodeJS.ErrnoException).code === "ABORT_ERR" && error.cause === signal.reason;
	return already ? error : abortError(signal);
}

/** What runs when each signal aborts (onAbort): its one listener runs them all. */
const waitingOn = new WeakMap<AbortSignal, Set<() => void>>();

function runWaiting(event: Event): void {
	const signal = event.target as AbortSignal;
	const waiting = waitingOn.get(signal);
	waitingOn.delete(signal);
	for (const run of [...(waiting ?? [])]) run();
	waiting?.clear();
}

/**
 * Runs `run` when `signal` aborts (at once if it has), until the function returned is called. A signal gets one
 * listener of this package's however many exports, requests and chunks wait on it, and none once nothing does: a
 * listener each made Node warn of a leak past ten (MaxListenersExceededWarning: a service's one shutdown signal
 * shared by eleven exports at once, trial 33; a table's columns reading eight chunks each over HTTP, trial 25), and
 * raising the limit would change the caller's signal.
 */
export function onAbort(signal: AbortSignal, run: () => void): () => void {
	if (signal.aborted) {
		run();
		return () => undefined;
	}
	let waiting = waitingOn.get(signal);
	if (waiting === undefined) {
		waiting = new Set();
		waitingOn.set(signal, waiting);
		signal.addEventListener("abort", runWaiting, { once: true });
	}
	const entry = () => run();
	const registered = waiting;
	registered.add(entry);
	return () => {
		if (!registered.delete(entry) || registered.size > 0 || waitingOn.get(signal) !== registered) return;
		waitingOn.delete(signal);
		signal.removeEventListener("abort", runWaiting);
	};
}

/**
 * A signal of the export's own that follows `signal` through onAbort, for an API that listens to the signal it is
 * given (stream.pipeline adds a listener per call); `release` once that API is done with it.
 */
export function followingSignal(signal: AbortSignal): { readonly signal: AbortSignal; release(): void } {
	const own = new AbortController();
	const release = onAbort(signal, () => own.abort(signal.reason));
	return { signal: own.signal, release };
}
