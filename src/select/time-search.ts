/**
 * Finds the rows of a time range by binary search over chunk boundaries, reading only the chunks it probes.
 *
 * The time array is seen as blocks: the rows of one chunk along the first axis (all of them along the others),
 * each read whole and read once. Sortedness is checked, never assumed: the times of every block probed must be
 * non-decreasing in C order, and its first and last times must fall between those of the blocks probed before and
 * after it. Missing times (NaT) are in no range, so they may be anywhere: sorted means sorted once they are left
 * out. Any failure ends the search with `sorted: false`, and the export then filters every row instead. Unless the
 * column is known sorted (`trust`), it is read whole and checked first, whatever its length (WholeCheck): blocks a
 * search skips could not be checked otherwise, and a time out of order in one of them, belonging to the range, would
 * be missed without a word. A short column's blocks are kept for the search (WHOLE_CHECK_VALUES); a longer one is
 * read block by block, none kept, and the search reads its few probes again.
 */
import { UsageError } from "../errors.js";
import type { TimeBounds } from "./time-bounds.js";

/** The instants of one block of the time array (flat C order), null where the value is missing (NaT). */
export interface TimeBlock {
	readonly length: number;
	instantAt(index: number): bigint | null;
	/**
	 * The same answers as the generic scans below, from the stored values without an instant per value (a block
	 * holds up to millions): its first and last times (null: none) or `unsorted`; the first index whose time is
	 * >= bound (the length when none is). Optional: without them, instantAt is used.
	 */
	summarize?(): BlockSummary | "unsorted";
	firstAtOrAfter?(bound: bigint): number;
	/**
	 * The search is done with the block: its values' buffer goes back to the pool it was read into, for the next
	 * probe's read (a two-sided range of the bench's sharded store probed 6 inner chunks, 5 MB of buffers that
	 * outlived the search as garbage). Absent: nothing to hand back (or a block kept for other reads).
	 */
	release?(): void;
}

/** The time array as the search reads it. */
export interface TimeBlocks {
	/** Rows along the first axis. */
	readonly rows: number;
	/** Rows per block (the chunk length along the first axis). */
	readonly blockRows: number;
	/** Values per row (the product of the other axes), 1 for a 1-D array. */
	readonly rowSize: number;
	/**
	 * `pass`: the blocks [start, end) read one after another with this one, when it is one of a run (a sharded time
	 * array then reads their inner chunks at once, as a whole read does); without it, this block alone (a probe).
	 */
	read(block: number, pass?: BlockRange): Promise<TimeBlock>;
	/** How many blocks a pass over many of them reads at once (1 when absent): a time coordinate in one chunk per append is read in reads of a few bytes each, bound by latency. */
	readonly readConcurrency?: number;
	/** The requests a read of every block takes (the number of blocks when absent): a sharded array's are per shard. */
	readonly wholeReadRequests?: number;
	/**
	 * A second read of any block is served from memory (the source keeps each chunk read while searching, see
	 * keepingTimeChunks): a short column checked whole is then not kept again by the search (keptBlocks), each block
	 * handed back once checked, for the next one's read.
	 */
	readonly readsKept?: boolean;
	/** What the blocks are, for messages: `the time column "time" (1,048,000 values in 1,048 chunks)`. */
	readonly description?: string;
}

/**
 * Whether the search reads the whole time column to check it sorted before it searches: `check` whatever it costs;
 * `trust` never (the column is known sorted: only the blocks the search reads are checked, and the rows exported);
 * or a check of at most `maxRequests` requests (a remote store), refused past that until the caller says which of the
 * two it wants, rather than a search that could miss rows of a column never checked, or that many requests unasked.
 */
export type WholeCheck = "check" | "trust" | { readonly maxRequests: number };

/** Blocks [start, end). */
export interface BlockRange {
	readonly start: number;
	readonly end: number;
}

export interface RowRange {
	/** First row along axis 0. */
	readonly start: number;
	/** One past the last row. */
	readonly end: number;
}

export type RangeSearch =
	/** Every row in bounds lies in `rows` (rows there may still be out of bounds when a row holds several times). */
	| { readonly sorted: true; readonly rows: RowRange; readonly probes: number }
	/** The time is not sorted: every row must be read and filtered. */
	| { readonly sorted: false; readonly rows: RowRange; readonly probes: number; readonly reason: string };

/** A block's first and last times; null when it holds none (only NaT). */
export type BlockSummary = { readonly first: bigint; readonly last: bigint } | null;

class NotSorted extends Error {}

