/**
 * The options of exports that select rows (`--start/--end`, `--part`) or write a dataset folder (`--partition-by`),
 * checked and normalized once, before any store is opened. Nothing here loads Arrow.
 */
import { UsageError } from "../errors.js";
import { checkInteger } from "../cli/check-integer.js";
import { normalizeExportOptions, type TableExportOptions } from "../export-setup.js";
import { PARTITION_LEVELS, type PartitionLevel } from "../output/hive-partition.js";
import { parsePart, partFromEnvironment, type Part } from "./part.js";
import { parseTimeBounds, type TimeBounds } from "./time-bounds.js";

export interface SelectionOptions extends TableExportOptions {
	/** Rows whose time is at or after this ISO 8601 instant (a zone offset is converted to UTC). */
	start?: string;
	/** Rows whose time is before this ISO 8601 instant. */
	end?: string;
	/** The datetime64 column that selects (and partitions) rows, when the table has several. */
	timeColumn?: string;
	/** This process's part: `K/N` (0-based), `auto` (from a batch engine's environment), or a Part. */
	part?: string | Part;
	/** N for `part: "auto"` under Kubernetes, which does not export it. */
	parts?: number;
	/** The environment `part: "auto"` reads; process.env by default. */
	env?: NodeJS.ProcessEnv;
}

export interface DatasetOptions extends SelectionOptions {
	partitionBy?: PartitionLevel;
	/** Rows per file at most; a partition with more rows gets several files. */
	maxRowsPerFile?: number;
	/** Files open at once at most (see OpenPartitions). */
	maxOpenFiles?: number;
	/** Replace the dataset a folder export (without `part`) finds in its folder. */
	overwrite?: boolean;
}

export interface NormalizedSelection {
	readonly bounds: TimeBounds;
	readonly timeColumn?: string;
	readonly part?: Part;
}

/** Checks the selection options, before any store is opened. */
export function normalizeSelectionOptions(options: SelectionOptions): NormalizedSelection {
	const bounds = parseTimeBounds(options.start, options.end);
	if (options.parts !== undefined) checkInteger("--parts", options.parts, 1);
	let part: Part | undefined;
	if (typeof options.part === "string") part = options.part.trim() === "auto" ? partFromEnvironment(options.env ?? process.env, options.parts) : parsePart(options.part);
	else if (options.part !== undefined) part = parsePart(`${options.part.index}/${options.part.count}`);
	if (options.parts !== undefined && options.part !== "auto") throw new UsageError("--parts goes with --part auto (a Kubernetes Indexed Job's completions)");
	return { bounds, timeColumn: options.timeColumn, part };
}

/** Whether the options ask for anything this module does (a plain export needs none of it). */
export function selectsRows(options: DatasetOptions): boolean {
	return options.start !== undefined || options.end !== undefined || options.part !== undefined || options.partitionBy !== undefined;
}

/** Whether the options write a dataset folder rather than one file. */
export function writesDataset(options: DatasetOptions): boolean {
	return options.partitionBy !== undefined || options.part !== undefined;
}

/** Checks the dataset options, before any store is opened. */
export function normalizeDatasetOptions(options: DatasetOptions): NormalizedSelection {
	const normalized = normalizeSelectionOptions(options);
	const { format } = normalizeExportOptions(options);
	if (format === "arrow-stream") throw new UsageError("a dataset folder holds Parquet or Arrow IPC files (--to parquet or arrow), not IPC streams");
	if (options.partitionBy !== undefined && !PARTITION_LEVELS.includes(options.partitionBy)) {
		throw new UsageError(`invalid partition level ${JSON.stringify(options.partitionBy)}: choose one of ${PARTITION_LEVELS.join(", ")}`);
	}
	if (options.maxRowsPerFile !== undefined) checkInteger("--max-rows-per-file", options.maxRowsPerFile, 1);
	if (options.maxOpenFiles !== undefined) checkInteger("maxOpenFiles", options.maxOpenFiles, 1);
	return normalized;
}
