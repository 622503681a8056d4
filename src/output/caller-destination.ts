/**
 * The Writable a caller hands an export (exportTable, exportSelection): how its failures are told apart from the
 * export's own, and how it is held from the moment the export is called.
 */
import type { Writable } from "node:stream";
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

/**
 * Runs an export into the caller's `destination`, held from the call on:
 * - its errors are listened to at once: one emitted while the store is opened, before the stages are piped to it
 *   (a file stream that cannot open its path), would otherwise have no listener and end the process; the export
 *   then rejects with it, as WRITE_FAILED;
 * - an export that fails before its stages run destroys it, as a pipeline destroys its streams when it fails (a file
 *   stream's descriptor is closed).
 * The listener stays: an error the destination emits after a failure is the export's doing, never the process's end.
 */
export async function intoCallerDestination<T>(destination: Writable, options: object, run: () => Promise<T>): Promise<T> {
	if ((options as { overwrite?: unknown }).overwrite !== undefined) {
		throw new UsageError("overwrite applies to the exports that write a path (exportToFile, exportDataset): this one writes to the stream it is given", { option: "overwrite" });
	}
	let own: unknown;
	let failed = false;
	const onError = (error: unknown) => {
		own ??= error;
	};
	destination.on("error", onError);
	try {
		return await run();
	} catch (error) {
		failed = true;
		if (!destination.destroyed) destination.destroy();
		// The destination's own error, from before its stages ran: the export then failed on the stream it had broken.
		// (One the pipeline gave it is the same error as the export's, and a failure of its own while the stages ran
		// is WRITE_FAILED already: runStages.)
		if (own !== undefined && own !== error && !isDt64ExportError(error) && (error as Error)?.name !== "AbortError") throw destinationFailure(own, true);
		throw error;
	} finally {
		if (!failed) destination.off("error", onError);
	}
}
