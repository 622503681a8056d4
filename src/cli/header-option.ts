import { UsageError } from "../errors.js";
import { HEADER_NAME } from "../store/http-store.js";

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
	return [name, headerValue];
}
