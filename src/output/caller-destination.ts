/**
 * The Writable a caller hands an export (exportTable, exportSelection): how its failures are told apart from the
 * export's own, and how it is held from the moment the export is called.
 */
import type { Writable } from "node:stream";
import { onAbort } from "../abort.js";
import { Dt64ExportError, isDt64ExportError, oneLine, systemErrorReason, UsageError } from "../errors.js";

/** Node's errors for a stream that was closed or destroyed under a pipeline. */
const CLOSED_STREAM_CODES = new Set(["ERR_STREAM_DESTROYED", "ERR_STREAM_PREMATURE_CLOSE", "ERR_STREAM_WRITE_AFTER_END"]);

/**
 * Refuses a destination that cannot take an export: one that failed already (a file stream that could not open its
 * path), or that was ended or destroyed before the export started (a pipeline into an ended stream never settles).
 */
export function checkDestinationOpen(destination: Writable): void {
	if (destination.errored !== null && destination.errored !== undefined) throw destinationFailure(destination.errored, true);
	if (destination.destroyed || destination.writableEnded) {
		throw new Dt64ExportError("WRITE_FAILED", `cannot write to the output stream: it was ${destination.destroyed ? "destroyed" : "ended"} before the export started`);
	}
}

/**
 * A failure of the destination (its own error, `fromDestination`, or Node's for a stream destroyed or ended under the
 * export) as a WRITE_FAILED Dt64ExportError, the error kept as its cause; the export's own errors as they are.
 */
export function destinationFailure(error: unknown, fromDestination: boolean): unknown {
	if (isDt64ExportError(error) || !(error instanceof Error)) return error;
	const closed = CLOSED_STREAM_CODES.has((error as NodeJS.ErrnoException).code ?? "");
	if (!fromDestination && !closed) return error;
	const reason = closed ? "it was closed before the export finished" : oneLine(systemErrorReason(error));
	return new Dt64ExportError("WRITE_FAILED", `cannot write to the output stream: ${reason}`, { cause: error });
}

/** The caller's destination as an export holds it: the signal its opening runs under, and the hand-over to the stages. */
export interface HeldDestination {
	/**
	 * The signal the export runs under: the caller's `signal` (an abort of it is forwarded, reason and all), and the
	 * destination's own failure while it is held (before the stages take it), which aborts the opening at once.
	 */
	readonly signal: AbortSignal | undefined;
	/** The destination, handed to the stages: from now on its failures are theirs to report (runStages). */
	take(): Writable;
}

/**
 * Runs an export into the caller's `destination`, held from the call on:
 * - its errors are listened to at once: one emitted (or a `destroy(error)`, or a `destroy()`) while the store is
 *   opened, before the stages are piped to it, aborts the opening (the requests in flight cancelled, nothing read or
 *   written after it) and rejects the call as WRITE_FAILED, its error the cause. Without the listener an emitted
 *   error would end the process; with one that only recorded it, a stream that reported its failure by emitting
 *   `error` without being destroyed was written to in full and the call resolved;
 * - an export that fails before its stages run destroys it, as a pipeline destroys its streams when it fails (a file
 *   stream's descriptor is closed).
 * The listener stays: an error the destination emits after a failure is the export's doing, never the process's end.
 */
export async function intoCallerDestination<T>(destination: Writable, options: { readonly signal?: unknown }, run: (held: HeldDestination) => Promise<T>): Promise<T> {
	if ((options as { overwrite?: unknown }).overwrite !== undefined) {
		throw new UsageError("overwrite applies to the exports that write a path (exportToFile, exportDataset): this one writes to the stream it is given", { option: "overwrite" });
	}
	const callerSignal = options.signal;
	const holding = new AbortController();
	let taken = false;
	let broken: Dt64ExportError | undefined;
	const release = (failure: Dt64ExportError) => {
		if (taken || broken !== undefined || holding.signal.aborted) return;
		broken = failure;
		holding.abort(failure);
	};
	const onError = (error: unknown) => {
		const failure = destinationFailure(error, true);
		if (isDt64ExportError(failure)) release(failure);
	};
	const onClose = () => release(new Dt64ExportError("WRITE_FAILED", "cannot write to the output stream: it was destroyed before the export started"));
	let stopForwarding = (): void => undefined;
	destination.on("error", onError);
	destination.on("close", onClose);
	// An invalid signal is passed on as it is, for the plan to refuse (USAGE).
	const valid = callerSignal instanceof AbortSignal;
	if (valid) {
		// Through the signal's one listener (onAbort): a service's signal shared by its exports warned past ten.
		stopForwarding = onAbort(callerSignal, () => holding.abort(callerSignal.reason));
	}
	const held: HeldDestination = {
		signal: callerSignal === undefined || valid ? holding.signal : (callerSignal as AbortSignal),
		take: () => {
			taken = true;
			return destination;
		},
	};
	let failed = false;
	try {
		const result = await run(held);
		if (broken !== undefined) throw broken;
		return result;
	} catch (error) {
		failed = true;
		if (!destination.destroyed) destination.destroy();
		// The destination failed while it was held: the opening was aborted for it (whatever the abort made of it).
		if (broken !== undefined) throw broken;
		throw error;
	} finally {
		stopForwarding();
		destination.off("close", onClose);
		if (!failed) destination.off("error", onError);
	}
}
