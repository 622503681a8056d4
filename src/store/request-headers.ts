/**
 * The headers of an HTTP store's requests: the caller's own (`headers`, `--header`), checked once for every store
 * (a local export refuses what a remote one would), and each request's over them (its Range, or Accept-Encoding
 * identity for a whole object).
 */
import { UsageError } from "../errors.js";
import { rangeHeader, type ByteRequest } from "./byte-ranges.js";

/** An HTTP header name: RFC 9110's token characters. */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What a header value may hold, as Node's fetch sends it: tab, visible ASCII, space and the bytes 0x80-0xFF (RFC
 * 9110's field-vchar and obs-text). Any other character, a control character above all, fails every request.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

// Headers the store sets itself per request; a user value would corrupt range reads.
const RESERVED_HEADERS = new Set(["range", "host", "content-length"]);

/** The headers every request carries, checked. */
export function requestHeaders(given: Readonly<Record<string, string>>): Headers {
	const headers = new Headers();
	for (const [name, value] of Object.entries(given)) {
		if (!HEADER_NAME.test(name)) {
			throw new UsageError(`invalid header name ${JSON.stringify(name)}`, { option: "headers" });
		}
		if (RESERVED_HEADERS.has(name.toLowerCase())) {
			throw new UsageError(`header ${JSON.stringify(name)} cannot be set: the store sets it per request`, { option: "headers" });
		}
		if (typeof value !== "string" || !HEADER_VALUE.test(value)) {
			throw new UsageError(`invalid value for header ${JSON.stringify(name)}: expected text without control characters (tab, printable ASCII and Latin-1)`, { option: "headers" });
		}
		try {
			headers.set(name, value);
		} catch {
			throw new UsageError(`invalid value for header ${JSON.stringify(name)}`, { option: "headers" });
		}
	}
	return headers;
}

/**
 * The store's own headers of a request (Range, Accept-Encoding) over `base`: the user's headers, or none for a
 * request redirected to another origin.
 */
export function headersOfRequest(request: ByteRequest, base: Headers | undefined): Headers {
	const headers = new Headers(base);
	const range = rangeHeader(request);
	if (range !== undefined) {
		headers.set("Range", range);
	} else if (!headers.has("accept-encoding")) {
		// Chunks are already compressed by their codecs; a content coding on top would only make Content-Length
		// count other bytes. (For range requests fetch itself sends `identity`, as the Fetch standard says.)
		headers.set("Accept-Encoding", "identity");
	}
	return headers;
}
