/**
 * The decoded size up to which an array's zstd, lz4 and blosc chunks decode on the calling thread, with no decode
 * thread started: a thread costs about 75 ms of CPU and 10 MiB to start, more than decoding 4 MiB takes (at most
 * a few ms, about 15 before V8 has optimized the decoders), and a small time coordinate is the usual case (a
 * 20,000-value zstd export: 10 MiB and 40 ms of CPU less, 10 ms sooner).
 *
 * A module of its own, without imports: the CLI's early start of the decode threads (cli/early-decode-threads.ts)
 * applies the same rule before the rest of the CLI is loaded.
 */
export const SMALL_ARRAY_BYTES = 4 * 2 ** 20;

/**
 * The decoded size of one chunk up to which it decodes on the calling thread whatever the array's size: handing a
 * chunk to a decode thread and back (a message each way, its buffer transferred, a promise settled on the event
 * loop) costs the main thread more than decoding a small one itself. Measured on 2 cores, 1M datetime64[s] values
 * in zstd chunks (see README, Performance: small chunks): chunks of 8 KB took 2.6 s of CPU on the thread against
 * 1.7 s here, of 80 KB about the same either way; above that the thread wins as the main thread converts and
 * writes while it decodes.
 */
export const SMALL_CHUNK_BYTES = 64 * 2 ** 10;

/**
 * Whether an array's chunks decode on the calling thread: its values are fixed-size, and either the array is
 * SMALL_ARRAY_BYTES at most or, given the shape of its (inner) chunks, one chunk is SMALL_CHUNK_BYTES at most.
 */
export function decodesHere(shape: readonly number[], valueBytes: number | "variable", chunkShape?: readonly number[]): boolean {
	if (valueBytes === "variable") return false;
	return bytesOf(shape, valueBytes) <= SMALL_ARRAY_BYTES || (chunkShape !== undefined && bytesOf(chunkShape, valueBytes) <= SMALL_CHUNK_BYTES);
}

function bytesOf(shape: readonly number[], valueBytes: number): number {
	let values = 1;
	for (const size of shape) values *= size;
	return values * valueBytes;
}
