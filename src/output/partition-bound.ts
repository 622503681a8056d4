/**
 * `maxPartitions`: how many Hive partitions (folders of `partitionBy`) one run may write. The count is the data's,
 * one folder per distinct year, month, day or hour, so a store someone else made decides it (100,000 rows a year
 * apart are 100,000 folders). A bound refuses such an export as soon as it is known to pass it: before anything is
 * read when `start` and `end` span more partitions, else before the file of the first partition past it is opened.
 */
import { floorDiv } from "../convert/bigint-division.js";
import { civilFromDays } from "../convert/calendar.js";
import { Dt64ExportError } from "../errors.js";
import { ATTOSECONDS_PER_SECOND, type TimeBounds } from "../select/time-bounds.js";
import type { PartitionLevel } from "./hive-partition.js";

/** The partition of `level` that holds `seconds` since 1970-01-01, numbered from that of 1970 on. */
function partitionNumber(seconds: bigint, level: PartitionLevel): bigint {
	const days = floorDiv(seconds, 86_400n);
	if (level === "day") return days;
	if (level === "hour") return floorDiv(seconds, 3_600n);
	const [year, month] = civilFromDays(days);
	return level === "year" ? year : year * 12n + BigInt(month - 1);
}

/** The partitions of `level` the range [start, end) spans, first and last included; undefined for an open range. */
export function partitionsSpanned(bounds: TimeBounds, level: PartitionLevel): bigint | undefined {
	if (bounds.start === undefined || bounds.end === undefined) return undefined;
	const first = floorDiv(bounds.start, ATTOSECONDS_PER_SECOND);
	const last = floorDiv(bounds.end - 1n, ATTOSECONDS_PER_SECOND);
	return partitionNumber(last, level) - partitionNumber(first, level) + 1n;
}

const HOW_TO_FIT = "raise `maxPartitions`, partition by a coarser level, or export a narrower time range (`start`, `end`)";

/**
 * Refuses, before anything is read, a time range that spans more partitions than the bound: the rows it selects
 * could fill them all. (A range of sparse data, monthly times by day, may write fewer: the bound is on the range then.)
 */
export function checkPartitionsSpanned(bounds: TimeBounds, level: PartitionLevel, maxPartitions: number): void {
	const spanned = partitionsSpanned(bounds, level);
	if (spanned === undefined || spanned <= BigInt(maxPartitions)) return;
	throw new Dt64ExportError(
		"TOO_LARGE",
		`the time range [\`start\`, \`end\`) spans ${spanned} partitions by ${level}, more than the ${maxPartitions} \`maxPartitions\` allows: ${HOW_TO_FIT}`,
		{ option: "maxPartitions", value: maxPartitions },
	);
}

/** The partitions a run has routed rows to, refusing the first one past the bound (before its file is opened). */
export class PartitionCount {
	readonly #seen = new Set<string>();

	constructor(
		readonly maxPartitions: number,
		readonly level: PartitionLevel,
		readonly folder: string,
	) {}

	note(partition: string): void {
		if (this.#seen.has(partition)) return;
		if (this.#seen.size >= this.maxPartitions) {
			throw new Dt64ExportError(
				"TOO_LARGE",
				`${this.folder}: the rows fall in more than ${this.maxPartitions} partitions by ${this.level}, the \`maxPartitions\` bound (${partition} would be one more): ${HOW_TO_FIT}`,
				{ path: this.folder, option: "maxPartitions", value: this.maxPartitions },
			);
		}
		this.#seen.add(partition);
	}
}
