/**
 * Exports of part of a table, or to a dataset folder: a time range (rows pruned by binary search when the time is
 * sorted, filtered otherwise), this process's part of those rows, and Hive partitions. The plan's `select` and
 * `dataset` parts (export-plan.ts) say which; the stages are those of every export (export.ts), the reader limited to
 * the rows selected, a TimeFilter after the batcher, and a DatasetWriter in place of the file writer.
 */
import { checkDestinationArgument, checkOverwrite, optionsArgument, outputArgument, storeArgument } from "./call-arguments.js";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Writable } from "node:stream";
import { TimeUnit, type Schema, type Timestamp } from "apache-arrow";
import type { OverflowNulls } from "./convert/overflow-nulls.js";
import type { TargetUnit } from "./dtype/units.js";
import { abortable } from "./abort.js";
import { Dt64ExportError } from "./errors.js";
import { createStagesAround, createWriter, runStages } from "./export.js";
import { OUTPUT_FORMATS, planExport, type ExportOptions, type ExportPlan } from "./export-plan.js";
import { createTableReader, openPlannedTable, tableReadLimits } from "./export-source.js";
import type { ZarrTable } from "./open-table.js";
import { poolOf } from "./memory/opened-pool.js";
import { commitDatasetHolding, type CommitSummary } from "./output/commit.js";
import { isFileOfPart, listDataset, LOCK_NAME, manifestPath, partStagingPath, PARTS_FOLDER, SUCCESS_FILE } from "./output/dataset-files.js";
import { DatasetWriter, type DatasetSummary } from "./output/dataset-writer.js";
import { checkPartitionKeysFree } from "./output/hive-partition.js";
import { digestOptions } from "./output/manifest.js";
import { checkSameExport } from "./output/other-export.js";
import { splitsIn, describeSplit } from "./output/other-splits.js";
import { acquirePartLock, activeLocks, describeLock, readPartLocks, type FoundLock, type PartLock } from "./output/part-lock.js";
import type { Part } from "./select/part.js";
import type { SelectPlan } from "./select/selection-options.js";
import { REMOTE_WHOLE_CHECK_REQUESTS, type WholeCheck } from "./select/time-search.js";
import { TimeFilter } from "./select/time-filter.js";
import { timeColumnOf } from "./select/time-column-of.js";
import { locationWithoutQuery } from "./store/store-location.js";
import { checkSortedOver, keepingTimeChunks, selectRows, type RowSelection } from "./select/time-selection.js";
import type { TableBatcher } from "./stream/table-batcher.js";
import type { TableReader } from "./stream/table-reader.js";
import { absoluteOutput, checkOutputOutsideStore, statOutput } from "./output/output-path.js";
import { intoCallerDestination } from "./output/caller-destination.js";
import { LIBRARY_SPELLING, resolveDatasetFormat } from "./output/output-format.js";
import { holdsOnlyUnfinishedWholeExport } from "./output/unfinished-whole-export.js";

const TARGET_UNIT_OF: Readonly<Record<TimeUnit, TargetUnit>> = {
	[TimeUnit.SECOND]: "s",
	[TimeUnit.MILLISECOND]: "ms",
	[TimeUnit.MICROSECOND]: "us",
	[TimeUnit.NANOSECOND]: "ns",
};

/** The stages of a selected export: the reader reads only the selected rows; `filter` keeps the rows in range. */
export interface SelectedStages {
	readonly reader: TableReader;
	readonly batcher: TableBatcher;
	/** The encoder of a single-file export (a dataset has one per file). */
	readonly writer: ReturnType<typeof createWriter>;
	readonly filter: TimeFilter | undefined;
	readonly selection: RowSelection;
	/** The time column's Arrow field name and unit, when the export selects or partitions by time. */
	readonly time: { readonly field: string; readonly unit: TargetUnit } | undefined;
	readonly table: ZarrTable;
}

