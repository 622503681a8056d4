/**
 * Exports of part of a table, or to a dataset folder: `--start/--end` (rows of a time range, pruned by binary
 * search when the time is sorted, filtered otherwise), `--part K/N` (this process's slice of those rows), and
 * `--partition-by` (Hive partitions of a dataset folder). Options are normalized once, before any store is opened.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { TimeUnit, type Timestamp } from "apache-arrow";
import type { TargetUnit } from "./dtype/units.js";
import { Dt64ExportError } from "./errors.js";
import { createTableExportStages, createWriter } from "./export.js";
import { checkTableOptions, normalizeExportOptions, openExportTable } from "./export-setup.js";
import type { OpenArrayOptions } from "./open-array.js";
import type { OpenTableOptions, ZarrTable } from "./open-table.js";
import { commitDataset, type CommitSummary } from "./output/commit.js";
import { listDataset, PARTS_FOLDER, SUCCESS_FILE } from "./output/dataset-files.js";
import { DatasetWriter, type DatasetSummary } from "./output/dataset-writer.js";
import { digestOptions } from "./output/manifest.js";
import type { Part } from "./select/part.js";
import { normalizeDatasetOptions, normalizeSelectionOptions, type DatasetOptions, type NormalizedSelection, type SelectionOptions } from "./select/selection-options.js";
import { TimeFilter } from "./select/time-filter.js";
import { findTimeColumn, selectRows, type RowSelection } from "./select/time-selection.js";
import type { TableBatcher } from "./stream/table-batcher.js";
import type { TableReader } from "./stream/table-reader.js";

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
	readonly filter: TimeFilter | undefined;
	readonly selection: RowSelection;
	/** The time column's Arrow field name and unit, when the table has one to select by. */
	readonly time: { readonly field: string; readonly unit: TargetUnit } | undefined;
	readonly table: ZarrTable;
}

/** Finds the rows (binary search over the time column when sorted), then builds the stages reading only those. */
export async function createSelectedStages(table: ZarrTable, options: DatasetOptions, normalized: NormalizedSelection): Promise<SelectedStages> {
	const exportOptions = normalizeExportOptions(options);
	const ranged = normalized.bounds.start !== undefined || normalized.bounds.end !== undefined;
	const needsTime = ranged || options.partitionBy !== undefined;
	const timeColumn = needsTime ? findTimeColumn(table, normalized.timeColumn) : undefined;
	const selection = await selectRows(table, { bounds: normalized.bounds, timeColumn: normalized.timeColumn, part: normalized.part, concurrency: exportOptions.concurrency ?? 4 });
	const { reader, batcher } = createTableExportStages(table, { ...options, rows: selection.rows });
	const fields = batcher.schema.fields;
	const timeField = timeColumn === undefined ? undefined : fields[fields.length - table.columns.length + timeColumn.position];
	const time = timeField === undefined ? undefined : { field: timeField.name, unit: TARGET_UNIT_OF[(timeField.type as Timestamp).unit] };
	const filter =
		ranged && time !== undefined
			? new TimeFilter({ timeColumn: time.field, unit: time.unit, bounds: normalized.bounds, checkSorted: selection.sorted, truncated: exportOptions.conversion.allowTruncate })
			: undefined;
	return { reader, batcher, filter, selection, time, table };
}

/** What an export of selected rows to one file did. */
export interface SelectionSummary {
	readonly rows: number;
	readonly selection: RowSelection;
}

/** One call: the rows of a time range (or of a part) of the store's table, written to `destination`. */
export async function exportSelection(store: string, destination: Writable, options: SelectionOptions & Partial<OpenTableOptions> & OpenArrayOptions): Promise<SelectionSummary> {
	const normalized = normalizeSelectionOptions(options);
	const { format } = normalizeExportOptions(options);
	checkTableOptions(options);
	const table = await openExportTable(store, options);
	const stages = await createSelectedStages(table, options, normalized);
	const writer = createWriter(format, stages.batcher.schema, options);
	const chain: (Readable | Transform | Writable)[] = [stages.reader, stages.batcher, ...(stages.filter ? [stages.filter] : []), writer, destination];
	await pipeline(chain as unknown as NodeJS.ReadWriteStream[]);
	return { rows: stages.filter?.rowsOut ?? stages.reader.totalRows, selection: stages.selection };
}

