/**
 * Request headers from where a secret may live: `--header @file` (one `Name: value` per line) and the
 * DT64_EXPORT_HEADERS environment variable (the same lines), besides `--header 'Name: value'` itself, which shows
 * in `ps` and shell history. Messages name the file and line, never a value.
 */
import * as fs from "node:fs";
import { UsageError } from "../errors.js";
import { parseHeaderOption } from "./http-store.js";

export const HEADERS_VARIABLE = "DT64_EXPORT_HEADERS";

/** `Name: value` lines; blank lines and lines starting with `#` are skipped. */
function parseHeaderLines(text: string, source: string): [string, string][] {
	const headers: [string, string][] = [];
	text.split(/\r?\n/).forEach((line, index) => {
		if (line.trim() === "" || line.trimStart().startsWith("#")) return;
		try {
			headers.push(parseHeaderOption(line));
		} catch (error) {
			// parseHeaderOption's words ("invalid --header: ...") with the place the line came from.
			throw new UsageError(`${source} line ${index + 1}: ${(error as Error).message.replace(/^invalid --header:?\s*/, "")}`);
		}
	});
	return headers;
}

function readHeaderFile(file: string): string {
	if (file === "") throw new UsageError("--header @: no file named after the @");
	try {
		return fs.readFileSync(file, "utf8");
	} catch (error) {
		throw new UsageError(`--header @${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
	}
}

/**
 * The headers of `DT64_EXPORT_HEADERS`, then of each `--header` value in order (`@file` or `Name: value`); a later
 * one replaces an earlier one of the same name.
 */
export function collectHeaders(values: readonly string[], env: NodeJS.ProcessEnv = process.env): Record<string, string> {
	const headers = new Map<string, [string, string]>();
	const add = (pairs: [string, string][]) => {
		for (const [name, value] of pairs) headers.set(name.toLowerCase(), [name, value]);
	};
	const fromEnv = env[HEADERS_VARIABLE];
	if (fromEnv !== undefined && fromEnv.trim() !== "") add(parseHeaderLines(fromEnv, HEADERS_VARIABLE));
	for (const value of values) {
		add(value.startsWith("@") ? parseHeaderLines(readHeaderFile(value.slice(1)), `--header @${value.slice(1)}`) : [parseHeaderOption(value)]);
	}
	return Object.fromEntries(headers.values());
}