/** Probed blocks by index: each checked sorted, and consistent with the blocks around it. */
class ProbedBlocks {
	readonly #summaries = new Map<number, BlockSummary>();
	/** The last two blocks read, for the search inside a block that follows the search over blocks. */
	readonly #recent: { index: number; block: TimeBlock }[] = [];
	probes = 0;

	constructor(readonly blocks: TimeBlocks) {}

	/** A block's first and last instants, read (and checked) on first use only. */
	async summary(index: number): Promise<BlockSummary> {
		return this.#summaries.has(index) ? this.#summaries.get(index)! : (await this.#read(index)).summary;
	}

	/** A block's instants: read again only if it is not among the last two read. */
	async block(index: number): Promise<TimeBlock> {
		return this.#recent.find((entry) => entry.index === index)?.block ?? (await this.#read(index)).block;
	}

	async #read(index: number): Promise<{ block: TimeBlock; summary: BlockSummary }> {
		const block = await this.blocks.read(index);
		this.probes++;
		const summary = summarize(block, index);
		this.#checkNeighbours(index, summary);
		this.#summaries.set(index, summary);
		this.#recent.push({ index, block });
		if (this.#recent.length > 2) this.#recent.shift()!.block.release?.();
		return { block, summary };
	}

	/** The search is over: the blocks still held go back (see TimeBlock.release). */
	releaseAll(): void {
		for (const { block } of this.#recent.splice(0)) block.release?.();
	}

	#checkNeighbours(index: number, summary: BlockSummary): void {
		if (summary === null) return;
		for (const [other, known] of this.#summaries) {
			if (known === null) continue;
			if ((other < index && known.last > summary.first) || (other > index && known.first < summary.last)) {
				throw new NotSorted(`block ${other} and block ${index} of the time array are out of order`);
			}
		}
	}
}

/**
 * Whether the blocks holding `rows` are sorted, each in C order and each after the one before (missing times left
 * out), reading every one of them whole: undefined when they are, else what is out of order. What an export in C
 * order checks of its rows as they go by (TimeFilter), for exports whose rows come in another order.
 */
export async function unsortedWithin(blocks: TimeBlocks, rows: RowRange): Promise<string | undefined> {
	let before: { index: number; last: bigint } | undefined;
	const pass = { start: Math.floor(rows.start / blocks.blockRows), end: Math.ceil(rows.end / blocks.blockRows) };
	// Up to readConcurrency reads in flight, taken in order; a read failing while ahead is reported when its turn comes.
	const ahead = Math.max(1, blocks.readConcurrency ?? 1);
	const inFlight: Promise<TimeBlock>[] = [];
	let next = pass.start;
	const refill = () => {
		while (next < pass.end && inFlight.length < ahead) {
			const read = blocks.read(next++, pass);
			read.catch(() => undefined);
			inFlight.push(read);
		}
	};
	try {
		for (let index = pass.start; index < pass.end; index++) {
			refill();
			const block = await inFlight.shift()!;
			let summary: BlockSummary;
			try {
				summary = summarize(block, index);
			} catch (error) {
				if (error instanceof NotSorted) return error.message;
				throw error;
			} finally {
				// Read for this check alone: its buffer goes back (a kept block has no release).
				block.release?.();
			}
			if (summary === null) continue;
			if (before !== undefined && before.last > summary.first) return `block ${before.index} and block ${index} of the time array are out of order`;
			before = { index, last: summary.last };
		}
		return undefined;
	} finally {
		// Reads still ahead when the check ends early go back as they come.
		for (const read of inFlight.splice(0)) read.then((block) => block.release?.(), () => undefined);
	}
}

function summarize(block: TimeBlock, index: number): BlockSummary {
	const summary = block.summarize !== undefined ? block.summarize() : summarizeInstants(block.length, (i) => block.instantAt(i));
	if (summary === "unsorted") throw new NotSorted(`block ${index} of the time array is not sorted`);
	return summary;
}

/** A block's first and last times, read instant by instant (missing ones skipped); "unsorted" at the first step back. */
export function summarizeInstants(length: number, instantAt: (i: number) => bigint | null): BlockSummary | "unsorted" {
	let first: bigint | undefined;
	let previous: bigint | undefined;
	for (let i = 0; i < length; i++) {
		const instant = instantAt(i);
		if (instant === null) continue;
		if (previous !== undefined && instant < previous) return "unsorted";
		first ??= instant;
		previous = instant;
	}
	return first === undefined ? null : { first, last: previous! };
}

/**
 * A flat position that splits the times at `bound`: every time before it is < bound, every time from it on is
 * >= bound (missing times on either side). The total when no time is >= bound.
 */
