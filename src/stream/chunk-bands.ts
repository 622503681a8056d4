/**
 * The chunks of one array in the order an export needs them: in C order of the chunk grid with a bounded number in
 * flight (readChunksInOrder), or assembled into bands of rows in C order of the array (readBands). TableReader
 * reads each column through these.
 */
import { Dt64ExportError } from "../errors.js";
import type { BufferPool, PoolBuffer } from "../memory/buffer-pool.js";
import { releaseRowBytesOutside } from "../memory/row-bytes.js";
import { chunkRowsBox, chunkRowsOf } from "../zarr/chunk-box.js";
import { MAX_CHUNK_VALUES, type ChunkSource, type ShardBands } from "../zarr/chunk-source.js";
import { valuesOfRun, type OpenedShard } from "../zarr/shard-bands.js";
import { allocateLike, copyValues, sliceValues, type ChunkValues } from "../zarr/chunk-values.js";
import { arrangeRowInCOrder } from "../zarr/row-in-c-order.js";
import { cOrderCoordinates, copyChunkIntoBand, product } from "../zarr/grid.js";
import type { RowRange } from "../select/time-search.js";
import type { ReadAheadShare } from "./read-ahead-budget.js";
import { streamedBands } from "./streamed-bands.js";

/** A run of consecutive values of the array in C order: rows [firstRow, firstRow + rows) along axis 0. */
export interface ValueBand<V extends ChunkValues = BigInt64Array> {
	/** Values (int64 counts for datetime64) in C order of the logical array (numpy `ravel()`). */
	readonly values: V;
	/** Flat C-order index of the first value. */
	readonly offset: number;
	readonly firstRow: number;
}

/** Refuses, before any read, an array whose row of chunks is too large to assemble as one band. */
export function checkBandSize(source: ChunkSource<ChunkValues>, shape: readonly number[]): void {
	const bandValues = shape.length > 1 ? Math.min(source.chunkShape[0], shape[0]) * product(shape.slice(1)) : 0;
	if (bandValues > MAX_CHUNK_VALUES) {
		throw new Dt64ExportError(
			"BAND_TOO_LARGE",
			`array shape ${JSON.stringify(shape)} in chunks of ${JSON.stringify(source.chunkShape)}: one row of chunks holds ${bandValues} values, too large to assemble (at most ${MAX_CHUNK_VALUES}, 1 GiB of int64)`,
			{ value: bandValues },
		);
	}
}


/** How many chunks of a source hold rows of `rows`. */
export function chunksOfRows(source: ChunkSource<ChunkValues>, rows: RowRange): number {
	const { start, end } = chunkRowsOf(source.chunkShape[0], rows);
	return (end - start) * product(source.gridShape.slice(1));
}

/** C-order coordinates of the grid, limited to chunks [start, end) along the first axis. */
function* coordinatesWithin(grid: readonly number[], chunks?: { start: number; end: number }): Generator<number[]> {
	if (chunks === undefined) {
		yield* cOrderCoordinates(grid);
		return;
	}
	for (const coords of cOrderCoordinates([chunks.end - chunks.start, ...grid.slice(1)])) {
		coords[0] += chunks.start;
		yield coords;
	}
}

/**
 * Lets the consumer of a source's chunks hold back reads ahead and start them later (see readChunksInOrder):
 * `allows` is asked before each read ahead, with the grid coordinates of the chunk and the chunks in flight, and the
 * read starts if it says so; `resume`, set by readChunksInOrder, starts the reads ahead allowed since, while the
 * consumer has not asked for its next chunk.
 */
export interface ReadAheadControl {
	/** `inFlight`: the chunks being read. */
	allows(coords: readonly number[], inFlight: number): boolean;
	resume?: () => void;
	/** Told of each chunk as it arrives, before any read ahead it frees a slot for. */
	arrived?: (data: ChunkValues) => void;
	/**
	 * Asked before the chunk the consumer waits for is read: a promise to wait for first, or undefined to read it
	 * now. Only while `mayReadAhead` says no (the output is busy, which ends by itself), so the export goes on.
	 */
	roomForWaited?: (mayReadAhead: () => boolean, signal: AbortSignal) => Promise<void> | undefined;
}

/**
 * How much of an array is read at once: `requests` in flight, and at most `chunks` chunks in flight. They differ
 * for a source whose requests read several chunks (a shard's inner chunks, see ChunkSource.chunksPerRequest): the
 * chunks then bound the memory the chunks in flight hold, the requests the store's load. A number is both.
 */
export interface ReadLimits {
	readonly requests: number;
	readonly chunks: number;
}

/** The limits a number (or limits) stands for: a number bounds the requests and the chunks alike. */
export function readLimits(limits: number | ReadLimits): ReadLimits {
	return typeof limits === "number" ? { requests: limits, chunks: limits } : limits;
}

