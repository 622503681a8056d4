/**
 * An export's summary as JSON on stdout (`--json`), for the job that ran it: what a scheduler or a script records
 * without parsing the line on stderr, whose counts have thousands separators. The data goes to a file or folder,
 * so stdout holds this document alone.
 */
import type { DatasetExportSummary } from "../export-selection.js";
import type { OutputFormat } from "../export-plan.js";
import type { OverflowNulls } from "../convert/overflow-nulls.js";
import type { ZarrTable } from "../open-table.js";
import type { RefusedNode } from "../store/refused-nodes.js";
import { writeToStdout } from "./closed-reader.js";

export interface FileExportJson {
	readonly output: string;
	readonly format: OutputFormat;
	readonly rows: number;
	readonly overflowNulls: OverflowNulls;
	/** With `--forbidden-as-missing`: the chunks answered 403 AccessDenied that were read as missing (the fill value). */
	readonly forbiddenChunks?: number;
	/** With `--drop-invalid-dates`: the rows left out because their time coordinate held a date that does not exist. */
	readonly droppedInvalidDates?: number;
	/** The nodes whose metadata is refused, not searched for the time array found without `--array` (see refused-nodes.ts). */
	readonly refusedNodes?: readonly RefusedNode[];
}

/** The summary's `refusedNodes`, when the table was found beside some. */
export function refusedNodesJson(table: ZarrTable | undefined): Pick<FileExportJson, "refusedNodes"> {
	const nodes = table?.refusedNodes ?? [];
	return nodes.length === 0 ? {} : { refusedNodes: nodes };
}

export interface DatasetExportJson extends FileExportJson {
	readonly files: number;
	/** Hive partition folders written to; 0 without `--partition-by`. */
	readonly partitions: number;
	readonly part: { readonly index: number; readonly count: number };
	/** The part's manifest, relative to the folder. */
	readonly manifest: string;
	/** A whole export commits itself (`_SUCCESS`); a part leaves that to `dt64-export commit`. */
	readonly committed: boolean;
	/** Why every row was read and filtered, when the time column is not sorted. */
	readonly unsortedTime: string | null;
}

/** The partition folders of a dataset's files: each file's path up to its name. */
export function partitionCount(files: DatasetExportSummary["files"]): number {
	return new Set(files.flatMap((file) => (file.path.includes("/") ? [file.path.slice(0, file.path.lastIndexOf("/"))] : []))).size;
}

export function datasetExportJson(folder: string, format: OutputFormat, summary: DatasetExportSummary, table: ZarrTable | undefined): DatasetExportJson {
	return {
		output: folder,
		format,
		rows: summary.rows,
		overflowNulls: summary.overflowNulls,
		...(summary.forbiddenChunks === undefined ? {} : { forbiddenChunks: summary.forbiddenChunks }),
		...(summary.droppedInvalidDates === undefined ? {} : { droppedInvalidDates: summary.droppedInvalidDates }),
		files: summary.files.length,
		partitions: partitionCount(summary.files),
		part: { index: summary.part.index, count: summary.part.count },
		manifest: summary.manifest,
		committed: summary.committed !== undefined,
		unsortedTime: summary.selection.unsortedReason ?? null,
		...refusedNodesJson(table),
	};
}

/** Writes the summary on stdout, as `inspect --json` and `commit --json` write theirs: tab-indented, one newline. */
export function writeJsonSummary(summary: FileExportJson | DatasetExportJson): Promise<void> {
	return writeToStdout(`${JSON.stringify(summary, null, "\t")}\n`);
}
