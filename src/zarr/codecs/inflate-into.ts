/** node:zlib, loaded by the first gzip or zlib chunk: an export of other codecs does not load it (a few ms at start). */
const zlib = () => process.getBuiltinModule("node:zlib");

/**
 * Node's zlib streams inflate into an output buffer of their own (`_outBuffer`, `_outOffset`, `_chunkSize`: not
 * public API, but long-standing fields of Node's zlib.js). Handing a stream the caller's buffer there makes it inflate
 * on the thread pool straight into memory the caller reuses, where `zlib.gunzip` allocates a new buffer per chunk.
 * Nothing depends on it for correctness: every piece of output is checked to be where it was expected, and copied
 * there when it is not (another Node version), which costs a copy and no more.
 */
interface OutputFields {
	_outBuffer?: unknown;
	_outOffset?: unknown;
	_chunkSize?: unknown;
}

/** Whether `engine` has the output fields of the Node versions this was written for. */
function hasOutputFields(engine: OutputFields): boolean {
	return Buffer.isBuffer(engine._outBuffer) && typeof engine._outOffset === "number" && typeof engine._chunkSize === "number";
}

let outputFieldsKnown: boolean | undefined;

/** Whether this Node's zlib streams have the output fields (asked once). */
function canInflateInPlace(): boolean {
	outputFieldsKnown ??= hasOutputFields(zlib().createInflate() as unknown as OutputFields);
	return outputFieldsKnown;
}

/** zlib's smallest output buffer: what a stream allocates when the caller's buffer replaces it. */
const MIN_CHUNK_SIZE = 64;
/** Output pieces when they are copied: few round trips to the thread pool, little memory. */
const COPY_CHUNK_SIZE = 2 ** 20;

/** Raised when the output would pass `target`'s length. */
export class InflateOverflowError extends Error {}

export interface InflateResult {
	/** The inflated bytes: the first bytes of `target`. */
	readonly bytes: Buffer;
	/** Whether zlib wrote them in place (no copy was made). */
	readonly inPlace: boolean;
}

/**
 * Inflates `input` (gzip for `gunzip`, zlib otherwise) into `target`, on the thread pool, and resolves with the
 * first bytes of `target` holding the output. Output past `target.length` is refused with InflateOverflowError;
 * `target` should have room beyond the largest valid output, so that a valid chunk never fills it (zlib then
 * checks for more output in a buffer of its own). `inPlace: false` forces the copying path (tests).
 */
export function inflateInto(format: "gunzip" | "inflate", input: Uint8Array, target: Buffer, options: { inPlace?: boolean } = {}): Promise<InflateResult> {
	const inPlace = options.inPlace !== false && canInflateInPlace();
	// In place, the stream's own buffer is replaced before its first write: it starts at zlib's smallest.
	const chunkSize = inPlace ? MIN_CHUNK_SIZE : Math.max(MIN_CHUNK_SIZE, Math.min(COPY_CHUNK_SIZE, target.length));
	const engine = format === "gunzip" ? zlib().createGunzip({ chunkSize }) : zlib().createInflate({ chunkSize });
	const fields = engine as unknown as OutputFields;
	if (inPlace && hasOutputFields(fields)) {
		fields._outBuffer = target;
		fields._outOffset = 0;
		fields._chunkSize = target.length;
	}
	return new Promise((resolve, reject) => {
		let length = 0;
		let wroteInPlace = true;
		engine.on("data", (piece: Buffer) => {
			if (length + piece.length > target.length) {
				engine.destroy(new InflateOverflowError(`more than ${target.length} bytes`));
				return;
			}
			if (piece.buffer !== target.buffer || piece.byteOffset !== target.byteOffset + length) {
				target.set(piece, length);
				wroteInPlace = false;
			}
			length += piece.length;
		});
		engine.once("error", reject);
		engine.once("end", () => resolve({ bytes: target.subarray(0, length), inPlace: wroteInPlace && length > 0 }));
		engine.end(input);
	});
}