/**
 * The key of the request a chunk is read by, among the chunks of a source read together (see
 * ChunkSource.chunksPerRequest); undefined when each chunk is a request of its own.
 */
function requestKeyOf(source: ChunkSource<ChunkValues>): ((coords: readonly number[]) => string) | undefined {
	const together = source.chunksPerRequest;
	if (together === undefined) return undefined;
	return (coords) => coords.map((c, axis) => Math.floor(c / together[axis])).join(",");
}

/**
 * The chunks of a source in C order of its grid (only those along the first axis in `chunks`, when given), read
 * and decoded at once up to `limits` (a number: that many chunks; see ReadLimits): a chunk whose request is
 * already in flight (another inner chunk of its shard) is read with it, whatever the number of requests; each is
 * yielded in its turn, whichever finishes first. Reads past the chunk the consumer waits for are read-ahead:
 * `mayReadAhead` can hold them back, `control` too (its `resume` starts them once allowed), and `share` the
 * table's ReadAheadBudget (each chunk read ahead holds its bytes until it is yielded); the chunk waited for is
 * always read, so the export goes on. With `missingRuns`, a run of chunks the source knows missing
 * (ChunkSource.missingRun) is read as one, yielded with the `count` of chunks it stands for (1 otherwise).
 */
export async function* readChunksInOrder<V extends ChunkValues>(
	source: ChunkSource<V>,
	limits: number | ReadLimits,
	signal: AbortSignal,
	mayReadAhead: () => boolean = () => true,
	chunks?: { start: number; end: number },
	control?: ReadAheadControl,
	share?: ReadAheadShare,
	missingRuns = false,
): AsyncGenerator<{ coords: number[]; data: V; count: number }> {
	const { requests, chunks: chunkLimit } = readLimits(limits);
	const coordinates = coordinatesWithin(source.gridShape, chunks);
	// Told with each read: a sharded source then reads at once only the inner chunks of this pass.
	const box = chunks === undefined ? undefined : chunkRowsBox(source.gridShape, chunks);
	const requestOf = requestKeyOf(source as ChunkSource<ChunkValues>);
	// `budgeted`: read ahead within `share`'s budget, whose bytes it holds until yielded.
	const inFlight: { coords: number[]; data: Promise<V>; count: number; budgeted: boolean; request?: string }[] = [];
	const lastChunk = chunks?.end ?? source.gridShape[0];
	const runOf = missingRuns && source.missingRun !== undefined && source.readMissingRun !== undefined ? source.missingRun.bind(source) : undefined;
	// Chunks in flight by request key (chunks of their own are counted in `alone`): the requests in flight.
	const byRequest = new Map<string, number>();
	let alone = 0;
	const requestsInFlight = () => byRequest.size + alone;
	// The next chunk, when its read was held back (by `control`, the limits or the budget).
	let heldBack: IteratorResult<number[]> | undefined;
	let closed = false;
	const launch = (ahead = false): boolean => {
		// Aborted (the reader destroyed): no chunk is read from now on, not even one the consumer was waiting for.
		if (signal.aborted) return false;
		const next = heldBack ?? coordinates.next();
		heldBack = undefined;
		if (next.done) return false;
		const request = requestOf?.(next.value);
		const withOthers = request !== undefined && byRequest.has(request);
		if (ahead && (inFlight.length >= chunkLimit || (!withOthers && requestsInFlight() >= requests))) {
			heldBack = next;
			return false;
		}
		const row = next.value[0] * source.chunkShape[0];
		if (ahead && share !== undefined && !share.budget.fits(share.column, row, share.chunkBytes, readAhead)) {
			heldBack = next;
			return false;
		}
		if (ahead && control !== undefined && !control.allows(next.value, inFlight.length)) {
			heldBack = next;
			// Not waiting for the budget: `control` starts it again.
			share?.budget.leave(share.column);
			return false;
		}
		if (ahead) share?.budget.take(share.column, share.chunkBytes);
		// Read because it is waited for: the column no longer waits for the budget.
		else share?.budget.leave(share.column);
		// Known missing, with those after it: one read of the fill value for all (the coordinates are consecutive, 1-D).
		const count = runOf?.(next.value, lastChunk - next.value[0]) ?? 0;
		for (let k = 1; k < count; k++) coordinates.next();
		const data = count > 0 ? source.readMissingRun!(next.value, count, signal) : source.read(next.value, signal, box);
		// Rejections are observed when the chunk's turn comes; this keeps an early one from being unhandled.
		data.catch(() => undefined);
		inFlight.push({ coords: next.value, data, count: Math.max(1, count), budgeted: ahead && share !== undefined, request });
		if (request === undefined) alone++;
		else byRequest.set(request, (byRequest.get(request) ?? 0) + 1);
		return true;
	};
	const settle = (request: string | undefined) => {
		if (request === undefined) alone--;
		else if (byRequest.get(request) === 1) byRequest.delete(request);
		else byRequest.set(request, byRequest.get(request)! - 1);
	};
	const readAhead = () => {
		while (!closed && mayReadAhead() && launch(true));
	};
	if (control !== undefined) control.resume = readAhead;
	try {
		if (launch()) readAhead();
		while (inFlight.length > 0) {
			const { coords, data, count, budgeted, request } = inFlight[0];
			let decoded: V;
			try {
				decoded = await data;
			} finally {
				inFlight.shift();
				settle(request);
				// Taken (or failed): its bytes are the column's chunk now, no longer a read ahead.
				if (budgeted) share!.budget.give(share!.chunkBytes);
			}
			// A read that ended after the abort (a local file's, which does not heed the signal) starts no other.
			if (signal.aborted) return;
			// Its slot is free only now: launching before the await would put more than the limits in flight.
			control?.arrived?.(decoded);
			readAhead();
			yield { coords, data: decoded, count };
			// The consumer asks for the next chunk: it is read, held back or not (but see roomForWaited).
			if (inFlight.length === 0) {
				const room = control?.roomForWaited?.(mayReadAhead, signal);
				if (room !== undefined) await room;
				launch();
			}
		}
	} finally {
		// A read started once the consumer has gone would never be taken.
		closed = true;
		if (share !== undefined) {
			share.budget.leave(share.column);
			for (const { budgeted } of inFlight.splice(0)) if (budgeted) share.budget.give(share.chunkBytes);
		}
	}
}

