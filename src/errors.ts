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
