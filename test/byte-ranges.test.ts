/** The pure parts of an HTTP store's requests (src/store/byte-ranges.ts, src/store/request-headers.ts), without a server. */
import { describe, expect, it } from "vitest";
import { checkByteCount, objectSize, rangeHeader, RangeMismatch, selectBytes, type ByteRequest } from "../src/store/byte-ranges.js";
import { HEADER_NAME, HEADER_VALUE, headersOfRequest, requestHeaders } from "../src/store/request-headers.js";

const response = (status: number, headers: Record<string, string> = {}) => ({ status, headers: new Headers(headers) });
const body = Uint8Array.from({ length: 10 }, (_, i) => i);

describe("byte ranges", () => {
	it("writes the Range header of each request, none for a whole object or its size", () => {
		expect(rangeHeader({ kind: "range", offset: 10, length: 5 })).toBe("bytes=10-14");
		expect(rangeHeader({ kind: "range", offset: 0, length: 1 })).toBe("bytes=0-0");
		expect(rangeHeader({ kind: "suffix", length: 8 })).toBe("bytes=-8");
		expect(rangeHeader({ kind: "all" })).toBeUndefined();
		expect(rangeHeader({ kind: "head" })).toBeUndefined();
	});

	it("tells the object's size from a 206's Content-Range total, or an unencoded 200's Content-Length", () => {
		expect(objectSize(response(206, { "content-range": "bytes 0-9/1234" }), false)).toBe(1234);
		expect(objectSize(response(206, { "content-range": " bytes 0-9/1234 " }), true)).toBe(1234);
		expect(objectSize(response(206, { "content-range": "bytes 0-9/*" }), false)).toBeUndefined();
		expect(objectSize(response(206, { "content-length": "10" }), false)).toBeUndefined();
		expect(objectSize(response(200, { "content-length": "77" }), false)).toBe(77);
		// An encoded body's Content-Length counts other bytes.
		expect(objectSize(response(200, { "content-length": "77" }), true)).toBeUndefined();
		expect(objectSize(response(200, { "content-length": "-1" }), false)).toBeUndefined();
		expect(objectSize(response(200, { "content-length": "9007199254740993" }), false)).toBeUndefined();
		expect(objectSize(response(200), false)).toBeUndefined();
	});

	it("cuts the bytes asked for out of a 200 (the whole object) or a 206 (the range, or more)", () => {
		const range: ByteRequest = { kind: "range", offset: 4, length: 3 };
		expect([...selectBytes(body, response(200), range)]).toEqual([4, 5, 6]);
		// A 206 starting at the offset, before it (a superset), or without a Content-Range (taken as at the offset).
		expect([...selectBytes(body.subarray(4), response(206, { "content-range": "bytes 4-9/10" }), range)]).toEqual([4, 5, 6]);
		expect([...selectBytes(body.subarray(2), response(206, { "content-range": "bytes 2-9/10" }), range)]).toEqual([4, 5, 6]);
		expect([...selectBytes(body.subarray(4, 7), response(206), range)]).toEqual([4, 5, 6]);
		// A suffix ends at the object's end, whatever the status.
		expect([...selectBytes(body, response(200), { kind: "suffix", length: 2 })]).toEqual([8, 9]);
		expect([...selectBytes(body.subarray(8), response(206), { kind: "suffix", length: 2 })]).toEqual([8, 9]);
		expect([...selectBytes(body, response(200), { kind: "suffix", length: 20 })]).toHaveLength(10);
		expect(selectBytes(body, response(200), { kind: "all" })).toBe(body);
	});

	it("refuses a 206 that starts after the offset asked for", () => {
		const attempt = () => selectBytes(body.subarray(5), response(206, { "content-range": "bytes 5-9/10" }), { kind: "range", offset: 4, length: 3 });
		expect(attempt).toThrow(RangeMismatch);
		expect(attempt).toThrow("the server sent bytes from 5, after the requested offset 4");
	});

	it("refuses a 206 whose Content-Range no object has, or which ends before the bytes asked for (trial 26: 06)", () => {
		const range: ByteRequest = { kind: "range", offset: 4, length: 3 };
		// "bytes 0-9/1" was read as an object of 1 byte; "bytes 0-2/10" for bytes=4-6 as no bytes at all.
		expect(() => selectBytes(body, response(206, { "content-range": "bytes 0-9/1" }), { kind: "range", offset: 0, length: 1 })).toThrow(
			new RangeMismatch("the server answered bytes=0-0 with Content-Range bytes 0-9/1, which no object has"),
		);
		expect(() => selectBytes(body, response(206, { "content-range": "bytes 7-6/10" }), range)).toThrow("which no object has");
		expect(() => selectBytes(body.subarray(0, 3), response(206, { "content-range": "bytes 0-2/10" }), range)).toThrow(
			new RangeMismatch("the server answered bytes=4-6 with Content-Range bytes 0-2/10, which ends before the bytes asked for"),
		);
		// A range past the object's end is cut there: not a mismatch.
		expect([...selectBytes(body.subarray(8), response(206, { "content-range": "bytes 8-9/10" }), { kind: "range", offset: 8, length: 5 })]).toEqual([8, 9]);
		expect([...selectBytes(body.subarray(4, 7), response(206, { "content-range": "bytes 4-6/*" }), range)]).toEqual([4, 5, 6]);
	});

	it("refuses an offset or length that is not a whole number >= 0 as INTERNAL, naming the key", () => {
		expect(() => checkByteCount(0, "offset", "/a/0")).not.toThrow();
		for (const value of [-1, 1.5, Number.NaN, 2 ** 53]) {
			expect(() => checkByteCount(value, "length", "/a/0")).toThrow(expect.objectContaining({ code: "INTERNAL", key: "/a/0", message: `invalid byte range for /a/0: length ${value} is not a whole number >= 0` }));
		}
	});
});

