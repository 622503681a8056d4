import { RecordBatch } from "apache-arrow";
import { Dt64ExportError } from "../errors.js";

/** The apache-arrow version dt64-export's writers encode with (its dependency, pinned). */
export const APACHE_ARROW_VERSION = "21.2.0";

/**
 * Refuses what a writer stage cannot encode: anything but a RecordBatch of dt64-export's own apache-arrow. apache-arrow's
 * writer skips any other value without a word (an IPC stream of no batches, not even a schema), and a batch made
 * by another copy of apache-arrow (an app on another version gets a copy of its own) is such a value, though it
 * looks like one.
 */
export function checkOwnRecordBatch(batch: unknown, stage: string): asserts batch is RecordBatch {
	if (batch instanceof RecordBatch) return;
	// A copy of apache-arrow since 21 marks its batches, and `instanceof` accepts them (Symbol.hasInstance); an older
	// copy's batch is told by its class name.
	if (kindOf(batch) === "RecordBatch") {
		throw new Dt64ExportError(
			"USAGE",
			`${stage}: a RecordBatch made by another copy of apache-arrow, which dt64-export's (${APACHE_ARROW_VERSION}) cannot encode; make batches with apache-arrow ${APACHE_ARROW_VERSION} (install that version, so that npm keeps one copy), or pass them as IPC bytes`,
		);
	}
	throw new Dt64ExportError("USAGE", `${stage} expects apache-arrow RecordBatch objects, got ${kindOf(batch)}`);
}

function kindOf(value: unknown): string {
	if (value === null) return "null";
	if (typeof value === "object") return value.constructor?.name ?? "object";
	return typeof value;
}
