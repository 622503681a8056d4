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

export class KeptInnerChunks {
	/** By shard key and index slot, least recently used first. */
	readonly #chunks = new Map<string, Uint8Array>();
	#bytes = 0;

	has(shardKey: string, slot: number): boolean {
		return this.#chunks.has(keyOf(shardKey, slot));
	}

	/**
	 * A copy of the kept bytes: a decoder may decode into the buffer it is given (or hand it to a pool), and the
	 * kept bytes must stay as read.
	 */
	take(shardKey: string, slot: number): Uint8Array | undefined {
		const key = keyOf(shardKey, slot);
		const bytes = this.#chunks.get(key);
		if (bytes === undefined) return undefined;
		this.#chunks.delete(key);
		this.#chunks.set(key, bytes);
		return copyOfBytes(bytes);
	}

	/** Keeps a copy of `bytes`, the inner chunk's as read, forgetting the least recently used beyond the bounds. */
	keep(shardKey: string, slot: number, bytes: Uint8Array): void {
		if (bytes.byteLength > KEPT_BYTES) return;
		const key = keyOf(shardKey, slot);
		this.#forget(key);
		this.#chunks.set(key, copyOfBytes(bytes));
		this.#bytes += bytes.byteLength;
		while (this.#chunks.size > KEPT_CHUNKS || this.#bytes > KEPT_BYTES) this.#forget(this.#chunks.keys().next().value as string);
	}

	#forget(key: string): void {
		const bytes = this.#chunks.get(key);
		if (bytes === undefined) return;
		this.#chunks.delete(key);
		this.#bytes -= bytes.byteLength;
	}
}

function keyOf(shardKey: string, slot: number): string {
	return `${slot} ${shardKey}`;
}