/** The values the rows written hold as null because they overflowed (`onOverflow: "null"`), per column. */
function overflowNullsWritten(stages: Pick<SelectedStages, "batcher" | "filter">): OverflowNulls {
	return (stages.filter ?? stages.batcher).overflowNulls?.counts ?? {};
}

const ALL_ROWS: SelectPlan = { bounds: {}, rangeSearch: true };

/** Finds the rows (binary search over the time column when sorted), then builds the stages reading only those. */
export async function createSelectedStages(opened: ZarrTable, plan: ExportPlan): Promise<SelectedStages> {
	const select = plan.select ?? ALL_ROWS;
	const ranged = select.bounds.start !== undefined || select.bounds.end !== undefined;
	const needsTime = ranged || plan.dataset?.partitionBy !== undefined;
	const found = needsTime ? await timeColumnOf(opened, { index: plan.columns.index, name: select.timeColumn, cf: plan.columns.cf, convertCalendar: plan.columns.convertCalendar, alignOn: plan.columns.alignOn, dropInvalidDates: plan.columns.dropInvalidDates, conversion: plan.columns.conversion, rename: plan.columns.rename, column: plan.columns.column, singleArray: plan.columns.singleArray }) : undefined;
	// The chunks of the time column the search reads (a short one whole) are read once: kept for the range's rows.
	const keeping = ranged && found !== undefined ? keepingTimeChunks(opened, found) : undefined;
	const time = keeping?.time ?? found;
	const table = keeping?.table ?? opened;
	const concurrency = tableReadLimits(table, plan.read);
	// Not known sorted: read whole and checked before any search, however long (a search checks only the blocks it
	// reads, and would miss a time out of order in one it skips); unasked over HTTP or an object store only within
	// REMOTE_WHOLE_CHECK_REQUESTS requests.
	const wholeCheck: WholeCheck = select.timeSorted === true ? "trust" : select.timeSorted === false || !table.store.remote ? "check" : { maxRequests: REMOTE_WHOLE_CHECK_REQUESTS };
	const selection = await selectRows(table, { bounds: select.bounds, search: select.rangeSearch, time, part: select.part, concurrency, wholeCheck, conversion: plan.columns.conversion, signal: plan.read.signal });
	// In C order the filter checks that the rows read are sorted as they go by; in chunk order they come box by box,
	// each starting over in time, so the time column is checked over those rows first.
	const chunkOrder = plan.read.order === "chunk";
	if (ranged && selection.sorted && chunkOrder && time !== undefined) await checkSortedOver(time, selection.rows, concurrency, plan.read.signal);
	keeping?.stopKeeping(selection.rows);
	const { reader, batcher, writer } = createStagesAround(table, createTableReader(table, plan.read, selection.rows), plan);
	const timeField = time === undefined ? undefined : batcher.schema.fields[time.field!];
	const timeOut = timeField === undefined ? undefined : { field: timeField.name, unit: TARGET_UNIT_OF[(timeField.type as Timestamp).unit] };
	const filter =
		ranged && timeOut !== undefined
			? new TimeFilter({ timeColumn: timeOut.field, unit: timeOut.unit, bounds: select.bounds, checkSorted: selection.sorted && !chunkOrder, truncated: plan.columns.conversion.rounding === "floor", countOverflowNulls: plan.columns.conversion.onOverflow === "null", bufferPool: poolOf(table) })
			: undefined;
	return { reader, batcher, writer, filter, selection, time: timeOut, table };
}

/**
 * What an export of selected rows to one file or stream did. JSON-safe, as a service logs or answers it: `table` (the
 * table opened, with its store) is not enumerable, so `JSON.stringify` writes `{ rows, selection }`.
 */
export interface SelectionSummary {
	readonly rows: number;
	/** Per column, the values written as null because they were outside int64 in its unit (`onOverflow: "null"`). */
	readonly overflowNulls: OverflowNulls;
	/** With `forbiddenAsMissing`: the chunks answered 403 AccessDenied that were read as missing (the fill value). */
	readonly forbiddenChunks?: number;
	/**
	 * With `dropInvalidDates`: the rows left out because their time coordinate held a date the proleptic Gregorian
	 * calendar lacks, among those of the time range (see dropped-dates.ts) and of the part.
	 */
	readonly droppedInvalidDates?: number;
	readonly selection: RowSelection;
	readonly table: ZarrTable;
}

