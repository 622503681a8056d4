/**
 * Which inner chunks of a shard are read at once: runs of inner chunks next to each other in the shard's bytes. A
 * whole read takes every inner chunk of the shard in one read; a read of a few inner chunks (a probe of the range
 * search, the inner chunks of a narrow range) only the run around the one asked for, among those it needs, so that
 * it never reads bytes of inner chunks nobody asked for.
 */

const EMPTY = 0xffff_ffff_ffff_ffffn;

/** An inner chunk written in the shard: its index slot and byte range. */
export interface InnerEntry {
	readonly slot: number;
	readonly offset: number;
	readonly length: number;
}

/** Inner chunks read at once: from the first byte of any to the last byte of any, and whether any two share bytes. */
export interface DataSpan {
	readonly start: number;
	readonly end: number;
	readonly chunks: number;
	readonly overlapping: boolean;
	/** The inner chunks by offset. */
	readonly entries: readonly InnerEntry[];
	/** Where the span's entries are among the shard's (ShardLayout.entries): [first, last]. */
	readonly first: number;
	readonly last: number;
}

/** A shard's written inner chunks by offset, the span of all of them, and where each index slot is among them. */
export interface ShardLayout {
	readonly entries: readonly InnerEntry[];
	readonly all: DataSpan;
	/** By index slot, its place in `entries`; -1 for a slot with no inner chunk. */
	readonly positionOf: Int32Array;
}

const layouts = new WeakMap<BigUint64Array, ShardLayout>();

/** The layout of a decoded shard index (offset and length per slot), computed once per index. */
export function shardLayout(index: BigUint64Array): ShardLayout {
	let layout = layouts.get(index);
	if (layout === undefined) {
		const entries: InnerEntry[] = [];
		for (let slot = 0; slot < index.length; slot += 2) {
			if (index[slot] === EMPTY && index[slot + 1] === EMPTY) continue;
			entries.push({ slot: slot / 2, offset: Number(index[slot]), length: Number(index[slot + 1]) });
		}
		entries.sort((a, b) => a.offset - b.offset);
		const positionOf = new Int32Array(index.length / 2).fill(-1);
		entries.forEach(({ slot }, position) => (positionOf[slot] = position));
		layout = { entries, all: spanOf(entries, 0, entries.length - 1), positionOf };
		layouts.set(index, layout);
	}
	return layout;
}

/** The span of `entries[first..last]`. */
function spanOf(entries: readonly InnerEntry[], first: number, last: number): DataSpan {
	const run = entries.slice(first, last + 1);
	let end = 0;
	let overlapping = false;
	for (const { offset, length } of run) {
		if (offset < end) overlapping = true;
		end = Math.max(end, offset + length);
	}
	const start = run.length === 0 ? 0 : run[0].offset;
	return { start: Math.min(start, end), end, chunks: run.length, overlapping, entries: run, first, last };
}

/**
 * The run of inner chunks around the one at index slot `slot` (written in the shard): it and its neighbours by
 * offset as far as each is `wanted`. Bytes between two of them that belong to no inner chunk are read with them, as
 * a whole read reads them.
 */
export function runAround(layout: ShardLayout, slot: number, wanted: (slot: number) => boolean): DataSpan {
	const { entries } = layout;
	const position = layout.positionOf[slot];
	let first = position;
	let last = position;
	while (first > 0 && wanted(entries[first - 1].slot)) first--;
	while (last + 1 < entries.length && wanted(entries[last + 1].slot)) last++;
	return first === 0 && last === entries.length - 1 ? layout.all : spanOf(entries, first, last);
}