/** The options that decide a dataset's content, for the manifests' digest: parts of one dataset must agree on them. */
function contentOptions(store: string, options: DatasetOptions & Partial<OpenTableOptions> & OpenArrayOptions, normalized: NormalizedSelection, part: Part): Record<string, unknown> {
	const exportOptions = normalizeExportOptions(options);
	const { index, order } = checkTableOptions(options);
	return {
		// Where the store is mounted or which token signs its URL may differ between tasks; what it is may not.
		store: store.replace(/[?#].*$/, "").replace(/\/+$/, "").split(/[\\/]/).pop(),
		array: options.array,
		group: options.group,
		columns: options.columns,
		index,
		order,
		format: exportOptions.format,
		conversion: exportOptions.conversion,
		timezone: exportOptions.timezone,
		column: options.column,
		compression: options.compression,
		rowGroupRows: options.rowGroupRows,
		start: normalized.bounds.start,
		end: normalized.bounds.end,
		timeColumn: normalized.timeColumn,
		partitionBy: options.partitionBy,
		maxRowsPerFile: options.maxRowsPerFile,
		parts: part.count,
	};
}

/** Clears a folder's dataset (data, temporary files, manifests, marker) before a whole export replaces it. */
function clearDataset(folder: string): void {
	const listing = listDataset(folder);
	for (const file of [...listing.dataFiles, ...listing.tempFiles]) fs.rmSync(path.join(folder, file), { force: true });
	fs.rmSync(path.join(folder, PARTS_FOLDER), { recursive: true, force: true });
	fs.rmSync(path.join(folder, SUCCESS_FILE), { force: true });
}

export interface DatasetExportSummary extends DatasetSummary {
	readonly part: Part;
	readonly selection: RowSelection;
	/** The commit's summary, for an export without `part` (it commits itself). */
	readonly committed: CommitSummary | undefined;
}

/**
 * One call: this part of the store's table (all of it without `part`) written to the dataset folder `folder`.
 * Without `part`, the export is the whole dataset: it refuses a folder holding other files unless `overwrite`,
 * and commits itself.
 */
export async function exportDataset(store: string, folder: string, options: DatasetOptions & Partial<OpenTableOptions> & OpenArrayOptions): Promise<DatasetExportSummary> {
	const normalized = normalizeDatasetOptions(options);
	const { format } = normalizeExportOptions(options);
	checkTableOptions(options);
	const part = normalized.part ?? { index: 0, count: 1 };
	const whole = normalized.part === undefined;
	const existing = fs.statSync(folder, { throwIfNoEntry: false });
	if (existing !== undefined && !existing.isDirectory()) throw new Dt64ExportError("OUTPUT_INVALID", `${folder} is a file: a dataset is written to a folder`, { path: folder });
	if (whole && existing !== undefined && fs.readdirSync(folder).length > 0) {
		if (!options.overwrite) throw new Dt64ExportError("OUTPUT_EXISTS", `${folder} is not empty: a whole dataset is written to an empty folder (a part adds to one)`, { path: folder });
	}
	const table = await openExportTable(store, options);
	const stages = await createSelectedStages(table, options, normalized);
	if (whole && options.overwrite && existing !== undefined) clearDataset(folder);
	const { options: stored, digest } = digestOptions(contentOptions(store, options, normalized, part));
	const writer = new DatasetWriter({
		folder,
		part,
		extension: format === "parquet" ? "parquet" : "arrow",
		createFileWriter: (schema) => createWriter(format, schema, options),
		timeColumn: stages.time?.field,
		timeUnit: stages.time?.unit ?? "ns",
		partitionBy: options.partitionBy,
		maxRowsPerFile: options.maxRowsPerFile,
		maxOpenFiles: options.maxOpenFiles,
		options: stored,
		optionsDigest: digest,
	});
	const chain: (Readable | Transform | Writable)[] = [stages.reader, stages.batcher, ...(stages.filter ? [stages.filter] : []), writer];
	await pipeline(chain as unknown as NodeJS.ReadWriteStream[]);
	const committed = whole ? await commitDataset(folder) : undefined;
	return { ...writer.summary!, part, selection: stages.selection, committed };
}
