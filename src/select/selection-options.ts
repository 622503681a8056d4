/**
 * The options of exports that select rows (`start`/`end`, `part`) or write a dataset folder (`partitionBy`),
 * checked and normalized once into their parts of the export plan (export-plan.ts). Nothing here loads Arrow.
 */
import { UsageError } from "../errors.js";
import { PARTITION_LEVELS, type PartitionLevel } from "../output/hive-partition.js";
import { parsePart, partFromEnvironment, type Part } from "./part.js";
import { parseTimeBounds, type TimeBounds } from "./time-bounds.js";

export interface SelectionOptions {
	/** Rows whose time is at or after this ISO 8601 instant (a zone offset is converted to UTC). */
	start?: string | undefined;
	/** Rows whose time is before this ISO 8601 instant. */
	end?: string | undefined;
	/** The datetime64 (or CF time) column that selects and partitions rows, when the table has several. */
	timeColumn?: string | undefined;
	/**
	 * Find the rows of `start`/`end` by a search over the time column's chunks (default true). false: read every row and
	 * filter, whatever the time's order, in one pass (no check of the time column, no search).
	 */
	rangeSearch?: boolean | undefined;
	/**
	 * Whether the time column is known sorted, for the search of `start`/`end`. Unset: the time column is read whole to
	 * check it first, whatever its length, on a remote store only when that takes at most 256 requests, a larger one
	 * being refused until this is set. true: it is searched without such a read, only the chunks the search reads and
	 * the rows exported checked (a time out of order in a chunk the search skips is not found). false: read whole
	 * however many requests it takes.
	 */
	timeSorted?: boolean | undefined;
	/** This process's part: `K/N` (0-based), `auto` (from a batch engine's environment), or a Part. */
	part?: string | Part | undefined;
	/** N for `part: "auto"` under Kubernetes, which does not export it. */
	parts?: number | undefined;
	/** The environment `part: "auto"` reads; process.env by default. */
	env?: NodeJS.ProcessEnv | undefined;
}

/** How the files of a dataset folder are written: DatasetOptions' own, which its plan (DatasetPlan) carries checked. */
export interface DatasetFileOptions {
	/** Write a dataset folder in Hive partitions of the time column. */
	partitionBy?: PartitionLevel | undefined;
	/** Rows per file at most; a partition with more rows gets several files. */
	maxRowsPerFile?: number | undefined;
	/** Files open at once at most (see OpenPartitions). */
	maxOpenFiles?: number | undefined;
	/**
	 * Hive partitions one run writes at most (see partition-bound.ts): an export whose rows fall in more is refused
	 * (TOO_LARGE) before the first partition past it gets a file, and before anything is read when `start` and `end`
	 * span more. Default: as many as the data has.
	 */
	maxPartitions?: number | undefined;
}

export interface DatasetOptions extends SelectionOptions, DatasetFileOptions {}

/**
 * The names of DatasetFileOptions, checked against it by the compiler (a name missing or extra does not build): the
 * plan carries each (planDataset), and an export of one file or stream refuses each (checkDatasetOptions).
 */
export const DATASET_OPTION_NAMES = Object.keys({ partitionBy: 0, maxRowsPerFile: 0, maxOpenFiles: 0, maxPartitions: 0 } satisfies Record<keyof DatasetFileOptions, 0>) as readonly (keyof DatasetFileOptions)[];

/** Which rows: the time range, the column it applies to, and this process's part. */
export interface SelectPlan {
	readonly bounds: TimeBounds;
	readonly timeColumn?: string;
	readonly part?: Part;
	/** false: every row is read and filtered, without a search (see SelectionOptions). */
	readonly rangeSearch: boolean;
	/** Whether the time column is known sorted; undefined: not said (see SelectionOptions). */
	readonly timeSorted?: boolean;
}

/** How a dataset folder is written: its options, checked (planDataset). */
export type DatasetPlan = Readonly<DatasetFileOptions>;

function checkCount(option: string, value: number | undefined): void {
	if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) throw new UsageError(`invalid ${option} ${value}: must be an integer from 1 to ${Number.MAX_SAFE_INTEGER} (2^53 - 1)`, { option, value });
}

/** Whether the options select rows or write a dataset (a plain export needs none of this). */
export function selectsRows(options: DatasetOptions): boolean {
	// rangeSearch alone selects nothing: it says how a range is found.
	return options.start !== undefined || options.end !== undefined || options.part !== undefined || options.partitionBy !== undefined;
}

/** Whether the options write a dataset folder rather than one file. */
export function writesDataset(options: DatasetOptions): boolean {
	return options.partitionBy !== undefined || options.part !== undefined;
}

/**
 * `parts` (the completions of a Kubernetes Indexed Job) goes with `part: "auto"` only: checked for every export,
 * whether or not it selects rows, so that one given alone is refused rather than ignored.
 */
export function checkPartsOption(options: Pick<SelectionOptions, "part" | "parts">): void {
	checkCount("parts", options.parts);
	if (options.parts !== undefined && options.part !== "auto") throw new UsageError("parts goes with `part` auto (a Kubernetes Indexed Job's completions)", { option: "parts" });
}

/** The selection part of the plan (checkPartsOption has checked `parts`). */
export function planSelection(options: SelectionOptions): SelectPlan {
	const bounds = parseTimeBounds(options.start, options.end);
	let part: Part | undefined;
	if (typeof options.part === "string") part = options.part.trim() === "auto" ? partFromEnvironment(options.env ?? process.env, options.parts) : parsePart(options.part);
	else if (options.part !== undefined) part = parsePart(`${options.part.index}/${options.part.count}`);
	if (options.rangeSearch !== undefined && typeof options.rangeSearch !== "boolean") {
		throw new UsageError(`invalid rangeSearch ${JSON.stringify(options.rangeSearch)}: true or false`, { option: "rangeSearch", value: options.rangeSearch });
	}
	if (options.timeSorted !== undefined && typeof options.timeSorted !== "boolean") {
		throw new UsageError(`invalid timeSorted ${JSON.stringify(options.timeSorted)}: true or false`, { option: "timeSorted", value: options.timeSorted });
	}
	return { bounds, timeColumn: options.timeColumn, part, rangeSearch: options.rangeSearch ?? true, timeSorted: options.timeSorted };
}

/** The dataset part of the plan; `format` is the plan's output format. */
export function planDataset(options: DatasetOptions, format: string): DatasetPlan {
	if (format === "arrow-stream") throw new UsageError("a dataset folder holds Parquet or Arrow IPC files, not IPC streams", { option: "format", value: format });
	if (options.partitionBy !== undefined && !PARTITION_LEVELS.includes(options.partitionBy)) {
		throw new UsageError(`invalid partitionBy ${JSON.stringify(options.partitionBy)}: choose one of ${PARTITION_LEVELS.join(", ")}`, { option: "partitionBy", value: options.partitionBy });
	}
	checkCount("maxRowsPerFile", options.maxRowsPerFile);
	checkCount("maxOpenFiles", options.maxOpenFiles);
	checkCount("maxPartitions", options.maxPartitions);
	if (options.maxPartitions !== undefined && options.partitionBy === undefined) {
		throw new UsageError("maxPartitions bounds the Hive partitions of `partitionBy`, and is given without it", { option: "maxPartitions" });
	}
	return Object.fromEntries(DATASET_OPTION_NAMES.map((name) => [name, options[name]])) as DatasetPlan;
}
