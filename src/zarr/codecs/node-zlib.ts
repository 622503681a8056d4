import { Dt64ExportError } from "../../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "./codec.js";
import { DECODED_SLACK_BYTES } from "./decoded-size.js";
import { inflateInto, InflateOverflowError } from "./inflate-into.js";

/**
 * gzip and zlib through Node's zlib instead of zarrita's `DecompressionStream`: the C inflater runs on the libuv
 * thread pool (several chunks inflate at once), in one call per chunk, and its output is capped at the chunk's
 * decoded size, so a small chunk that inflates to gigabytes is refused instead of filling memory. The output
 * buffer is the chunk's own size (at zlib's default 16 KiB pieces, the callbacks and the final concatenation cost
 * as much main-thread time as the inflating itself: measured 2.2x the CPU), taken from the export's buffer pool
 * when it has one, so that an export of any length cycles through the same few buffers.
 */
function boundedInflater(name: "gzip" | "zlib", format: "gunzip" | "inflate"): CodecFactory {
	return (_configuration, spec): BytesToBytesCodec => {
		const maxOutputLength = spec.maxDecodedBytes;
		const pool = spec.bufferPool;
		return {
			kind: "bytes_to_bytes",
			async decode(bytes) {
				// One byte of room past the largest valid output: a chunk that fills it is too large.
				const target = pool?.acquire(maxOutputLength + 1) ?? Buffer.allocUnsafeSlow(maxOutputLength + 1);
				try {
					const { bytes: out } = await inflateInto(format, bytes, target);
					if (out.length > maxOutputLength) throw new InflateOverflowError();
					pool?.shorten(out);
					return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
				} catch (error) {
					if (error instanceof InflateOverflowError) {
						throw new Dt64ExportError("CHUNK_CORRUPT", `${name}: chunk inflates past its expected ${maxOutputLength - DECODED_SLACK_BYTES} bytes`);
					}
					throw new Dt64ExportError("CHUNK_CORRUPT", `${name}: ${(error as Error).message}`, { cause: error });
				}
			},
		};
	};
}

export const gzipCodec = boundedInflater("gzip", "gunzip");
export const zlibCodec = boundedInflater("zlib", "inflate");
