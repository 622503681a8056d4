/**
 * The rows a dataset writer holds in memory per partition until it writes them, as copies (see CopiedRows), and the
 * memory they take together, which the writer keeps within a budget by writing out the largest.
 */
import type { RecordBatch, Schema } from "apache-arrow";
import { CopiedRows } from "../arrow/copied-rows.js";
import type { TimeRange } from "./open-partitions.js";

/**
 * The memory held rows may take by default. Unsorted time is written one file per partition as long as all its rows
 * fit here: 64 MiB is a million rows of four 64-bit columns even with the room to grow (CopiedRows doubles). Beyond
 * it, each write of the largest partition holds at least 1/P of it (P partitions held), so the files stay in
 * proportion to the rows whatever their order. And it is of the order of what the open files hold already (a row
 * group each, in WebAssembly): an export's memory stays bounded whatever the number and the order of its rows.
 */
export const DEFAULT_BUFFER_BYTES = 64 * 1024 * 1024;

export interface HeldRows {
	/** The times the partition holds; undefined for the partition of rows without a time. */
	readonly range: TimeRange | undefined;
	readonly rows: CopiedRows;
}

export class PartitionBuffers {
	/** In the order the partitions were first held since last written. */
	readonly #held = new Map<string, HeldRows>();
	#bytes = 0;

	constructor(readonly schema: Schema) {}

	/** The memory the rows held take, all partitions together. */
	get bytes(): number {
		return this.#bytes;
	}

	/** Copies rows [from, to) of `batch`, all of `partition`, after the rows held for it; returns the rows held for it now. */
	add(partition: string, range: TimeRange | undefined, batch: RecordBatch, from: number, to: number): number {
		let held = this.#held.get(partition);
		if (held === undefined) {
			held = { range, rows: new CopiedRows(this.schema) };
			this.#held.set(partition, held);
			this.#bytes += held.rows.bytes;
		}
		this.#bytes += held.rows.append(batch, from, to);
		return held.rows.rows;
	}

	/** Hands over the rows held for `partition`, and forgets them. */
	take(partition: string): HeldRows | undefined {
		const held = this.#held.get(partition);
		if (held === undefined) return undefined;
		this.#held.delete(partition);
		this.#bytes -= held.rows.bytes;
		return held;
	}

	/** The partition whose rows take the most memory. */
	largest(): string | undefined {
		let largest: string | undefined;
		let bytes = -1;
		for (const [partition, held] of this.#held) {
			if (held.rows.bytes > bytes) [largest, bytes] = [partition, held.rows.bytes];
		}
		return largest;
	}

	/** The partitions holding rows, in the order they were first held. */
	partitions(): string[] {
		return [...this.#held.keys()];
	}
}