describe("request headers", () => {
	it("checks the caller's headers: names, values, and the ones the store sets itself", () => {
		expect([...requestHeaders({ "X-Token": "a b\tc", Authorization: "Bearer é" })]).toEqual([
			["authorization", "Bearer é"],
			["x-token", "a b\tc"],
		]);
		const refused = (headers: Record<string, string>, message: string) => expect(() => requestHeaders(headers)).toThrow(expect.objectContaining({ code: "USAGE", option: "headers", message: expect.stringContaining(message) }));
		refused({ "bad name": "x" }, 'invalid header name "bad name"');
		refused({ Range: "bytes=0-1" }, 'header "Range" cannot be set: the store sets it per request');
		refused({ host: "example.com" }, 'header "host" cannot be set');
		refused({ "Content-Length": "3" }, "cannot be set");
		refused({ "X-A": "line\nbreak" }, 'invalid value for header "X-A": expected text without control characters');
		expect(HEADER_NAME.test("X-Amz-Date")).toBe(true);
		expect(HEADER_VALUE.test("\u0100")).toBe(false);
	});

	it("adds each request's Range over the caller's headers, or Accept-Encoding identity for a whole object", () => {
		const base = new Headers({ "X-Token": "t" });
		const ranged = headersOfRequest({ kind: "range", offset: 2, length: 2 }, base);
		expect([...ranged]).toEqual([
			["range", "bytes=2-3"],
			["x-token", "t"],
		]);
		expect([...headersOfRequest({ kind: "all" }, base)]).toEqual([
			["accept-encoding", "identity"],
			["x-token", "t"],
		]);
		// The caller's own Accept-Encoding stays; a redirect to another origin carries none of the caller's.
		expect(headersOfRequest({ kind: "all" }, new Headers({ "Accept-Encoding": "gzip" })).get("accept-encoding")).toBe("gzip");
		expect([...headersOfRequest({ kind: "suffix", length: 4 }, undefined)]).toEqual([["range", "bytes=-4"]]);
		// The base is not changed.
		expect(base.has("range")).toBe(false);
	});
});
