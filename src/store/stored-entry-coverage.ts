import { crc32Combine } from "./crc32-combine.js";

/** A run of an entry's bytes read so far, [start, end), and the CRC-32 of those bytes. */
interface ReadRun {
	start: number;
	end: number;
	crc: number;
}

/**
 * Runs kept per entry at most: a shard read in many separate pieces (a selection of inner chunks far apart) stops
 * being followed past them, and is not checked (its bytes were not all read anyway, most likely).
 */
export const MAX_RUNS_PER_ENTRY = 4096;

/**
 * The parts of a stored (uncompressed) zip entry read so far by ranges, each with the CRC-32 of its bytes, so that
 * the entry's CRC-32 can be checked once all of its bytes have been read, whatever the order and overlap of the
 * ranges (a shard's index from the end, then its inner chunks): a new range adds only the bytes no earlier range
 * covered, and adjacent runs are joined by crc32Combine, so a shard read in order is one run. Bytes read again are
 * not checked again: the CRC-32 speaks for the bytes as first read.
 */
export class StoredEntryCoverage {
	readonly #runs = new Map<string, ReadRun[]>();
	/** Entries whose CRC-32 was checked (or that are no longer followed): their ranges are not followed. */
	readonly #done = new Set<string>();

	/**
	 * Adds the bytes of `name` read at `offset` (`bytes`, of an entry of `size` bytes); returns the CRC-32 of the
	 * whole entry when this read completes it (once per entry), undefined otherwise.
	 */
	add(name: string, size: number, offset: number, bytes: Uint8Array, crc32: (bytes: Uint8Array) => number): number | undefined {
		if (bytes.length === 0 || this.#done.has(name)) return undefined;
		let runs = this.#runs.get(name);
		if (runs === undefined) {
			runs = [];
			this.#runs.set(name, runs);
		}
		const end = offset + bytes.length;
		// The parts of [offset, end) between the runs already read, each a new run.
		let at = offset;
		let index = 0;
		while (at < end) {
			while (index < runs.length && runs[index]!.end <= at) index++;
			const next = runs[index];
			if (next !== undefined && next.start <= at) {
				at = next.end;
				continue;
			}
			const stop = next === undefined ? end : Math.min(end, next.start);
			runs.splice(index, 0, { start: at, end: stop, crc: crc32(bytes.subarray(at - offset, stop - offset)) });
			at = stop;
		}
		joinAdjacent(runs);
		if (runs.length > MAX_RUNS_PER_ENTRY) return this.#finish(name);
		const first = runs[0]!;
		if (runs.length !== 1 || first.start !== 0 || first.end !== size) return undefined;
		this.#finish(name);
		return first.crc;
	}

	#finish(name: string): undefined {
		this.#runs.delete(name);
		this.#done.add(name);
		return undefined;
	}
}

/** Joins runs that touch into one, their CRC-32s combined. */
function joinAdjacent(runs: ReadRun[]): void {
	let kept = 0;
	for (let i = 1; i < runs.length; i++) {
		const last = runs[kept]!;
		const run = runs[i]!;
		if (run.start === last.end) {
			last.crc = crc32Combine(last.crc, run.crc, run.end - run.start);
			last.end = run.end;
		} else runs[++kept] = run;
	}
	runs.length = Math.min(runs.length, kept + 1);
}
