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

/** Whether an array's chunks decode on the calling thread: its values are fixed-size and SMALL_ARRAY_BYTES at most. */
export function decodesHere(shape: readonly number[], valueBytes: number | "variable"): boolean {
	let values = 1;
	for (const size of shape) values *= size;
	return valueBytes !== "variable" && values * valueBytes <= SMALL_ARRAY_BYTES;
}
