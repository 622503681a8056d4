/**
 * The partition files a dataset writer holds open, at most `limit` at once. While the time arrives sorted, a
 * partition is closed as soon as the time has passed it (it cannot receive rows again). Otherwise a file is opened
 * only to write rows the writer held back (see PartitionBuffers), and the least recently used one is closed to
 * make room; a partition written again after its file was closed gets a new file (the next sequence number). Each
 * open file holds a row group in memory, hence the bound.
 * Only a time says where sorted data is: a null time (NaT) passes no partition, and the partition of null times,
 * which has no time range, is never passed (sorted data with scattered NaT keeps one file of null rows).
 */
export interface PartitionFile {
	/** Rows written so far. */
	readonly rows: number;
}

export interface OpenPartitionsOptions<F extends PartitionFile> {
	readonly limit: number;
	/** Opens the `sequence`-th file of a partition. */
	open(partition: string, sequence: number): F;
	close(file: F): Promise<void>;
	/** Abandons a file after a failure: nothing of it may remain. */
	discard(file: F): void;
}

/** The times [low, high) a partition holds. */
export interface TimeRange {
	readonly low: bigint;
	readonly high: bigint;
}

/** Where rows start: the time of the first (null: no time) and its partition's range (undefined: none). */
export interface RowsStart {
	readonly range: TimeRange | undefined;
	readonly first: bigint | null;
}

export class OpenPartitions<F extends PartitionFile> {
	/** In order of use, least recent first (a Map keeps insertion order); `range` undefined: no time range. */
	readonly #open = new Map<string, { file: F; range: TimeRange | undefined }>();
	readonly #sequences = new Map<string, number>();
	/** The time the latest rows started at, while times have never decreased; null once they have. */
	#sortedUpTo: bigint | null | undefined = undefined;

	constructor(readonly options: OpenPartitionsOptions<F>) {}

	get openCount(): number {
		return this.#open.size;
	}

	isOpen(partition: string): boolean {
		return this.#open.has(partition);
	}

	/** Whether a file can be opened without closing another. */
	get hasRoom(): boolean {
		return this.#open.size < this.options.limit;
	}

	/** Whether the time has been sorted so far. */
	get sorted(): boolean {
		return this.#sortedUpTo !== null;
	}

	/**
	 * Whether runs of rows starting so, in this order, keep the time sorted (rows without a time say nothing); if
	 * not, it is no longer sorted (before any of them is routed: a batch is routed as sorted or not as a whole).
	 */
	staysSorted(starts: Iterable<RowsStart>): boolean {
		let last = this.#sortedUpTo;
		if (last === null) return false;
		for (const { range, first } of starts) {
			if (range === undefined || first === null) continue;
			if (last !== undefined && first < last) {
				this.#sortedUpTo = null;
				return false;
			}
			last = first;
		}
		return true;
	}

	/** Notes rows of times in `range` starting at `first`: while sorted, the partitions the time has passed are closed. */
	async notePosition(range: TimeRange, first: bigint): Promise<void> {
		if (this.#sortedUpTo === null) return;
		if (this.#sortedUpTo !== undefined && first < this.#sortedUpTo) {
			this.#sortedUpTo = null;
			return;
		}
		this.#sortedUpTo = first;
		// Sorted so far: partitions that end at or before this one starts are finished.
		for (const [partition, { range: passed }] of [...this.#open]) if (passed !== undefined && passed.high <= range.low) await this.#closeOne(partition);
	}

	/**
	 * The file for rows of `partition` (times in `range`; undefined for rows without a time, or rows not partitioned
	 * by time), opened if needed, the least recently used closed to make room. `fresh` asks for a new file of the
	 * partition even if one is open (its file is full).
	 */
	async fileFor(partition: string, range: TimeRange | undefined, fresh = false): Promise<F> {
		const entry = this.#open.get(partition);
		if (entry !== undefined && !fresh) {
			this.#open.delete(partition);
			this.#open.set(partition, entry);
			return entry.file;
		}
		if (entry !== undefined) await this.#closeOne(partition);
		while (this.#open.size >= this.options.limit) await this.#closeOne(this.#open.keys().next().value as string);
		const sequence = this.#sequences.get(partition) ?? 0;
		this.#sequences.set(partition, sequence + 1);
		const file = this.options.open(partition, sequence);
		this.#open.set(partition, { file, range });
		return file;
	}

	async #closeOne(partition: string): Promise<void> {
		const entry = this.#open.get(partition)!;
		this.#open.delete(partition);
		await this.options.close(entry.file);
	}

	/** Closes every open file. */
	async closeAll(): Promise<void> {
		for (const partition of [...this.#open.keys()]) await this.#closeOne(partition);
	}

	/** Discards every open file (after a failure). */
	discardAll(): void {
		for (const { file } of this.#open.values()) this.options.discard(file);
		this.#open.clear();
	}
}