/**
 * The chunks of a 1-D array handed on whole (each the whole use of a pooled buffer) whose buffers have not come
 * back to the pool yet: written, they come back (BufferPool.expectWrittenBack), and until then they are memory the
 * export holds as much as a chunk in flight. Counting them with the chunks in flight keeps an export to its chunk
 * limit in all: without them, a chunk read ahead the moment the chunk before was decoded (before that one was even
 * handed to the writer) took a buffer more (20M zstd values: three 8 MB chunk buffers where two keep the decode
 * thread as busy). Held weakly: a chunk converted into other memory (never handed back) stops counting once collected.
 */
class HandedOnChunks {
	/** The chunks counted, each by a weak reference to its buffer; a buffer's reference by the buffer. */
	readonly #chunks = new Set<WeakRef<PoolBuffer>>();
	readonly #refs = new WeakMap<PoolBuffer, WeakRef<PoolBuffer>>();
	/**
	 * A chunk collected without coming back stops counting. Told by the garbage collector: looking at every chunk
	 * counted each time (deref) cost O(chunks counted) per chunk read, and they can be thousands until collected
	 * (an export in chunk order of 15,625 chunks of 16 values: up to 9,316 counted, 6.2 of its 8 s of CPU).
	 */
	readonly #collected = new FinalizationRegistry<WeakRef<PoolBuffer>>((ref) => this.#chunks.delete(ref));
	readonly #pool: BufferPool;
	readonly #unsubscribe: () => void;
	#resume: () => void = () => undefined;
	/** Waiting for the next chunk back (see nextBack). */
	readonly #waiting: (() => void)[] = [];

	constructor(pool: BufferPool) {
		this.#pool = pool;
		this.#unsubscribe = pool.onReturn((buffer) => {
			const ref = this.#refs.get(buffer);
			if (ref === undefined || !this.#chunks.delete(ref)) return;
			this.#refs.delete(buffer);
			this.#collected.unregister(ref);
			for (const wake of this.#waiting.splice(0)) wake();
			// After the stage that handed it back has finished its turn (the output's write callback, whose stream
			// resumes the writer just after): the reads ahead then see the writer ready (see mayReadAhead).
			queueMicrotask(this.#resume);
		});
	}

	/** Whether chunks handed on come back: only then are they counted (a pipe's never come back). */
	get counting(): boolean {
		return this.#pool.writtenComeBack;
	}

	/** `resume` starts the reads ahead allowed since (ReadAheadControl.resume). */
	resumeWith(resume: () => void): void {
		this.#resume = resume;
	}

	/** Counts `values` until its buffer comes back, if it is the whole use of a buffer of the pool. */
	add(values: ChunkValues): void {
		const bytes = bytesOf(values);
		if (bytes === undefined || !this.counting || !this.#pool.isWhole(bytes)) return;
		const buffer = bytes.buffer as PoolBuffer;
		const known = this.#refs.get(buffer);
		if (known !== undefined && this.#chunks.has(known)) return;
		const ref = new WeakRef(buffer);
		this.#chunks.add(ref);
		this.#refs.set(buffer, ref);
		this.#collected.register(buffer, ref, ref);
	}

	count(): number {
		return this.#chunks.size;
	}

	/** Resolves once a chunk counted comes back, or after `ms` (whatever else there is to look at by then). */
	nextBack(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				const at = this.#waiting.indexOf(done);
				if (at >= 0) this.#waiting.splice(at, 1);
				resolve();
			};
			const timer = setTimeout(done, ms);
			this.#waiting.push(done);
		});
	}