/** `{ droppedInvalidDates }` when the export leaves out the rows of dates that do not exist, else nothing. */
function droppedInvalidDatesOf(batcher: TableBatcher): { droppedInvalidDates?: number } {
	const dropped = batcher.droppedInvalidDates;
	return dropped === undefined ? {} : { droppedInvalidDates: dropped };
}

/** `{ forbiddenChunks }` when the table's store read refused chunks as missing (forbiddenAsMissing), else nothing. */
export function forbiddenChunksOf(table: ZarrTable): { forbiddenChunks?: number } {
	const forbidden = table.store.forbiddenAsMissing;
	return forbidden === undefined ? {} : { forbiddenChunks: forbidden.count };
}

function selectionSummary(rows: number, overflowNulls: SelectionSummary["overflowNulls"], dropped: { droppedInvalidDates?: number }, selection: RowSelection, table: ZarrTable): SelectionSummary {
	return Object.defineProperty({ rows, overflowNulls, ...forbiddenChunksOf(table), ...dropped, selection }, "table", { value: table, enumerable: false }) as SelectionSummary;
}

/**
 * One call: the rows of a time range, or of a part (`part: "3/16"`: this process's share of them, as a dataset's
 * part K holds), of the store's table, written to `destination` as one file or stream.
 */
export async function exportSelection(storeGiven: string | URL, destination: Writable, options: ExportOptions | null): Promise<SelectionSummary> {
	const store = storeArgument(storeGiven);
	options = optionsArgument(options);
	checkDestinationArgument(destination);
	return intoCallerDestination(destination, options, async (held) => {
		const plan = planExport({ ...options, bufferPool: undefined, signal: held.signal }, false);
		return abortable(plan.read.signal, async () => {
			const table = await openPlannedTable(store, plan.open);
			const stages = await createSelectedStages(table, plan);
			await runStages([stages.reader, stages.batcher, ...(stages.filter ? [stages.filter] : []), stages.writer, held.take()], plan.read.signal);
			return selectionSummary(stages.filter?.rowsOut ?? stages.batcher.rowsOut, overflowNullsWritten(stages), droppedInvalidDatesOf(stages.batcher), stages.selection, table);
		});
	});
}

/**
 * The plan's parts that decide a dataset's content, for the manifests' digest: the parts of one dataset must agree on
 * them. They are the plan's, defaults filled in (planExport), so a part the CLI wrote and one the library wrote with
 * the same options agree, whichever defaults each spelt out.
 */
function contentOptions(store: string, plan: ExportPlan, part: Part): Record<string, unknown> {
	return {
		// Where the store is mounted or which token signs its URL may differ between tasks; which store it is may not.
		store: locationWithoutQuery(store).replace(/\/+$/, "").split(/[\\/]/).pop(),
		array: plan.open.array,
		group: plan.open.group,
		columns: plan.open.columns,
		order: plan.read.order,
		conversion: plan.columns.conversion,
		timezone: plan.columns.timezone,
		column: plan.columns.column,
		index: plan.columns.index,
		// Coordinates or positions as index columns.
		indexSource: plan.columns.index ? plan.open.indexSource : undefined,
		rename: Object.fromEntries(plan.columns.rename),
		cf: plan.columns.cf,
		nanAsNull: plan.columns.nanAsNull,
		convertCalendar: plan.columns.convertCalendar,
		// Only what converts otherwise than before alignOn existed, so that earlier parts' digests stay the same.
		alignOn: plan.columns.alignOn === "year" ? "year" : undefined,
		dropInvalidDates: plan.columns.dropInvalidDates ? true : undefined,
		output: plan.output,
		start: plan.select?.bounds.start,
		end: plan.select?.bounds.end,
		timeColumn: plan.select?.timeColumn,
		partitionBy: plan.dataset?.partitionBy,
		maxRowsPerFile: plan.dataset?.maxRowsPerFile,
		parts: part.count,
	};
}