async function lowerBound(probed: ProbedBlocks, bound: bigint): Promise<number> {
	const { rows, blockRows, rowSize } = probed.blocks;
	const blockCount = Math.ceil(rows / blockRows);
	let low = 0;
	let high = blockCount;
	// The last time before block `low` and the first from block `high` on, once known: time that grows about
	// linearly (the usual case) is then found by interpolation in a few probes, not log2(blocks). A step that does
	// not halve the range is followed by a bisection, so that the worst case stays within twice log2(blocks).
	let lowTime: bigint | undefined;
	let highTime: bigint | undefined;
	let bisect = false;
	if (blockCount > 2) {
		// A bound at or before the first time, or past the last, is answered by the first and last blocks: an empty
		// range before or after the data then costs one or two probes, not a search.
		const first = await probed.summary(0);
		if (first !== null && bound <= first.first) return 0;
		const last = await probed.summary(blockCount - 1);
		if (last !== null && last.last < bound) return rows * rowSize;
		if (first !== null && last !== null) {
			lowTime = first.first;
			highTime = last.last;
		}
	}
	while (low < high) {
		const size = high - low;
		let middle = (low + high) >>> 1;
		if (!bisect && lowTime !== undefined && highTime !== undefined && highTime > lowTime) {
			const guess = low + Number(((bound - lowTime) * BigInt(size)) / (highTime - lowTime));
			middle = Math.min(high - 1, Math.max(low, guess));
		}
		// A block of NaT only says nothing: the next block with times (before `high`) decides.
		let decider = middle;
		let summary = await probed.summary(decider);
		while (summary === null && decider + 1 < high) summary = await probed.summary(++decider);
		if (summary !== null && summary.last < bound) {
			low = decider + 1;
			lowTime = summary.last;
		} else {
			high = middle;
			if (summary !== null) highTime = summary.first;
		}
		bisect = !bisect && high - low > size / 2;
	}
	// Block `low` may hold NaT only (a missing chunk of a sparse store, a gap): it says nothing, and the split is in
	// the first block after it that holds times (whose last time is >= bound: the search's invariant). Stopping at the
	// NaT block's end put the split before that block's times below the bound: an end bound there lost them.
	while (low < blockCount && (await probed.summary(low)) === null) low++;
	if (low === blockCount) return rows * rowSize;
	// NaT may sit anywhere in the block: a scan, not a bisection (the block is read already).
	const block = await probed.block(low);
	if (block.firstAtOrAfter !== undefined) return low * blockRows * rowSize + block.firstAtOrAfter(bound);
	let first = 0;
	while (first < block.length) {
		const instant = block.instantAt(first);
		if (instant !== null && instant >= bound) break;
		first++;
	}
	return low * blockRows * rowSize + first;
}

/**
 * A time column of at most this many values (8 MiB of int64: a time coordinate as xarray writes one) has the blocks
 * of its whole check kept for the search, which then probes them without reading again; a longer one is read block by
 * block for the check, none kept (50M times would hold 400 MB). xarray's append layout (`to_zarr(append_dim="time")`)
 * keeps the chunking of the first write, often one value per chunk, and a backfill appended last puts earlier days
 * after later ones: such a column is many blocks of a few bytes, read concurrently (as xarray reads it whole to index
 * it).
 */
export const WHOLE_CHECK_VALUES = 1 << 20;

/**
 * Requests a whole read of the time column may take on a remote store before the caller is asked whether the column
 * is sorted (see WholeCheck): 8 round trips of the 32 requests in flight. A time coordinate appended a day per chunk
 * for most of a year (200 chunks) is still read whole, where a 1-D time array of a million values in chunks of 1,000
 * took 1,053 requests (7.9 s at 100 ms a request) for one day that a search finds in 13.
 */
export const REMOTE_WHOLE_CHECK_REQUESTS = 256;

/**
 * Blocks a whole read keeps at most for the search after it. A kept block costs about 1 KB beside its values (its
 * read, its TimeBlock, its typed arrays): a time column of 10^6 values in 10^6 chunks (inner chunks of a shard, or
 * an append of one value each) held 1 GB for 8 MB of times (trial 28, finding 05). Past this, none is kept, and the
 * search reads its few probes (about 2 log2 of the blocks) again.
 */
export const KEPT_BLOCKS_MAX = 4096;

/** Blocks kept for the search, handed back by `releaseKept` once it is over. */
interface KeptBlocks extends TimeBlocks {
	releaseKept(): void;
}

