/**
 * The CLI's export path without the process around it: open, build the stages, pipe them into an
 * AtomicFileWriter. Tests that need thousands of runs (fuzzing, bad-input tables) call this instead of spawning
 * the CLI (~0.7 s of start-up each); a sample of the same inputs still goes through the real CLI.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { Dt64ExportError } from "../../src/errors.js";
import { createTableExportStages } from "../../src/export.js";
import type { OutputFormat } from "../../src/export-plan.js";
import { openTimeArray } from "../../src/open-array.js";
import { tableOfTimeArray } from "../../src/open-table.js";
import { AtomicFileWriter } from "../../src/output/atomic-file.js";

export type Outcome = { ok: true } | { ok: false; error: unknown };

export async function exportInProcess(store: string, target: string, options: { format?: OutputFormat; array?: string } = {}): Promise<Outcome> {
	try {
		const array = await openTimeArray(store, { array: options.array });
		const stages = createTableExportStages(tableOfTimeArray(array), { format: options.format ?? "arrow", concurrency: 2 });
		await pipeline(stages.reader, stages.batcher, stages.writer, new AtomicFileWriter(target));
		return { ok: true };
	} catch (error) {
		return { ok: false, error };
	}
}

/**
 * Why an error breaks the contract (a Dt64ExportError with a one-line message), or undefined when it keeps it.
 * Anything else reaching the top (TypeError, RangeError, a zarrita or wasm error) is a bug: the CLI would print
 * it without saying where, or with a stack trace.
 */
export function contractViolation(error: unknown): string | undefined {
	if (!(error instanceof Dt64ExportError)) {
		const name = (error as Error)?.constructor?.name ?? typeof error;
		return `${name} instead of Dt64ExportError: ${(error as Error)?.stack ?? String(error)}`;
	}
	if (error.message.trim() === "") return "empty message";
	if (/[\r\n]/.test(error.message)) return `multi-line message: ${JSON.stringify(error.message)}`;
	return undefined;
}

/** Files in a folder that look like AtomicFileWriter temporaries (`.<name>.<pid>.<hex>.tmp`). */
export function tempFilesIn(folder: string): string[] {
	return fs.readdirSync(folder).filter((name) => /^\..*\.tmp$/.test(name)).map((name) => path.join(folder, name));
}
