import { Dt64ExportError } from "../errors.js";

/**
 * Parses a metadata document; `where` names it in the message of a failure, which stays on one printable line, and
 * `document` (its store key) is the failure's `path`.
 */
export function parseJson(text: string, where: string, document?: string): unknown {
	const fields = document === undefined ? {} : { path: document };
	try {
		return JSON.parse(text);
	} catch (error) {
		// V8 quotes the text around the error, newlines and binary included: keep the message on one printable line.
		const reason = (error as Error).message.replace(/[\s\p{Cc}\uFFFD]+/gu, " ").trim();
		throw new Dt64ExportError("METADATA_INVALID", `${where}: not valid JSON (${reason})`, fields);
	}
}

/** Parses a metadata document that must be a JSON object (zarr.json, .zarray, .zgroup, .zattrs). */
export function parseJsonObject(text: string, where: string, document?: string): Record<string, unknown> {
	const json = parseJson(text, where, document);
	if (typeof json !== "object" || json === null || Array.isArray(json)) {
		throw new Dt64ExportError("METADATA_INVALID", `${where}: not a JSON object`, document === undefined ? {} : { path: document });
	}
	return json as Record<string, unknown>;
}