	close(): void {
		this.#unsubscribe();
		for (const ref of this.#chunks) this.#collected.unregister(ref);
		this.#chunks.clear();
		for (const wake of this.#waiting.splice(0)) wake();
	}
}

/**
 * The control of reads ahead that counts the chunks handed on (see HandedOnChunks) with the chunks in flight, up to
 * `limits`' chunks; `close` when the chunks are all read.
 */
export function countingHandedOn(pool: BufferPool, limits: number | ReadLimits): ReadAheadControl & { close(): void } {
	const handedOn = new HandedOnChunks(pool);
	const chunkLimit = readLimits(limits).chunks;
	const full = () => handedOn.counting && handedOn.count() >= chunkLimit;
	// The chunk waited for, when the limit is reached and the output busy, waits for a chunk back, looking again each
	// millisecond: what the output is busy with may be other bytes (a schema, a small batch), or a chunk that a
	// later stage holds until the next one (small chunks gathered into one batch), and that ends by itself.
	const roomFor = async (mayReadAhead: () => boolean, signal: AbortSignal) => {
		while (full() && !mayReadAhead() && !signal.aborted) await handedOn.nextBack(1);
	};
	const control: ReadAheadControl & { close(): void } = {
		allows: (_coords, inFlight) => !handedOn.counting || inFlight + handedOn.count() < chunkLimit,
		arrived: (data) => handedOn.add(data),
		roomForWaited: (mayReadAhead, signal) => (full() && !mayReadAhead() ? roomFor(mayReadAhead, signal) : undefined),
		close: () => handedOn.close(),
	};
	handedOn.resumeWith(() => control.resume?.());
	return control;
}

/** The bytes under a typed array, for the pool; undefined for strings. */
const bytesOf = (values: ChunkValues): Uint8Array | undefined => (Array.isArray(values) ? undefined : new Uint8Array(values.buffer, values.byteOffset, values.byteLength));

/**
 * A band of `length` values like `chunk`: from `pool` for typed arrays, so that once its slices are written it
 * comes back (see BufferPool) and the next band reuses it. Its content is undefined: the chunks of the row cover it.
 */
function allocateBand<V extends ChunkValues>(chunk: V, length: number, pool: BufferPool | undefined): V {
	if (pool === undefined || Array.isArray(chunk)) return allocateLike(chunk, length);
	const typed = chunk as Exclude<ChunkValues, string[]>;
	const Ctor = typed.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => V;
	return new Ctor(pool.acquire(length * typed.BYTES_PER_ELEMENT).buffer as ArrayBuffer, 0, length);
}

/** How N-d bands are assembled (see readBands). */
export interface BandAssembly {
	/** Bands are taken from it, and each chunk goes back to it once copied into its last band. */
	readonly bufferPool?: BufferPool;
	/** Rows per band at most (default: a row of chunks); a band of a 1-D array is a whole chunk all the same. */
	readonly maxRows?: number;
	/** The array's share of its table's read-ahead budget (see readChunksInOrder). */
	readonly readAhead?: ReadAheadShare;
	/**
	 * A 1-D array's chunks handed on count against its chunks in flight until they come back to the pool, when the
	 * output hands written buffers back (see HandedOnChunks). For an export of one array: a table's other columns
	 * may convert a chunk into other memory, and its chunk would count until collected.
	 */
	readonly countHandedOn?: boolean;
	/** Rows of chunks the source can stream are streamed (see streamed-bands.ts); false for the rows it reads whole. */
	readonly streamRows?: boolean;
	/**
	 * A 1-D array whose source reads shards as chunks (ChunkSource.shardBands) is read so, a band a shard: what an
	 * export's table reader asks, for a record batch a shard.
	 */
	readonly shards?: boolean;
}

/**
 * Bands of rows in C order of an array: a 1-D chunk is a band by itself (no copy); for N-d arrays the chunks of
 * one row of chunks along the first axis are read, then copied into bands of at most `maxRows` rows (flat copies of
 * the runs contiguous in both). With `rows`, only the chunks holding those rows are read, and the first and last
 * bands are cut to them. Cut bands hold less memory than a whole row of chunks copied at once: a band written and
 * handed back to the pool is the memory of the next, while the row's chunks are copied.
 *
 * With a pool, a row of several whole chunks is first rearranged in place into C order (arrangeRowInCOrder): each
 * chunk then goes back to the pool once the bands have passed it, instead of all of them after the row's last band,
 * and the next row's chunks are read into them as they come back. A row and the next then hold a row of chunks, where
 * they held a row and the chunks read ahead (the bench's 3-D zstd store, five chunks of 8 MB a row, two read ahead:
 * 140 -> 125 MiB peak RSS, same CPU).
 */
export async function* readBands<V extends ChunkValues>(
	source: ChunkSource<V>,
	shape: readonly number[],
	concurrency: number | ReadLimits,
	signal: AbortSignal,
	onChunk?: (chunkIndex: number, totalChunks: number) => void,
	mayReadAhead?: () => boolean,
	rows?: RowRange,
	assembly: BandAssembly = {},
): AsyncGenerator<ValueBand<V>> {
	if (shape.length === 0) {
		const chunk = await source.read([], signal);
		yield { values: sliceValues(chunk, 0, 1), offset: 0, firstRow: 0 };
		return;
	}
	if (shape.length === 1 && assembly.shards === true && source.shardBands !== undefined) {
		yield* shardBands(source, source.shardBands, shape, concurrency, signal, onChunk, mayReadAhead, rows, assembly);
		return;
	}
	const grid = source.gridShape;
	const chunkShape = source.chunkShape;
	const chunkRows = chunkShape[0];
	const bandRange = rows === undefined ? { start: 0, end: grid[0] } : chunkRowsOf(chunkRows, rows);
	const total = (bandRange.end - bandRange.start) * product(grid.slice(1));
	if (total === 0 || product(shape) === 0) return;
	const { bufferPool } = assembly;
	const step = Math.max(1, Math.min(chunkRows, assembly.maxRows ?? chunkRows));
	if (bufferPool !== undefined && shape.length > 1 && source.streamedRow !== undefined && assembly.streamRows !== false) {
		const whole = { ...assembly, streamRows: false };
		yield* streamedBands(source, shape, step, bandRange, rows, bufferPool, signal, onChunk, (range, counted) =>
			readBands(source, shape, concurrency, signal, counted, mayReadAhead, range, whole),
		);
		return;
	}
	const rowSize = product(shape.slice(1));
	const chunkRowSize = product(chunkShape.slice(1));
	const chunksPerRow = product(grid.slice(1));
	// A row of several chunks, whole and within the array, is rearranged in place when there is a pool to hand its
	// chunks back to (see arrangeRowInCOrder). The next row's chunks are then read into the chunks handed back, no
	// sooner: while such a row is read and its bands copied, reads ahead of later rows start only as its chunks come
	// back (`later` of them started, at most `handedBack`); other rows read ahead as far as the reads ahead allow.
	const mayArrange = bufferPool !== undefined && chunksPerRow > 1 && shape.slice(1).every((length, k) => length % chunkShape[k + 1] === 0);
	let currentRow = bandRange.start;
	let handedBack = Number.POSITIVE_INFINITY;
	let later = 0;
	// A 1-D array's chunks pass on whole: counted until they come back, when an output that hands them back exists.
	const counting = shape.length === 1 && assembly.countHandedOn === true && bufferPool !== undefined ? countingHandedOn(bufferPool, concurrency) : undefined;
	const control: ReadAheadControl = counting ?? {
		allows: (coords) => {
			if (coords[0] <= currentRow) return true;
			if (later >= handedBack) return false;
			later++;
			return true;
		},
	};
	// Runs of missing chunks are read as one band each (a sparse array of tiny chunks): a 1-D array's, and an N-d
	// array's whole rows of chunks (a time axis written ahead).
	const chunks = readChunksInOrder(source, concurrency, signal, mayReadAhead, bandRange, control, assembly.readAhead, true);
	const handBack = (data: V) => {
		const copied = bytesOf(data);
		if (copied !== undefined) bufferPool!.release(copied);
	};
	let decoded = 0;
	try {
		for (let chunkRow = bandRange.start; chunkRow < bandRange.end; chunkRow++) {
			const firstRow = chunkRow * chunkRows;
			const rowsHere = Math.min(chunkRows, shape[0] - firstRow);
			const from = rows === undefined ? firstRow : Math.max(firstRow, rows.start);
			const to = rows === undefined ? firstRow + rowsHere : Math.min(firstRow + rowsHere, rows.end);
			const row: { coords: number[]; data: V; count: number }[] = [];
			const arrangeable = mayArrange && rowsHere === chunkRows;
			currentRow = chunkRow;
			later = 0;
			handedBack = arrangeable ? 0 : Number.POSITIVE_INFINITY;
			for (let k = 0; k < chunksPerRow; k++) {
				const chunk = (await chunks.next()).value as { coords: number[]; data: V; count: number };
				row.push(chunk);
				for (let c = 0; c < chunk.count; c++) onChunk?.(++decoded, total);
				// Whole rows of missing chunks read as one (ChunkSource.missingRun): nothing else of this row comes.
				if (chunk.count > 1) break;
			}
			if (shape.length > 1 && row[0].count > 1) {
				// Rows of chunks all missing: one band of the fill value over their rows, cut as the last one's are.
				const runRows = row[0].count / chunksPerRow;
				const runEnd = Math.min(shape[0], (chunkRow + runRows) * chunkRows, rows === undefined ? shape[0] : rows.end);
				chunkRow += runRows - 1;
				currentRow = chunkRow;
				if (handedBack !== Number.POSITIVE_INFINITY) {
					handedBack = Number.POSITIVE_INFINITY;
					control.resume?.();
				}
				yield { values: sliceValues(row[0].data, 0, (runEnd - from) * rowSize), offset: from * rowSize, firstRow: from };
				continue;
			}
			if (shape.length === 1) {
				// A run of missing chunks read as one: its rows are those of its `count` chunks, cut as the last one's are.
				const runEnd = row[0].count === 1 ? to : Math.min(shape[0], (chunkRow + row[0].count) * chunkRows, rows === undefined ? shape[0] : rows.end);
				chunkRow += row[0].count - 1;
				// The chunk's rows before and after those asked for (a range's first and last chunks) are no band's: said
				// dead now, its buffer comes back once the band is written.
				const data = row[0].data;
				if (bufferPool !== undefined && !Array.isArray(data)) {
					const typed = data as Exclude<ChunkValues, string[]>;
					releaseRowBytesOutside(bufferPool, typed, typed.BYTES_PER_ELEMENT, from - firstRow, runEnd - firstRow);
				}
				yield { values: sliceValues(row[0].data, from - firstRow, runEnd - firstRow), offset: from, firstRow: from };
				continue;
			}
			if (arrangeable && arrangeRowInCOrder(row.map(({ data }) => data), row.map(({ coords }) => coords), chunkShape, shape, rowsHere, bufferPool)) {
				yield* bandsOfArrangedRow(row.map(({ data }) => data), firstRow, from, to, step, rowSize, bufferPool!, (data) => {
					handBack(data);
					handedBack++;
					control.resume?.();
				});
				continue;
			}
			// Not rearranged (strings, a partial row): its chunks come back after its last band, and the next row reads ahead.
			if (handedBack === 0) {
				handedBack = Number.POSITIVE_INFINITY;
				control.resume?.();
			}
			for (let start = from; start < to; start += step) {
				const end = Math.min(to, start + step);
				const bandShape = [end - start, ...shape.slice(1)];
				const band = allocateBand(row[0].data, (end - start) * rowSize, bufferPool);
				// Rows [start, end) of each chunk: a C-order chunk of `end - start` rows, placed at its column offset.
				const [a, b] = [start - firstRow, end - firstRow];
				for (const { coords, data } of row) {
					copyChunkIntoBand(sliceValues(data, a * chunkRowSize, b * chunkRowSize), [b - a, ...chunkShape.slice(1)], [0, ...coords.slice(1)], band, bandShape, bandShape);
				}
				if (end === to && bufferPool !== undefined) for (const { data } of row) handBack(data);
				yield { values: band, offset: start * rowSize, firstRow: start };
			}
		}
	} finally {
		counting?.close();
	}
}

/**
 * The bands of rows [from, to) of a row of chunks rearranged in C order (arrangeRowInCOrder), the row starting at
 * array row `firstRow`: each band copied from the chunks it spans, and each chunk given to `handBack` as soon as
 * the bands have passed it (all that remain after the last band).
 */
function* bandsOfArrangedRow<V extends ChunkValues>(
	chunks: readonly V[],
	firstRow: number,
	from: number,
	to: number,
	step: number,
	rowSize: number,
	bufferPool: BufferPool,
	handBack: (data: V) => void,
): Generator<ValueBand<V>> {
	const chunkValues = chunks[0].length;
	let next = 0;
	for (let start = from; start < to; start += step) {
		const end = Math.min(to, start + step);
		const band = allocateBand(chunks[0], (end - start) * rowSize, bufferPool);
		const [first, last] = [(start - firstRow) * rowSize, (end - firstRow) * rowSize];
		for (let at = first; at < last; ) {
			const k = Math.floor(at / chunkValues);
			const upTo = Math.min(last, (k + 1) * chunkValues);
			copyValues(chunks[k], at - k * chunkValues, upTo - k * chunkValues, band, at - first);
			at = upTo;
		}
		const passed = end === to ? chunks.length : Math.floor(last / chunkValues);
		for (; next < passed; next++) handBack(chunks[next]);
		yield { values: band, offset: start * rowSize, firstRow: start };
	}
	for (; next < chunks.length; next++) handBack(chunks[next]);
}

/**
 * How the inner chunks of a 1-D sharded array fall in its shards for the rows read: inner chunks a shard (`per`), the
 * rows of an inner chunk and of a shard, the inner chunks the rows need (`inner`, [start, end) over the array), and `innerOf(shard)`, those
 * of one shard as [start, end) within it.
 */
function shardLayout<V extends ChunkValues>(source: ChunkSource<V>, shards: ShardBands<V>, rows: RowRange | undefined) {
	const per = shards.innerPerShard;
	const innerRows = source.chunkShape[0];
	const inner = rows === undefined ? { start: 0, end: source.gridShape[0] } : chunkRowsOf(innerRows, rows);
	const innerOf = (shard: number) => ({ start: Math.max(0, inner.start - shard * per), end: Math.min(per, inner.end - shard * per) });
	return { per, innerRows, inner, shardRows: innerRows * per, innerOf };
}

/**
 * The bands of a 1-D sharded array read a shard at a time (ChunkSource.shardBands), within `rows` (the first and last
 * shards cut to them). Its limits count shards: as many in flight as inner chunks would be, a tenth of them for shards
 * of ten inner chunks, and at least the two chunk buffers that keep a decode thread busy (no more than `limits` asks).
 * `onChunk` is told of each inner chunk, as when they are read one by one. An array exported alone hands a shard's
 * values on by runs of its inner chunks as they are decoded (handedOnByRun); a table's columns, read side by side
 * within their read-ahead budget, read each shard as a chunk of readBands, one band of it.
 */
async function* shardBands<V extends ChunkValues>(
	source: ChunkSource<V>,
	shards: ShardBands<V>,
	shape: readonly number[],
	limits: number | ReadLimits,
	signal: AbortSignal,
	onChunk: ((chunkIndex: number, totalChunks: number) => void) | undefined,
	mayReadAhead: (() => boolean) | undefined,
	rows: RowRange | undefined,
	assembly: BandAssembly,
): AsyncGenerator<ValueBand<V>> {
	const { per, inner, shardRows, innerOf } = shardLayout(source, shards, rows);
	const view: ChunkSource<V> = {
		chunkShape: [shardRows],
		gridShape: [Math.ceil(shape[0] / shardRows)],
		describe: (coords) => shards.describe(coords[0]),
		read: (coords, readSignal) => {
			const { start, end } = innerOf(coords[0]);
			return shards.read(coords[0], start, end, readSignal);
		},
	};
	const { requests, chunks } = readLimits(limits);
	const shardLimit = Math.max(Math.min(2, chunks), Math.floor(chunks / per));
	if (assembly.countHandedOn === true) {
		yield* handedOnByRun(source, shards, shape, shardLimit, signal, onChunk, mayReadAhead, rows, assembly.bufferPool);
		return;
	}
	const viewLimits: ReadLimits = { requests: Math.max(1, Math.min(requests, shardLimit)), chunks: shardLimit };
	const total = inner.end - inner.start;
	let decoded = 0;
	let next = Math.floor(inner.start / per);
	const counted =
		onChunk === undefined
			? undefined
			: () => {
					const { start, end } = innerOf(next++);
					for (let k = start; k < end; k++) onChunk(++decoded, total);
				};
	const share = assembly.readAhead === undefined ? undefined : { ...assembly.readAhead, chunkBytes: assembly.readAhead.chunkBytes * per };
	yield* readBands(view, shape, viewLimits, signal, counted, mayReadAhead, rows, { ...assembly, readAhead: share, shards: false });
}

/**
 * The bands of a 1-D sharded array whose shards are read as one buffer each (ShardBands.open), handed on as their
 * inner chunks are decoded: runs of one inner chunk, then two, four, ... up to a whole shard (cut to the shard's end),
 * each handed on once its inner chunks are decoded, in order (a failed one's error comes in its turn, named as when
 * read alone; no run holding it is handed on). The export then starts on the first inner chunk instead of the first
 * shard, and makes a record batch a shard from then on (20M values in shards of ten inner chunks: 23 batches where an
 * inner chunk each made 200). The runs are the same whatever the timing, so an export's file is the same with a
 * pool or without (a run as long as the inner chunks decoded when it is asked for made 170 batches of the 200 at
 * the bench, 2-4 MiB more at the peak, and files that differ by their batches run to run).
 *
 * Up to `shardLimit` shards are held at once, read and decoded ahead of the one handed on, so that the decode thread
 * does not wait for a read: with a pool whose written buffers come back, a shard counts until its buffer does (the
 * bytes a range leaves unused are said dead at once); otherwise until its last band is handed on. The shard waited
 * for is always read, after waiting for one back while the output is busy (as countingHandedOn does for chunks).
 */
async function* handedOnByRun<V extends ChunkValues>(
	source: ChunkSource<V>,
	shards: ShardBands<V>,
	shape: readonly number[],
	shardLimit: number,
	signal: AbortSignal,
	onChunk: ((chunkIndex: number, totalChunks: number) => void) | undefined,
	mayReadAhead: (() => boolean) | undefined,
	rows: RowRange | undefined,
	pool: BufferPool | undefined,
): AsyncGenerator<ValueBand<V>> {
	const { per, innerRows, inner, shardRows, innerOf } = shardLayout(source, shards, rows);
	if (inner.end <= inner.start) return;
	const from = rows === undefined ? 0 : rows.start;
	const to = Math.min(shape[0], rows === undefined ? shape[0] : rows.end);
	const endShard = Math.ceil(inner.end / per);
	const total = inner.end - inner.start;
	// Asked at each shard: the output says so once it is built, after the first shard's reads have started.
	const counting = () => pool?.writtenComeBack === true;
	// The shards opened and not all handed on, in order; with `counting`, the buffers of the shards opened not back yet.
	const opened: OpenedShard<V>[] = [];
	const held = new Set<PoolBuffer>();
	let nextShard = Math.floor(inner.start / per);
	let closed = false;
	const openNext = () => {
		const shard = nextShard++;
		const { start, end } = innerOf(shard);
		const shardOpened = shards.open(shard, start, end, signal);
		opened.push(shardOpened);
		const all = shardOpened.values as unknown as BigInt64Array;
		if (pool?.isWhole(new Uint8Array(all.buffer, all.byteOffset, all.byteLength))) {
			held.add(all.buffer as PoolBuffer);
			// Values no band takes (before the rows asked for, or after them and the array's end) are dead now.
			const firstValue = shard * shardRows;
			const head = Math.max(0, from - firstValue);
			const tail = Math.max(head, Math.min(all.length, to - firstValue));
			if (head > 0) pool.release(new Uint8Array(all.buffer, all.byteOffset, head * 8));
			if (tail < all.length) pool.release(new Uint8Array(all.buffer, all.byteOffset + tail * 8, (all.length - tail) * 8));
		}
	};
	const openAhead = () => {
		while (!closed && !signal.aborted && nextShard < endShard && (counting() ? held.size : opened.length) < shardLimit) openNext();
	};
	// Woken by a shard's buffer back (see roomForWaited).
	let wake: (() => void) | undefined;
	const unsubscribe = pool?.onReturn((buffer) => {
		if (!held.delete(buffer)) return;
		wake?.();
		queueMicrotask(openAhead);
	});
	// The shard waited for, when the shards held are all handed on and not back while the output is busy, waits for
	// one back, looking again each millisecond (as readChunksInOrder's chunk waited for, see countingHandedOn).
	const roomForWaited = async () => {
		while (counting() && held.size >= shardLimit && mayReadAhead?.() === false && !signal.aborted) {
			await new Promise<void>((resolve) => {
				const timer = setTimeout(() => {
					wake = undefined;
					resolve();
				}, 1);
				wake = () => {
					clearTimeout(timer);
					wake = undefined;
					resolve();
				};
			});
		}
	};
	let decodedCount = 0;
	let runGoal = 1;
	try {
		for (let shard = nextShard; shard < endShard; shard++) {
			if (opened.length === 0) {
				await roomForWaited();
				if (signal.aborted) return;
				if (opened.length === 0) openNext();
			}
			openAhead();
			const shardOpened = opened[0];
			const { start, end } = innerOf(shard);
			for (let k = start; k < end; ) {
				const want = Math.min(end - k, runGoal);
				runGoal = Math.min(per, runGoal * 2);
				for (let w = k; w < k + want; w++) await shardOpened.parts[w - start];
				// A read that ended after the abort (a local file's, which does not heed the signal) hands nothing on.
				if (signal.aborted) return;
				const j = k + want;
				const run = valuesOfRun(shardOpened, innerRows, k, j);
				const runFirst = shard * shardRows + k * innerRows;
				const bandStart = Math.max(from, runFirst);
				const bandEnd = Math.min(to, shard * shardRows + j * innerRows);
				for (let c = k; c < j; c++) onChunk?.(++decodedCount, total);
				if (j === end) {
					opened.shift();
					openAhead();
				}
				k = j;
				const values = sliceValues(run, bandStart - runFirst, bandEnd - runFirst);
				// Its inner chunks decoded, nothing writes there any more, and this band is the only view of its bytes
				// handed on: the batch made of it may rewrite them where they are (the time filter's compaction).
				if (!Array.isArray(values)) pool?.markOwned(values as ArrayBufferView);
				yield { values, offset: bandStart, firstRow: bandStart };
			}
		}
	} finally {
		closed = true;
		unsubscribe?.();
	}
}
