import { Dt64ExportError } from "../../src/errors.js";

/** The Dt64ExportError that `run` throws (or its promise rejects with): a test fails on anything else. */
export function thrown(run: () => unknown): Dt64ExportError {
	try {
		run();
	} catch (error) {
		if (error instanceof Dt64ExportError) return error;
		throw error;
	}
	throw new Error("expected a Dt64ExportError, nothing was thrown");
}

/** The Dt64ExportError a promise rejects with. */
export async function rejection(promise: Promise<unknown>): Promise<Dt64ExportError> {
	try {
		await promise;
	} catch (error) {
		if (error instanceof Dt64ExportError) return error;
		throw error;
	}
	throw new Error("expected a Dt64ExportError, the promise resolved");
}
