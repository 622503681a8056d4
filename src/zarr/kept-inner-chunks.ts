import { copyOfBytes } from "../memory/copy-of-bytes.js";

/**
 * The encoded bytes of the last inner chunks read on their own (the probes of the range search), kept for the
 * export: its range starts and ends in the inner chunks the search probed last, which would otherwise be fetched
 * again, and the search itself reads its last block again once it has found the bound. Bounded in count and bytes.
 */

/** Inner chunks kept at most: enough for the probes around both bounds of a range. */
const KEPT_CHUNKS = 8;
/** Their bytes at most; a larger inner chunk is not kept. */
const KEPT_BYTES = 16 * 2 ** 20;

/** An inner chunk's bytes as read, and what its reader said of it (see keep). */
interface KeptInnerChunk {
	readonly bytes: Uint8Array;
	/** Its coordinates in the array's grid of inner chunks, when its reader gave them. */
	readonly coords: readonly number[] | undefined;
	/** Kept for one more read only (see lastReads): the read that takes it has its bytes. */
	last: boolean;
	/** Its bytes taken by that read. */
	readonly taken: boolean;
}

export class KeptInnerChunks {
	/** By shard key and index slot, least recently used first. */
	readonly #chunks = new Map<string, KeptInnerChunk>();
	#bytes = 0;

	/** Bytes kept. */
	get bytes(): number {
		return this.#bytes;
	}

	has(shardKey: string, slot: number): boolean {
		return this.#chunks.has(keyOf(shardKey, slot));
	}

	/**
	 * A copy of the kept bytes: a decoder may decode into the buffer it is given (or hand it to a pool), and the
	 * kept bytes must stay as read. The bytes themselves when they were kept for one more read (see lastReads): the
	 * entry then holds none, and gives none again.
	 */
	take(shardKey: string, slot: number): Uint8Array | undefined {
		const key = keyOf(shardKey, slot);
		const kept = this.#chunks.get(key);
		if (kept === undefined || kept.taken) return undefined;
		if (kept.last) {
			// Its bytes go; the entry stays, empty: a read of its shard's other inner chunks still reads around it (see
			// ShardIndexReader.readInnerChunk), never into its place, where its values are being decoded.
			this.#chunks.set(key, { bytes: new Uint8Array(0), coords: kept.coords, last: true, taken: true });
			this.#bytes -= kept.bytes.byteLength;
			return kept.bytes;
		}
		this.#chunks.delete(key);
		this.#chunks.set(key, kept);
		return copyOfBytes(kept.bytes);
	}

	/**
	 * Keeps a copy of `bytes`, the inner chunk's as read (at `coords` of the array's grid of inner chunks, when
	 * known), forgetting the least recently used beyond the bounds.
	 */
	keep(shardKey: string, slot: number, bytes: Uint8Array, coords?: readonly number[]): void {
		if (bytes.byteLength > KEPT_BYTES) return;
		const key = keyOf(shardKey, slot);
		this.#forget(key);
		this.#chunks.set(key, { bytes: copyOfBytes(bytes), coords, last: false, taken: false });
		this.#bytes += bytes.byteLength;
		while (this.#chunks.size > KEPT_CHUNKS || this.#bytes > KEPT_BYTES) this.#forget(this.#chunks.keys().next().value as string);
	}

	/**
	 * The search that kept them is over, and the reads after it (an export's) read each inner chunk once: those
	 * kept that `wanted` takes (by their coordinates in the array's grid of inner chunks) are kept for that one read,
	 * the others, which no read will ask for, are forgotten now; so are those of unknown coordinates.
	 */
	lastReads(wanted: (coords: readonly number[]) => boolean): void {
		for (const [key, kept] of [...this.#chunks]) {
			if (kept.coords === undefined || !wanted(kept.coords)) this.#forget(key);
			else kept.last = true;
		}
	}

	#forget(key: string): void {
		const kept = this.#chunks.get(key);
		if (kept === undefined) return;
		this.#chunks.delete(key);
		this.#bytes -= kept.bytes.byteLength;
	}
}

function keyOf(shardKey: string, slot: number): string {
	return `${slot} ${shardKey}`;
}
