/**
 * Decoded bytes the chunks read ahead of a table from a local store hold at most, all columns together (see
 * ReadAheadBudget), unless one column alone reads more ahead (its concurrency times its chunk's bytes): a table
 * reads ahead no less than its widest column would alone, so a single array or a table of a few columns reads as
 * before (one or three float32 variables in chunks of 3 MB: two chunks ahead, which keep two cores decoding), and a
 * wide one no more (30 such variables read two chunks ahead each: 190 MB, beside the chunk of every column that its
 * bands are cut from; 30 variables to Arrow IPC measured 437 -> 207 MiB peak RSS with this budget, 219 with twice
 * it, 235 with four times, no faster). A remote store's reads wait on latency: REMOTE_READ_BYTES there.
 */
export const READ_AHEAD_BYTES = 8 * 2 ** 20;

/** A column that asked to read a chunk ahead and was refused: started again once bytes come back. */
interface Waiting {
	/** The first table row of the chunk it asked for: rows needed sooner are read ahead first. */
	readonly row: number;
	readonly resume: () => void;
}

/**
 * The bytes a table's columns may read ahead, shared by all of them. The columns of a table are read side by side
 * and each band needs the same rows of every column, so what matters is the chunks needed next, whichever column
 * they belong to: a column may read a chunk ahead when its bytes fit and no column waits for a chunk of earlier
 * rows (or of the same rows and an earlier column); the chunk waited for is always read, outside the budget. The
 * bytes come back when the chunk is taken (it is then the chunk the column's bands are cut from), and the columns
 * refused meanwhile are started again, the rows needed soonest first.
 */
export class ReadAheadBudget {
	#available: number;
	/** By column: the chunk each column was refused, until it is read ahead or the column stops asking. */
	readonly #waiting = new Map<number, Waiting>();

	constructor(readonly bytes = READ_AHEAD_BYTES) {
		this.#available = bytes;
	}

	/** Bytes not taken by a chunk read ahead. */
	get available(): number {
		return this.#available;
	}

	/**
	 * Whether `column` may read ahead the chunk of `bytes` starting at table row `row` now. When it may not, it is
	 * told through `resume` once bytes come back and its turn comes. A chunk larger than the whole budget may be read
	 * ahead alone, when nothing else is.
	 */
	fits(column: number, row: number, bytes: number, resume: () => void): boolean {
		const fits = bytes <= this.#available || this.#available === this.bytes;
		if (fits && !this.#anyBefore(column, row)) return true;
		this.#waiting.set(column, { row, resume });
		return false;
	}

	/** Takes the bytes of a chunk `fits` allowed, read ahead now. */
	take(column: number, bytes: number): void {
		this.#waiting.delete(column);
		this.#available -= bytes;
	}

	/** The bytes of a chunk read ahead come back (taken by its column, or given up); the columns waiting go on. */
	give(bytes: number): void {
		this.#available += bytes;
		const waiting = [...this.#waiting.entries()].sort(([a, x], [b, y]) => x.row - y.row || a - b);
		for (const [column, { resume }] of waiting) {
			if (!this.#waiting.has(column)) continue;
			resume();
			// Still waiting: the bytes did not reach it, nor anyone after it.
			if (this.#waiting.has(column)) return;
		}
	}

	/** `column` reads ahead no more (its chunks all read, or it was closed). */
	leave(column: number): void {
		if (this.#waiting.delete(column)) this.give(0);
	}

	/** Whether another column waits for a chunk of earlier rows, or of the same rows and an earlier column. */
	#anyBefore(column: number, row: number): boolean {
		for (const [other, waiting] of this.#waiting) {
			if (other !== column && (waiting.row < row || (waiting.row === row && other < column))) return true;
		}
		return false;
	}
}

/** A column's share of a table's ReadAheadBudget: which column it is, and the bytes of one of its decoded chunks. */
export interface ReadAheadShare {
	readonly budget: ReadAheadBudget;
	readonly column: number;
	readonly chunkBytes: number;
}
