/**
 * Finds the rows of a time range by binary search over chunk boundaries, reading only the chunks it probes.
 *
 * The time array is seen as blocks: the rows of one chunk along the first axis (all of them along the others),
 * each read whole and read once. Sortedness is checked, never assumed: every block probed must hold no missing
 * value and be non-decreasing in C order, and its first and last values must fall between those of the blocks
 * probed before and after it. Any failure ends the search with `sorted: false`, and the export then filters every
 * row instead. (Blocks never read cannot be checked here; the rows exported are checked again as they are read.)
 */
import type { TimeBounds } from "./time-bounds.js";

/** The instants of one block of the time array (flat C order), null where the value is missing (NaT). */
export interface TimeBlock {
	readonly length: number;
	instantAt(index: number): bigint | null;
}

/** The time array as the search reads it. */
export interface TimeBlocks {
	/** Rows along the first axis. */
	readonly rows: number;
	/** Rows per block (the chunk length along the first axis). */
	readonly blockRows: number;
	/** Values per row (the product of the other axes), 1 for a 1-D array. */
	readonly rowSize: number;
	read(block: number): Promise<TimeBlock>;
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

interface BlockSummary {
	readonly first: bigint;
	readonly last: bigint;
}

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
		return this.#summaries.get(index) ?? (await this.#read(index)).summary;
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
		if (this.#recent.length > 2) this.#recent.shift();
		return { block, summary };
	}

	#checkNeighbours(index: number, summary: BlockSummary): void {
		for (const [other, known] of this.#summaries) {
			if ((other < index && known.last > summary.first) || (other > index && known.first < summary.last)) {
				throw new NotSorted(`block ${other} and block ${index} of the time array are out of order`);
			}
		}
	}
}

function summarize(block: TimeBlock, index: number): BlockSummary {
	let previous: bigint | undefined;
	let first: bigint | undefined;
	for (let i = 0; i < block.length; i++) {
		const instant = block.instantAt(i);
		if (instant === null) throw new NotSorted(`block ${index} of the time array holds a missing value (NaT)`);
		if (previous !== undefined && instant < previous) throw new NotSorted(`block ${index} of the time array is not sorted`);
		first ??= instant;
		previous = instant;
	}
	if (first === undefined) throw new NotSorted(`block ${index} of the time array is empty`);
	return { first, last: previous! };
}

/** The first flat position whose instant is >= `bound` (the total when none is). */
async function lowerBound(probed: ProbedBlocks, bound: bigint): Promise<number> {
	const { rows, blockRows, rowSize } = probed.blocks;
	const blockCount = Math.ceil(rows / blockRows);
	let low = 0;
	let high = blockCount;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if ((await probed.summary(middle)).last < bound) low = middle + 1;
		else high = middle;
	}
	if (low === blockCount) return rows * rowSize;
	const block = await probed.block(low);
	let first = 0;
	let last = block.length;
	while (first < last) {
		const middle = (first + last) >>> 1;
		if (block.instantAt(middle)! < bound) first = middle + 1;
		else last = middle;
	}
	return low * blockRows * rowSize + first;
}

/**
 * The rows along axis 0 that can hold times in `bounds`, by binary search when the time is sorted; all rows,
 * with `sorted: false` and the reason, when it is not.
 */
export async function searchTimeRange(blocks: TimeBlocks, bounds: TimeBounds): Promise<RangeSearch> {
	const all = { start: 0, end: blocks.rows };
	const probed = new ProbedBlocks(blocks);
	if (blocks.rows === 0) return { sorted: true, rows: all, probes: 0 };
	try {
		const startPosition = bounds.start === undefined ? 0 : await lowerBound(probed, bounds.start);
		const endPosition = bounds.end === undefined ? blocks.rows * blocks.rowSize : await lowerBound(probed, bounds.end);
		const start = Math.floor(startPosition / blocks.rowSize);
		const end = Math.max(start, Math.ceil(endPosition / blocks.rowSize));
		return { sorted: true, rows: { start, end }, probes: probed.probes };
	} catch (error) {
		if (!(error instanceof NotSorted)) throw error;
		return { sorted: false, rows: all, probes: probed.probes, reason: error.message };
	}
}
