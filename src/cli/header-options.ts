/**
 * Request headers from where a secret may live: `--header @file` (one `Name: value` per line), besides
 * `--header 'Name: value'` itself, which shows in `ps` and shell history (DT64_EXPORT_HEADER, one header per line,
 * is the other way; see src/cli/environment.ts). Messages name the file and line, never a value.
 */
import * as fs from "node:fs";
import { UsageError } from "../errors.js";
import { HEADER_NAME, HEADER_VALUE } from "../store/request-headers.js";

/** Parses a `--header 'Name: value'` option. The message never repeats the input: it may be a secret. */
export function parseHeaderOption(value: string): [string, string] {
	const colon = value.indexOf(":");
	if (colon === -1) {
		throw new UsageError(`invalid --header: expected "Name: value" (no ":" found)`, { option: "header" });
	}
	const name = value.slice(0, colon).trim();
	const headerValue = value.slice(colon + 1).trim();
	if (name === "") {
		throw new UsageError(`invalid --header: expected "Name: value" (the name before ":" is empty)`, { option: "header" });
	}
	if (!HEADER_NAME.test(name)) {
		throw new UsageError(`invalid --header: the name before ":" is not a valid HTTP header name`, { option: "header" });
	}
	if (headerValue === "") {
		throw new UsageError(`invalid --header ${JSON.stringify(name)}: the value is empty`, { option: "header" });
	}
	if (/[\r\n\0]/.test(headerValue)) {
		throw new UsageError(`invalid --header ${JSON.stringify(name)}: the value contains a line break or NUL`, { option: "header" });
	}
	// Any other control character (or one past Latin-1) would fail every request, retried as if the network failed.
	if (!HEADER_VALUE.test(headerValue)) {
		throw new UsageError(`invalid --header ${JSON.stringify(name)}: the value contains a control character or one outside Latin-1 (tab, printable ASCII and Latin-1 only)`, { option: "header" });
	}
	return [name, headerValue];
}

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

/** The headers of each `--header` value in order (`@file` or `Name: value`); a later one replaces an earlier one of the same name. */
export function collectHeaders(values: readonly string[]): Record<string, string> {
	const headers = new Map<string, [string, string]>();
	for (const value of values) {
		const pairs = value.startsWith("@") ? parseHeaderLines(readHeaderFile(value.slice(1)), `--header @${value.slice(1)}`) : [parseHeaderOption(value)];
		for (const [name, headerValue] of pairs) headers.set(name.toLowerCase(), [name, headerValue]);
	}
	return Object.fromEntries(headers.values());
}
