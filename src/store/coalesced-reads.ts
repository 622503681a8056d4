/** A read of `length` bytes at `offset` of one file or object. */
export type ReadRange = (offset: number, length: number, signal: AbortSignal | undefined) => Promise<Uint8Array>;

/** Bytes between two ranges read with them rather than apart: less than a request's own cost over HTTP, a page locally. */
const MAX_GAP_BYTES = 4096;

/** The most bytes one coalesced read spans: what it holds alive while any of its ranges is in use. */
const MAX_COALESCED_BYTES = 4 * 2 ** 20;

interface WaitingRead {
	readonly offset: number;
	readonly length: number;
	readonly signal: AbortSignal | undefined;
	resolve(bytes: Uint8Array): void;
	reject(error: unknown): void;
}

/**
 * Ranges of one file asked for in the same turn of the event loop, read together: sorted, and those that are
 * adjacent or close (MAX_GAP_BYTES apart at most), under the same signal, read as one range of at most
 * MAX_COALESCED_BYTES, each then answered with its part of it. A zip written by zarr-python holds a store's chunks in
 * key order, so the chunks an export reads ahead lie side by side: 32 of them are one request instead of 32. A read
 * that fails fails every range it held, with its error.
 */
export class CoalescedReads {
	#waiting: WaitingRead[] = [];
	#scheduled = false;

	constructor(readonly readRange: ReadRange) {}

	read(offset: number, length: number, signal: AbortSignal | undefined): Promise<Uint8Array> {
		return new Promise((resolve, reject) => {
			this.#waiting.push({ offset, length, signal, resolve, reject });
			if (this.#scheduled) return;
			this.#scheduled = true;
			setImmediate(() => this.#flush());
		});
	}

	#flush(): void {
		this.#scheduled = false;
		const waiting = this.#waiting.sort((a, b) => a.offset - b.offset);
		this.#waiting = [];
		let run: WaitingRead[] = [];
		let runEnd = 0;
		for (const read of waiting) {
			const end = read.offset + read.length;
			const joins = run.length > 0 && read.signal === run[0].signal && read.offset <= runEnd + MAX_GAP_BYTES && Math.max(runEnd, end) - run[0].offset <= MAX_COALESCED_BYTES;
			if (!joins) {
				this.#issue(run, runEnd);
				run = [];
				runEnd = 0;
			}
			run.push(read);
			runEnd = Math.max(runEnd, end);
		}
		this.#issue(run, runEnd);
	}

	#issue(run: readonly WaitingRead[], end: number): void {
		if (run.length === 0) return;
		const start = run[0].offset;
		this.readRange(start, end - start, run[0].signal).then(
			(bytes) => {
				for (const read of run) read.resolve(bytes.subarray(read.offset - start, read.offset - start + read.length));
			},
			(error: unknown) => {
				for (const read of run) read.reject(error);
			},
		);
	}
}
