/**
 * A shard of a 1-D sharded datetime64 array read as one chunk (ChunkSource.shardBands): its inner chunks decoded
 * into one buffer of the pool, each at its offset, so that the export makes one band and one record batch of the
 * shard. Each inner chunk is read, checked and named as when read alone (chunk-source.ts gives `readInto`); only
 * where its decoded bytes go differs.
 */
import { recordNatPositions } from "../convert/nat-positions.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import type { ChunkBox } from "./chunk-box.js";
import type { ShardBands } from "./chunk-source.js";
import type { ChunkValues } from "./chunk-values.js";

export interface ShardBandsSpec {
	/** The shard's buffers come from it, when given (handed back once written, as a chunk's). */
	readonly pool?: BufferPool;
	/** The inner chunks decode on a decode thread: the shard's buffer is a SharedArrayBuffer (see decodesIntoShared). */
	readonly shared: boolean;
	readonly innerPerShard: number;
	/** Values of an inner chunk, and bytes of a value. */
	readonly innerValues: number;
	readonly valueBytes: number;
	/** Inner chunks of the array (its read grid). */
	readonly innerChunks: number;
	describe(shard: number): string;
	/**
	 * Reads the inner chunk at `coords` (of the read grid) into `target`, exactly its bytes, within the pass `within`:
	 * where NaT may be among its values, or null when not known (a missing inner chunk, filled). `placeOf`: the place
	 * of each inner chunk of this read in the shard's buffer (by its coordinate; undefined for others), where the
	 * inner chunks of a run read at once are read, to decode where they are.
	 */
	readInto(coords: readonly number[], target: Uint8Array, signal: AbortSignal | undefined, within: ChunkBox, placeOf: (inner: number) => Uint8Array | undefined): Promise<Int32Array | null>;
}

export function shardBandsOf<V extends ChunkValues>(spec: ShardBandsSpec): ShardBands<V> {
	const { pool, innerPerShard, innerValues, valueBytes } = spec;
	const innerBytes = innerValues * valueBytes;
	const open = (shard: number, start: number, end: number, signal?: AbortSignal): OpenedShard<V> => {
		const first = shard * innerPerShard;
		const from = first + start;
		const last = Math.min(first + end, spec.innerChunks);
		const length = (last - first) * innerBytes;
		// In a whole shard's size class, whatever its length: the first and last shards of a range (cut to their inner
		// chunks) take the buffer of a whole one back, not a class of their own (pages never written cost nothing).
		const room = innerPerShard * innerBytes;
		const bytes = spec.shared ? (pool?.acquireShared(length, room) ?? new Uint8Array(new SharedArrayBuffer(length))) : (pool?.acquire(length, room) ?? new Uint8Array(length));
		// The inner chunks of this read, all read at once (one read of the shard's run, see shard-index.ts).
		const within: ChunkBox = { start: [from], end: [last] };
		const placeOf = (k: number) => (k >= from && k < last ? bytes.subarray((k - first) * innerBytes, (k - first + 1) * innerBytes) : undefined);
		const parts: Promise<Int32Array | null>[] = [];
		const decoded: boolean[] = [];
		const positions: (Int32Array | null)[] = [];
		for (let k = from; k < last; k++) {
			const at = parts.length;
			decoded.push(false);
			positions.push(null);
			const part = spec.readInto([k], placeOf(k)!, signal, within, placeOf);
			// Observed in order by the caller: the first inner chunk that fails is the one named, as when read one by one.
			part.then(
				(found) => {
					positions[at] = found;
					decoded[at] = true;
				},
				() => undefined,
			);
			parts.push(part);
		}
		return { values: new BigInt64Array(bytes.buffer, bytes.byteOffset, length / 8) as unknown as V, start, parts, decoded, positions };
	};
	return {
		innerPerShard,
		innerValues,
		describe: (shard) => spec.describe(shard),
		open,
		async read(shard, start, end, signal) {
			const opened = open(shard, start, end, signal);
			// The values before `start` are no one's: said dead now, the shard's buffer comes back once the rest is.
			const all = opened.values as unknown as BigInt64Array;
			if (pool !== undefined && start > 0) pool.release(new Uint8Array(all.buffer, all.byteOffset, start * innerBytes));
			const positions: (Int32Array | null)[] = [];
			for (const part of opened.parts) positions.push(await part);
			const merged = mergedPositions(positions, innerValues, start);
			if (merged !== undefined) recordNatPositions(opened.values as unknown as BigInt64Array, merged);
			return opened.values;
		},
	};
}

/**
 * A shard's inner chunks being read and decoded into one buffer (ShardBands.open): `values` is the buffer, from the
 * shard's first inner chunk on (those before `start` left undefined); `parts[k]` settles once inner chunk `start + k`
 * is in its place, with where NaT may be among its values (null: not known, a missing inner chunk filled), or
 * rejects with its error; `decoded[k]` says, without waiting, that it is, and `positions[k]` is then what it settled with.
 */
export interface OpenedShard<V extends ChunkValues> {
	readonly values: V;
	readonly start: number;
	readonly parts: readonly Promise<Int32Array | null>[];
	readonly decoded: readonly boolean[];
	readonly positions: readonly (Int32Array | null)[];
}

/**
 * The values of inner chunks [start, end) of an opened shard (counted within the shard, each decoded), a view of its
 * buffer, with where NaT may be recorded when each of them said so.
 */
export function valuesOfRun<V extends ChunkValues>(opened: OpenedShard<V>, innerValues: number, start: number, end: number): V {
	const all = opened.values as unknown as BigInt64Array;
	const values = all.subarray(start * innerValues, Math.min(all.length, end * innerValues));
	const merged = mergedPositions(opened.positions.slice(start - opened.start, end - opened.start), innerValues, 0);
	if (merged !== undefined) recordNatPositions(values, merged);
	return values as unknown as V;
}

/**
 * The NaT positions of consecutive inner chunks (`innerValues` each, the first at inner chunk `firstInner` of the
 * buffer) as positions in the buffer; undefined when one of them is not known.
 */
function mergedPositions(parts: readonly (Int32Array | null)[], innerValues: number, firstInner: number): Int32Array | undefined {
	let total = 0;
	for (const part of parts) {
		if (part === null) return undefined;
		total += part.length;
	}
	const merged = new Int32Array(total);
	let at = 0;
	parts.forEach((part, k) => {
		const shift = (firstInner + k) * innerValues;
		for (let j = 0; j < part!.length; j++) merged[at++] = part![j] + shift;
	});
	return merged;
}
