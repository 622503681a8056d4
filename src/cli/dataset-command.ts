/**
 * The CLI's dataset exports (`--partition-by`, `--part`: `-o` names a folder) and `dt64-export commit <folder>`.
 */
import { isDt64ExportError, UsageError } from "../errors.js";
import type { Schema } from "apache-arrow";
import type { ExportPlan } from "../export-plan.js";
import type { ZarrTable } from "../open-table.js";
import type { FoundLock } from "../output/part-lock.js";
import { removePendingTempFiles, type StrayTemporaryFile } from "../output/atomic-file.js";
import { countText } from "./count-text.js";
import { exitOnInterrupt } from "./interrupt.js";
import { forbiddenChunksNotice, forbiddenChunksWarning } from "./forbidden-chunks-notice.js";
import { overflowNullsText } from "./overflow-notice.js";
import { droppedDatesNotice, droppedDatesText } from "./dropped-dates-notice.js";
import { datasetExportJson, partitionCount, writeJsonSummary } from "./export-summary.js";
import { writeToStdout } from "./closed-reader.js";
import type { Progress } from "./progress.js";
import type { DatasetExportSummary } from "../export-selection.js";
import { writeStderrLine } from "./stderr-line.js";

const plural = (count: number, word: string) => `${countText(count)} ${word}${count === 1 ? "" : "s"}`;

export async function runDatasetExport(
	store: string,
	folder: string | undefined,
	plan: ExportPlan,
	options: { quiet: boolean; json: boolean; overwrite: boolean; breakLock: boolean },
	planned: (table: ZarrTable, schema: Schema, rows: number) => void,
	progress: () => Progress | undefined,
): Promise<void> {
	if (folder === undefined || folder === "" || folder === "-") {
		if (plan.dataset?.partitionBy !== undefined) throw new UsageError("--partition-by writes a dataset folder: name it with -o <folder>");
		throw new UsageError("--part writes a dataset folder: name it with -o <folder>, or write the part's rows to stdout with -o -");
	}
	// Whatever ends the process before the export has finished (a signal, an error none of the export's own that
	// main's fail() reports, both exiting at once: no `finally` runs past process.exit) ends it as a failure does: the
	// files this run wrote and the folders it created are removed, the lock released (last: its folders are removed
	// once empty). After a finished export there is nothing left to undo.
	const { abandonUnfinishedDatasets } = await import("../output/dataset-writer.js");
	const { releaseHeldPartLocks, describeHolder } = await import("../output/part-lock.js");
	const undoUnfinished = () => {
		abandonUnfinishedDatasets();
		removePendingTempFiles();
		releaseHeldPartLocks();
	};
	process.once("exit", undoUnfinished);
	exitOnInterrupt(() => {
		progress()?.done();
		undoUnfinished();
	});
	const { exportPlannedDataset } = await import("../export-selection.js");
	const lockTakenOver = (lock: FoundLock) => {
		const holder = lock.holder === undefined ? `an unreadable lock (${lock.reason})` : `the lock of ${describeHolder(lock.holder)}`;
		const why = lock.state === "ended" ? "which has ended" : lock.state === "expired" ? `which has not renewed it for ${Math.round((lock.age ?? 0) / 60_000)} minutes` : "as --break-lock asks";
		writeStderrLine(`dt64-export: warning: part ${lock.part}: took over ${holder}, ${why} (${lock.file})`);
	};
	let schema: Schema | undefined;
	let openedTable: ZarrTable | undefined;
	const plannedWithSchema = (table: ZarrTable, written: Schema, rows: number) => {
		schema = written;
		openedTable = table;
		planned(table, written, rows);
	};
	let summary: DatasetExportSummary;
	try {
		summary = await exportPlannedDataset(store, folder, plan, { overwrite: options.overwrite, breakLock: options.breakLock }, { planned: plannedWithSchema, lockTakenOver });
	} catch (error) {
		// The error's line starts on a line of its own.
		progress()?.done();
		throw error;
	}
	progress()?.finish();
	const forbidden = forbiddenChunksNotice(openedTable?.store.forbiddenAsMissing);
	if (forbidden !== undefined) writeStderrLine(forbidden);
	const dropped = droppedDatesNotice(summary.droppedInvalidDates);
	if (dropped !== undefined) writeStderrLine(dropped);
	if (options.json) await writeJsonSummary(datasetExportJson(folder, plan.output.format, summary, openedTable));
	const { selection, part } = summary;
	// A scheduler sees the job green either way: a range upstream has not filled yet is said, even with --quiet.
	warnOfStrayMarkerFiles(summary.committed?.strayTemporaryFiles ?? []);
	if (summary.rows === 0) {
		const file = summary.files[0]?.path;
		writeStderrLine(`dt64-export: warning: part ${part.index}/${part.count} of ${folder} selected no rows${file === undefined ? "" : `: it wrote one file of no rows with the columns (${file}), which readers read as 0 rows`}`);
	}
	if (options.quiet) return;
	if (selection.unsortedReason !== undefined) writeStderrLine(`dt64-export: the time column is not sorted (${selection.unsortedReason}): every row was read and filtered`);
	if (options.json) return;
	const where = plan.dataset?.partitionBy === undefined ? "" : ` in ${plural(partitionCount(summary.files), "partition")}`;
	writeStderrLine(`wrote ${plural(summary.rows, "row")} to ${folder}: ${plural(summary.files.length, "file")}${where}, part ${part.index}/${part.count} (${summary.manifest})${overflowNullsText(summary.overflowNulls, schema)}${droppedDatesText(summary.droppedInvalidDates)}`);
	if (summary.committed !== undefined) writeStderrLine(`committed ${folder} (_SUCCESS)`);
}

