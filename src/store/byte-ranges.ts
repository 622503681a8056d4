/**
 * The byte ranges an HTTP store asks for and what it makes of the answers: the Range header of a request, where a
 * 206 body starts and how large the object is (Content-Range, Content-Length), the bytes asked for cut out of a
 * 200 or 206 body, and the check of a caller's offsets and lengths. Pure functions of the request and the response's
 * status and headers: http-store.ts sends the requests.
 */
import { Dt64ExportError } from "../errors.js";

/** The bytes asked for, and how to check and cut what the server sent for them; `head` asks for the size only. */
export type ByteRequest = { kind: "all"; maxBytes?: number } | { kind: "range"; offset: number; length: number; maxWhole?: number } | { kind: "suffix"; length: number } | { kind: "head" };

/** What selectBytes needs of a response: its status and headers. */
export type RangeResponse = Pick<Response, "status" | "headers">;

/**
 * A 206 body that does not hold the bytes asked for (it starts after the offset, ends before the bytes asked for, or
 * its Content-Range is one no object has): a final answer (retrying would get the same), not the data.
 */
export class RangeMismatch extends Error {}

/** The Range header of a request (`bytes=10-19`, `bytes=-8`); none for a whole object or its size. */
export function rangeHeader(request: ByteRequest): string | undefined {
	switch (request.kind) {
		case "all":
		case "head":
			return undefined;
		case "range":
			return `bytes=${request.offset}-${request.offset + request.length - 1}`;
		case "suffix":
			return `bytes=-${request.length}`;
	}
}

/** A 206's `Content-Range: bytes start-end/total` (total undefined for `*`), when it has one of that form. */
function contentRange(response: RangeResponse): { start: number; end: number; total: number | undefined } | undefined {
	const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get("content-range")?.trim() ?? "");
	return match === null ? undefined : { start: Number(match[1]), end: Number(match[2]), total: match[3] === "*" ? undefined : Number(match[3]) };
}

/** The object's size: the total of a 206's Content-Range, or the Content-Length of a whole, unencoded answer. */
export function objectSize(response: RangeResponse, encoded: boolean): number | undefined {
	const text =
		response.status === 206
			? /\/(\d+)$/.exec(response.headers.get("content-range")?.trim() ?? "")?.[1]
			: encoded
				? undefined
				: response.headers.get("content-length");
	const size = Number(text ?? Number.NaN);
	return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

/** The requested bytes out of a 200 (whole object) or 206 (the range, or a superset of it) body. */
export function selectBytes(body: Uint8Array, response: RangeResponse, request: ByteRequest): Uint8Array {
	switch (request.kind) {
		case "all":
		case "head":
			return body;
		case "suffix":
			// Both a 200 and a 206 for a suffix end at the object's end.
			return body.subarray(Math.max(0, body.length - request.length));
		case "range": {
			const range = response.status === 206 ? contentRange(response) : undefined;
			const start = response.status === 206 ? (range?.start ?? request.offset) : 0;
			if (range !== undefined) checkContentRange(range, request);
			if (start > request.offset) {
				throw new RangeMismatch(`the server sent bytes from ${start}, after the requested offset ${request.offset}`);
			}
			return body.subarray(request.offset - start, request.offset - start + request.length);
		}
	}
}

/**
 * Refuses a 206 whose Content-Range cannot hold the bytes asked for (trial 26: 06): one no object has (its end before
 * its start, or past its total), or one of another range, ending before the bytes asked for (those the object has:
 * a range past its end is cut there). Taken as they came, the first was read as the object's size (a zip of 1 byte,
 * "not a readable zip file"), the second as no bytes ("got 0 bytes at offset ...").
 */
function checkContentRange(range: { start: number; end: number; total: number | undefined }, request: { offset: number; length: number }): void {
	const asked = `bytes=${request.offset}-${request.offset + request.length - 1}`;
	const answered = `bytes ${range.start}-${range.end}/${range.total ?? "*"}`;
	if (range.end < range.start || (range.total !== undefined && range.end >= range.total)) {
		throw new RangeMismatch(`the server answered ${asked} with Content-Range ${answered}, which no object has`);
	}
	const wanted = Math.min(request.offset + request.length, range.total ?? Number.POSITIVE_INFINITY);
	if (range.start <= request.offset && range.end + 1 < wanted) {
		throw new RangeMismatch(`the server answered ${asked} with Content-Range ${answered}, which ends before the bytes asked for`);
	}
}

/** Refuses an offset or length that is not a whole number >= 0 (a caller's bug: INTERNAL), naming the key. */
export function checkByteCount(value: number, name: string, key: string): void {
	if (!Number.isSafeInteger(value) || value < 0) {
		throw new Dt64ExportError("INTERNAL", `invalid byte range for ${key}: ${name} ${value} is not a whole number >= 0`, { key, value });
	}
}
