import { Dt64ExportError } from "../errors.js";

/** Parses a metadata document; `where` names it in the message of a failure, which stays on one printable line. */
export function parseJson(text: string, where: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		// V8 quotes the text around the error, newlines and binary included: keep the message on one printable line.
		const reason = (error as Error).message.replace(/[\s\p{Cc}\uFFFD]+/gu, " ").trim();
		throw new Dt64ExportError("METADATA_INVALID", `${where}: not valid JSON (${reason})`);
	}
}

/** Parses a metadata document that must be a JSON object (zarr.json, .zarray, .zgroup, .zattrs). */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
	const json = parseJson(text, where);
	if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Dt64ExportError("METADATA_INVALID", `${where}: not a JSON object`);
	return json as Record<string, unknown>;
}