export async function runCommit(folder: string, json: boolean, quiet = false): Promise<void> {
	const { commitDataset } = await import("../output/commit.js");
	let summary: Awaited<ReturnType<typeof commitDataset>>;
	try {
		summary = await commitDataset(folder);
	} catch (error) {
		// A script reading --json gets a document either way: not committed, and why (stderr has the same line).
		// The commit's own failure is the one reported: the document's write failing too adds nothing to it.
		if (json && isDt64ExportError(error)) await writeToStdout(`${JSON.stringify({ committed: false, error: { code: error.code, message: error.message } }, null, "\t")}\n`).catch(() => undefined);
		throw error;
	}
	if (json) await writeToStdout(`${JSON.stringify(summary, null, "\t")}\n`);
	else if (!quiet) writeStderrLine(`committed ${folder}: ${plural(summary.parts, "part")}, ${plural(summary.files, "file")}, ${plural(summary.rows, "row")}${overflowNullsText(summary.overflowNulls)}${droppedDatesText(summary.droppedInvalidDates)}`);
	// Said even with --quiet, as the parts' exports said it (see forbidden-chunks-notice.ts).
	const forbidden = forbiddenChunksWarning(summary.forbiddenChunks ?? 0, summary.forbiddenKeys ?? []);
	if (forbidden !== undefined) writeStderrLine(forbidden);
	if (summary.rows === 0) writeStderrLine(`dt64-export: warning: ${folder} holds no rows: every part selected none (readers read it as a table of 0 rows)`);
	for (const lock of summary.staleLocks) writeStderrLine(`dt64-export: part ${lock.part}: a stale lock is left (${lock.holder}, ended; ${lock.file}): the part's next run takes it over`);
	warnOfStrayMarkerFiles(summary.strayTemporaryFiles);
}

/** Names the temporary files of `_SUCCESS` or of manifests that a commit or a part killed outright left (see CommitSummary). */
function warnOfStrayMarkerFiles(files: readonly StrayTemporaryFile[]): void {
	for (const stray of files) {
		writeStderrLine(`dt64-export: warning: ${stray.path} (${countText(stray.bytes)} bytes) is the temporary file of a commit or a part's manifest that was killed while writing: remove it`);
	}
}
