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