/** Where a whole export replacing a folder's dataset writes the new one until it is complete (see DatasetWriter). */
const STAGING_NAME = ".replacing";

/**
 * Clears a folder's dataset as a whole export replaces it, once the new one is written aside (`kept`: its files,
 * moved in between the two phases); the locks stay: the export's own, and those of part runs that ended without
 * releasing theirs (their next run takes them over). `marker`: the marker and manifests, so that the folder is no
 * longer a committed dataset from then on; `files`: the data and temporary files not kept, and the partition folders
 * left empty.
 */
function clearDataset(folder: string, kept: ReadonlySet<string>, phase: "marker" | "files"): void {
	if (phase === "marker") {
		fs.rmSync(path.join(folder, SUCCESS_FILE), { force: true });
		const partsFolder = path.join(folder, PARTS_FOLDER);
		const entries = fs.existsSync(partsFolder) ? fs.readdirSync(partsFolder) : [];
		for (const name of entries) if (!LOCK_NAME.test(name) && name !== STAGING_NAME) fs.rmSync(path.join(partsFolder, name), { recursive: true, force: true });
		return;
	}
	const listing = listDataset(folder);
	const gone = [...listing.dataFiles, ...listing.tempFiles].filter((file) => !kept.has(file));
	for (const file of gone) fs.rmSync(path.join(folder, file), { force: true });
	// The partition folders those files were in, left empty, go too: a reader that lists the folders (Spark) would
	// take each for a partition of the new dataset. A folder holding anything else (a user's file) stays.
	const folders = new Set(gone.flatMap((file) => {
		const parts = file.split("/").slice(0, -1);
		return parts.map((_, depth) => parts.slice(0, depth + 1).join("/"));
	}));
	for (const relative of [...folders].sort((a, b) => b.split("/").length - a.split("/").length)) {
		try {
			fs.rmdirSync(path.join(folder, relative));
		} catch {
			// Not empty: it holds something this export does not own, or a file of the new dataset.
		}
	}
}

/**
 * Clears a part's earlier run as a run of the part replaces it, once its files are all written aside: `marker`, the
 * folder's `_SUCCESS` (the dataset changes from now on) and the part's manifest (it is unfinished until this run
 * writes its own); the earlier run's files not replaced are removed by the writer once the new ones are in place.
 */
function clearPartRun(folder: string, part: Part, phase: "marker" | "files"): void {
	if (phase !== "marker") return;
	fs.rmSync(path.join(folder, SUCCESS_FILE), { force: true });
	fs.rmSync(path.join(folder, manifestPath(part)), { force: true });
}

export interface DatasetExportSummary extends DatasetSummary {
	readonly part: Part;
	readonly selection: RowSelection;
	/** The commit's summary, for an export without `part` (it commits itself). */
	readonly committed: CommitSummary | undefined;
	/** The lock of the part this run took over: left by a run of this host that ended without releasing it (killed), or with `breakLock`. */
	readonly lockTakenOver: FoundLock | undefined;
	/** With `forbiddenAsMissing`: the chunks answered 403 AccessDenied that this part read as missing (the fill value). */
	readonly forbiddenChunks?: number;
}

/** What a dataset export takes beside its export options. */
export interface DatasetRunOptions {
	/** A whole export (no part) replaces the dataset in a folder that is not empty. */
	readonly overwrite?: boolean | undefined;
	/** Take over the part's lock held by another host's run (or unreadable), once sure that it has ended. */
	readonly breakLock?: boolean | undefined;
}

/**
 * One call: this part of the store's table (all of it without `part`) written to the dataset folder `folder`.
 * Without `part`, the export is the whole dataset: it refuses a folder holding anything unless `overwrite`
 * (which replaces the dataset in it), and commits itself. The run holds the part's lock (see part-lock.ts) from
 * before the store is opened until it ends, whichever way.
 */
