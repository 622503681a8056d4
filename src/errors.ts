/**
 * Every failure the tool reports on purpose is a `Dt64ExportError`: its message is one line meant for a user,
 * and `kind` decides the exit code (usage errors exit 2, everything else 1).
 */
export type ErrorKind = "usage" | "data" | "io";

export class Dt64ExportError extends Error {
	readonly kind: ErrorKind;

	constructor(message: string, options: { kind?: ErrorKind; cause?: unknown } = {}) {
		super(message, options.cause === undefined ? undefined : { cause: options.cause });
		this.name = "Dt64ExportError";
		this.kind = options.kind ?? "data";
	}
}

export class UsageError extends Dt64ExportError {
	constructor(message: string) {
		super(message, { kind: "usage" });
		this.name = "UsageError";
	}
}

export function isDt64ExportError(error: unknown): error is Dt64ExportError {
	return error instanceof Dt64ExportError;
}

/**
 * A Node system error's reason without the suffix libuv appends (`, write`, `, open '/the/path'`): callers say
 * which file or stream failed in their own words, once.
 */
export function systemErrorReason(error: Error): string {
	const { syscall, path, dest } = error as NodeJS.ErrnoException & { dest?: string };
	if (syscall === undefined) return error.message;
	const suffix = `, ${syscall}${path === undefined ? "" : ` '${path}'`}${dest === undefined ? "" : ` -> '${dest}'`}`;
	return error.message.endsWith(suffix) ? error.message.slice(0, -suffix.length) : error.message;
}

/** A failed write, naming its target (`stdout`, or a file) and the reason. */
export function writeFailure(target: string, error: Error): Dt64ExportError {
	return new Dt64ExportError(`cannot write to ${target}: ${systemErrorReason(error)}`, { kind: "io", cause: error });
}
