/**
 * The values a first pass over an array gets from its store, kept (within a byte bound) for the pass after it: `--unit
 * auto` reads float CF time counts once to choose their unit, then the export reads the same chunks again. Kept as
 * read, still encoded (a compressed chunk holds a fraction of its decoded bytes), each is handed over once, to the
 * next read of its key, and forgotten: the export reads each chunk once, in the order the first pass read them, so
 * the memory held goes down as it goes. Past the bound, the values are read again as before.
 */
import type { AbsolutePath, AsyncReadable, GetOptions } from "./readable.js";

/**
 * The most bytes of stored chunk values a first pass keeps for the next. A 1-D export's peak RSS is 60–100 MiB
 * without them (README, Performance); this bound keeps a store of 20M float64 counts in 1M-value chunks compressed
 * by blosc(lz4, shuffle) whole (about 13 MB), and the first 32 MiB of a larger or less compressed one.
 */
export const KEPT_READ_BYTES = 32 * 2 ** 20;

export interface KeptReads extends AsyncReadable {
	/** Keeps nothing read from now on; what is kept is still handed over once. */
	stopKeeping(): void;
}

/**
 * `store`, keeping a copy of each value `get` returns (a missing key as missing) while it keeps and they fit in
 * `maxBytes` together, and handing it to the next `get` of its key instead of reading it. A copy, since a reader may
 * decode a chunk in the buffer it was read into (GetOptions.room). Range reads (shards) are not kept.
 */
export function keepingReads(store: AsyncReadable, maxBytes: number = KEPT_READ_BYTES): KeptReads {
	const kept = new Map<AbsolutePath, Uint8Array | undefined>();
	let bytes = 0;
	let keeping = true;
	return {
		async get(key: AbsolutePath, options?: GetOptions) {
			if (kept.has(key)) {
				const value = kept.get(key);
				kept.delete(key);
				bytes -= value?.byteLength ?? 0;
				return value;
			}
			const value = await store.get(key, options);
			const size = value?.byteLength ?? 0;
			if (keeping && bytes + size <= maxBytes) {
				// A copy of its own (a Node Buffer's slice is a view): the first pass decodes the value read, which may
				// move its buffer to a decoding thread.
				kept.set(key, value === undefined ? undefined : new Uint8Array(value));
				bytes += size;
			}
			return value;
		},
		...(store.getRange === undefined ? {} : { getRange: store.getRange.bind(store) }),
		...(store.getRanges === undefined ? {} : { getRanges: store.getRanges.bind(store) }),
		stopKeeping() {
			keeping = false;
		},
	};
}
