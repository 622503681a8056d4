/** A `Range: bytes=` header against an object's bytes, as the test servers standing in for buckets answer it. */

export type ByteRange = { start: number; end: number } | "unsatisfiable" | undefined;

/** A single `bytes=` range against a file of `size` bytes; undefined means "serve the whole file". */
export function parseByteRange(header: string | undefined, size: number): ByteRange {
	if (header === undefined) return undefined;
	const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
	// Multiple ranges or other units: a server may ignore the header and send everything.
	if (match === null) return undefined;
	const [, first, last] = match;
	if (first === "" && last === "") return "unsatisfiable";
	if (first === "") {
		const suffix = Number(last);
		if (suffix === 0 || size === 0) return "unsatisfiable";
		return { start: Math.max(0, size - suffix), end: size - 1 };
	}
	const start = Number(first);
	const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
	if (start >= size || (last !== "" && Number(last) < start)) return "unsatisfiable";
	return { start, end };
}

/** What a GET of an object answers: the whole object (200), the range asked for (206), or 416 for one past its end. */
export function objectRead(bytes: Buffer, header: string | undefined): { status: 200 | 206; body: Buffer; headers: Record<string, string> } | { status: 416 } {
	const range = parseByteRange(header, bytes.length);
	if (range === undefined) return { status: 200, body: bytes, headers: {} };
	if (range === "unsatisfiable") return { status: 416 };
	return { status: 206, body: bytes.subarray(range.start, range.end + 1), headers: { "Content-Range": `bytes ${range.start}-${range.end}/${bytes.length}` } };
}