export async function exportDataset(storeGiven: string | URL, folder: string, options: ExportOptions & DatasetRunOptions): Promise<DatasetExportSummary> {
	const store = storeArgument(storeGiven);
	folder = absoluteOutput(outputArgument(folder, "folder"));
	options = optionsArgument(options);
	checkOverwrite(options.overwrite);
	// The folder's extension names its files' format, as a file's does (checked by planExport when it is no format).
	const format = options.format === undefined || OUTPUT_FORMATS.includes(options.format) ? resolveDatasetFormat(options.format, folder, LIBRARY_SPELLING) : options.format;
	// Rows are filtered and routed to many files: no chunk buffer goes back to a pool once written.
	return exportPlannedDataset(store, folder, planExport({ ...options, format, bufferPool: undefined }, true), options);
}

/** What the CLI is told as a dataset export goes. */
export interface DatasetRunEvents {
	/** The table, the schema of its files and the rows to read, once they are known, before anything is written. */
	readonly planned?: (table: ZarrTable, schema: Schema, rows: number) => void;
	/** The part's lock was taken over from a run that ended without releasing it, before anything is read. */
	readonly lockTakenOver?: (lock: FoundLock) => void;
}

/** exportDataset with its options planned already (the CLI's way). */
export async function exportPlannedDataset(store: string, folder: string, plan: ExportPlan, options: DatasetRunOptions, events: DatasetRunEvents = {}): Promise<DatasetExportSummary> {
	return abortable(plan.read.signal, () => writePlannedDataset(store, folder, plan, options, events));
}

/**
 * A part joins the parts of its own split only: a folder holding manifests or data files of parts of another N (an
 * earlier job split otherwise) could never be committed with it, and readers would meanwhile read both.
 */
function checkOneSplit(folder: string, part: Part): void {
	const others = splitsIn(folder).filter((split) => split.count !== part.count);
	if (others.length === 0) return;
	throw new Dt64ExportError(
		"DATASET_INVALID",
		`${folder} holds a dataset split in ${others.map(describeSplit).join("; ")}: part ${part.index}/${part.count} cannot be committed with it; remove those files, or write to another folder`,
		{ path: folder },
	);
}

/** A whole export replaces every part: refused while a part's run may still write into the folder. */
async function checkNoPartRunning(folder: string, own: PartLock): Promise<void> {
	const active = activeLocks(await readPartLocks(folder), own);
	if (active.length === 0) return;
	const lock = active[0];
	throw new Dt64ExportError("DATASET_INVALID", `${describeLock(lock, folder)} (lock ${lock.file}): a whole export would replace its files; wait for it to end, or remove the lock once sure that it has`, {
		path: lock.file,
		value: lock.holder,
	});
}

async function writePlannedDataset(store: string, folder: string, plan: ExportPlan, options: DatasetRunOptions, events: DatasetRunEvents): Promise<DatasetExportSummary> {
	const part = plan.select?.part ?? { index: 0, count: 1 };
	const whole = plan.select?.part === undefined;
	const overwrite = options.overwrite ?? false;
	const existing = statOutput(folder);
	checkOutputOutsideStore(store, folder);
	if (existing !== undefined && !existing.isDirectory()) throw new Dt64ExportError("OUTPUT_INVALID", `${folder} is a file: a dataset is written to a folder`, { path: folder });
	const holding = whole && existing !== undefined && fs.readdirSync(folder).length > 0;
	// What a killed run of a whole export left is replaced by its retry, as `overwrite` replaces a dataset.
	const unfinished = holding && !overwrite && holdsOnlyUnfinishedWholeExport(folder);
	if (holding && !overwrite && !unfinished) {
		throw new Dt64ExportError("OUTPUT_EXISTS", `${folder} is not empty: a whole dataset is written to an empty folder (a part adds to one)`, { path: folder });
	}
	if (!whole && existing !== undefined) checkOneSplit(folder, part);
	const digested = digestOptions(contentOptions(store, plan, part));
	const lock = await acquirePartLock(folder, part, { breakLock: options.breakLock });
	try {
		if (lock.tookOver !== undefined) events.lockTakenOver?.(lock.tookOver);
		if (whole) await checkNoPartRunning(folder, lock);
		// Under the lock: no other run of the part changes its manifest meanwhile.
		else if (!overwrite) checkSameExport(folder, part, digested.options, digested.digest);
		return await writeLockedDataset(store, folder, plan, part, whole && (overwrite || unfinished) && existing !== undefined, lock, digested, events.planned);
	} finally {
		lock.release();
	}
}