/**
 * The blocks of a small time column, each read once and kept: the search then probes them without reading again.
 * Those it hands out have nothing to hand back (`release`): each is kept for every read of it, and goes back to the
 * pool it was read into with the others when the search is over (`releaseKept`). They were never handed back: a
 * small range export of zstd chunks got 13 of its 16 buffers back from the collector only.
 */
function keptBlocks(blocks: TimeBlocks): KeptBlocks | undefined {
	if (Math.ceil(blocks.rows / blocks.blockRows) > KEPT_BLOCKS_MAX) return undefined;
	const kept = new Map<number, Promise<TimeBlock>>();
	const releases: Promise<(() => void) | undefined>[] = [];
	return {
		rows: blocks.rows,
		blockRows: blocks.blockRows,
		rowSize: blocks.rowSize,
		readConcurrency: blocks.readConcurrency,
		read(block, pass) {
			let read = kept.get(block);
			if (read === undefined) {
				const whole = blocks.read(block, pass);
				releases.push(whole.then(({ release }) => release, () => undefined));
				kept.set(block, (read = whole.then(({ release: _, ...held }) => held)));
			}
			return read;
		},
		releaseKept() {
			kept.clear();
			// A read still in flight (a check ended by a block out of order) hands its block back once done.
			for (const release of releases.splice(0)) void release.then((release) => release?.());
		},
	};
}

/**
 * Refuses a whole read of the time column that `check` bounds and that takes more requests than it allows: the
 * caller says whether the column is sorted (`timeSorted`) rather than either cost being paid, or rows missed, unasked.
 */
function refuseCostlyCheck(blocks: TimeBlocks, blockCount: number, check: WholeCheck): void {
	if (typeof check === "string") return;
	const requests = blocks.wholeReadRequests ?? blockCount;
	if (requests <= check.maxRequests) return;
	const what = blocks.description ?? `the time column (${blockCount} chunks)`;
	throw new UsageError(
		`${what} is read whole to check that it is sorted before a range is searched, ${requests} requests to this store (more than ${check.maxRequests}): say whether it is known sorted with \`timeSorted\` (true: searched, only the chunks the search reads and the rows exported checked; false: read whole all the same)`,
		{ option: "timeSorted", value: requests },
	);
}

/**
 * The rows along axis 0 that can hold times in `bounds`, by binary search when the time is sorted; all rows,
 * with `sorted: false` and the reason, when it is not. Unless trusted sorted, the column is checked whole first.
 */
export async function searchTimeRange(blocks: TimeBlocks, bounds: TimeBounds, check: WholeCheck = "check"): Promise<RangeSearch> {
	const all = { start: 0, end: blocks.rows };
	if (blocks.rows === 0) return { sorted: true, rows: all, probes: 0 };
	const blockCount = Math.ceil(blocks.rows / blocks.blockRows);
	let wholeReads = 0;
	const short = blocks.rows * blocks.rowSize <= WHOLE_CHECK_VALUES;
	let kept: KeptBlocks | undefined;
	try {
		if (check !== "trust") {
			refuseCostlyCheck(blocks, blockCount, check);
			// A short column's blocks are kept for the search; a long one's would hold the whole column (50M times: 400 MB).
			kept = short && blocks.readsKept !== true ? keptBlocks(blocks) : undefined;
			const reason = await unsortedWithin(kept ?? blocks, all);
			if (reason !== undefined) return { sorted: false, rows: all, probes: blockCount, reason };
			wholeReads = blockCount;
		}
		return await searchBlocks(kept ?? blocks, bounds, wholeReads);
	} finally {
		kept?.releaseKept();
	}
}

/** The search of searchTimeRange once the column is checked whole (`wholeReads` blocks read) or not (0). */
async function searchBlocks(blocks: TimeBlocks, bounds: TimeBounds, wholeReads: number): Promise<RangeSearch> {
	const all = { start: 0, end: blocks.rows };
	const probed = new ProbedBlocks(blocks);
	try {
		const total = blocks.rows * blocks.rowSize;
		const startPosition = bounds.start === undefined ? 0 : await lowerBound(probed, bounds.start);
		// Every time is before start: the range is empty, whatever end is.
		const endPosition = bounds.end === undefined || startPosition === total ? total : await lowerBound(probed, bounds.end);
		const start = Math.floor(startPosition / blocks.rowSize);
		const end = Math.max(start, Math.ceil(endPosition / blocks.rowSize));
		return { sorted: true, rows: { start, end }, probes: wholeReads || probed.probes };
	} catch (error) {
		if (!(error instanceof NotSorted)) throw error;
		return { sorted: false, rows: all, probes: wholeReads || probed.probes, reason: error.message };
	} finally {
		probed.releaseAll();
	}
}