/** The export proper, under the part's lock. `replace`: a whole export replaces the folder's dataset once it is written. */
async function writeLockedDataset(
	store: string,
	folder: string,
	plan: ExportPlan,
	part: Part,
	replace: boolean,
	lock: PartLock,
	{ options: stored, digest }: { options: Record<string, unknown>; digest: string },
	planned: DatasetRunEvents["planned"],
): Promise<DatasetExportSummary> {
	const whole = plan.select?.part === undefined;
	const table = await openPlannedTable(store, plan.open);
	const stages = await createSelectedStages(table, plan);
	if (plan.dataset?.partitionBy !== undefined) checkPartitionKeysFree(stages.batcher.schema.fields.map((field) => field.name), plan.dataset.partitionBy);
	planned?.(table, stages.batcher.schema, stages.reader.totalRows);
	let committed: CommitSummary | undefined;
	const writer = new DatasetWriter({
		folder,
		part,
		extension: plan.output.format === "parquet" ? "parquet" : "arrow",
		createFileWriter: (schema) => createWriter(plan.output, schema),
		timeColumn: stages.time?.field,
		timeUnit: stages.time?.unit ?? "ns",
		partitionBy: plan.dataset?.partitionBy,
		maxRowsPerFile: plan.dataset?.maxRowsPerFile,
		range: plan.select?.bounds,
		maxOpenFiles: plan.dataset?.maxOpenFiles,
		maxPartitions: plan.dataset?.maxPartitions,
		options: stored,
		optionsDigest: digest,
		// Read once every row is written: the stages before the writer have counted them all.
		overflowNulls: () => overflowNullsWritten(stages),
		forbiddenChunks: table.store.forbiddenAsMissing,
		droppedInvalidDates: () => stages.batcher.droppedInvalidDates,
		slice: { table: { dimensions: table.dimensions.map((dimension) => dimension.name), shape: [...table.shape] }, rows: stages.selection.rows },
		// The dataset replaced stays as it is, committed, until every file of the new one is written; so does a part's
		// earlier run until every file of this one is.
		...(replace && {
			replacing: {
				staging: path.join(folder, PARTS_FOLDER, STAGING_NAME),
				clear: (kept: ReadonlySet<string>, phase: "marker" | "files") => clearDataset(folder, kept, phase),
				holdsEarlierFiles: () => listDataset(folder).dataFiles.length > 0,
			},
		}),
		...(!whole && {
			replacing: {
				staging: path.join(folder, partStagingPath(part)),
				clear: (_kept: ReadonlySet<string>, phase: "marker" | "files") => clearPartRun(folder, part, phase),
				holdsEarlierFiles: () => listDataset(folder).dataFiles.some((file) => isFileOfPart(file, part)),
			},
		}),
		// A whole export is finished once committed: a commit that fails undoes it, as any failure does.
		commit: whole
			? async () => {
					committed = await commitDatasetHolding(folder, lock);
				}
			: undefined,
	});
	try {
		await runStages([stages.reader, stages.batcher, ...(stages.filter ? [stages.filter] : []), writer], plan.read.signal);
	} catch (error) {
		// The lock is released (and its folders removed once empty) only once nothing of the run is being written.
		await writer.settled();
		throw error;
	}
	return { ...writer.summary!, part, selection: stages.selection, committed, lockTakenOver: lock.tookOver, ...forbiddenChunksOf(table) };
}
