/**
 * The export plan: the options of an export (the library's, or the CLI's translated), checked and normalized once,
 * at the edge, into a plain object with one part per stage: what to open, how to read, how each column becomes
 * Arrow data, how to write. The stages get their part, never the options. Nothing here imports apache-arrow.
 */
import { canonicalTimezone } from "./arrow/timezone.js";
import { CALENDAR_ALIGNMENTS, type CalendarAlignment } from "./cf/calendar-alignment.js";
import type { CfOptions } from "./cf/cf-time-array.js";
import { normalizeConversionOptions, type ConversionOptions, type NormalizedConversionOptions } from "./convert/options.js";
import { didYouMean } from "./did-you-mean.js";
import { UsageError } from "./errors.js";
import { checkPartitionsSpanned } from "./output/partition-bound.js";
import { checkPartsOption, DATASET_OPTION_NAMES, planDataset, planSelection, selectsRows, writesDataset, type DatasetOptions, type DatasetPlan, type SelectPlan } from "./select/selection-options.js";
import type { OpenStoreOptions, StoreSettings } from "./store/open-store.js";
import { normalizeOptions as normalizeParquetOptions, type ParquetCompression } from "./stream/parquet/options.js";
import type { RowOrder } from "./stream/table-reader.js";
import type { IndexSource } from "./open-table.js";
import { indexSourceForExport } from "./table/index-source.js";
import { decodeThreadsAsked } from "./zarr/codecs/decode-threads-asked.js";
import { checkHttpStoreOptions } from "./store/http-store.js";
import { BufferPool } from "./memory/buffer-pool.js";

/**
 * Chunks (or requests) in flight at most, `concurrency`: past it each one costs memory and time and buys nothing
 * (trial 28: 04: `--concurrency 100000` on 200,000 small chunk files took 37 s and 858 MB against 7 s and 157 MB at
 * the default, the same file). An object store's default is 32 requests; a typo of a zero or two is refused.
 */
export const MAX_CONCURRENCY = 1024;

export type OutputFormat = "arrow" | "arrow-stream" | "parquet";
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["arrow", "arrow-stream", "parquet"];
export const FILE_EXTENSIONS: Readonly<Record<OutputFormat, string>> = { arrow: "arrow", "arrow-stream": "arrows", parquet: "parquet" };

/** Everything an export can be asked, whether of one array or of a table. */
export interface ExportOptions extends ConversionOptions, OpenStoreOptions, Omit<CfOptions, "unit">, DatasetOptions {
	/**
	 * Without `columns`: the path of the time array (found automatically when the store holds exactly one).
	 * With `columns`: the group holding them, as `group`.
	 */
	array?: string | undefined;
	/** The group holding the `columns`; the store root by default. */
	group?: string | undefined;
	/**
	 * The arrays of the group to export side by side, as one table, broadcast over their dimensions by name; each
	 * column is named after its array. `"all"`: every data variable (the whole `ds.to_dataframe()` table).
	 */
	columns?: readonly string[] | "all" | undefined;
	/** The column name of a single array; its name (last path segment, `.zarr` dropped) by default. */
	column?: string | undefined;
	/**
	 * Timezone of the Arrow timestamps; null (naive, like numpy) by default. An IANA name, written in its canonical
	 * spelling (`europe/paris` → `Europe/Paris`), or an offset `+HH:MM`; anything else is a USAGE error.
	 */
	timezone?: string | null | undefined;
	/**
	 * One index column per dimension, before the value columns, saying where each row comes from: `true` gives each
	 * dimension's coordinate array (decoded) where the group has one, its positions (int64) otherwise, as xarray's
	 * `to_dataframe().reset_index()`; `"positions"` gives positions everywhere.
	 */
	index?: boolean | "positions" | undefined;
	/** Output column names to change, old name to new (index and value columns alike). */
	rename?: Readonly<Record<string, string>> | undefined;
	/** CF decoding of companion columns (CF time, masking, unpacking); true by default, false exports the stored values. */
	cf?: boolean | undefined;
	/** NaN in float columns becomes null too; NaN stays NaN by default. */
	nanAsNull?: boolean | undefined;
	/** CF time of a model calendar (noleap, 360_day...): each date label as the same proleptic Gregorian label. */
	convertCalendar?: boolean | undefined;
	/**
	 * With `convertCalendar`: `date` (default) keeps each date label (a 360_day 29 or 30 February is refused), `year`
	 * moves each 360_day date to the day at the same position in its proleptic Gregorian year, as xarray's
	 * `convert_calendar(..., align_on="year")`. Refused without `convertCalendar`.
	 */
	alignOn?: CalendarAlignment | undefined;
	/**
	 * With `convertCalendar` (aligned on the date): leave out the rows whose time coordinate holds a date the
	 * proleptic Gregorian calendar lacks (a 360_day 29 or 30 February, an all_leap 29 February of a common year), as
	 * xarray's `convert_calendar(..., align_on="date")` drops them, where they are refused by default. The time
	 * coordinate is an index column (`index`) or the array exported alone; the rows left out are counted in the
	 * summaries. Missing times (NaN, _FillValue) stay null rows.
	 */
	dropInvalidDates?: boolean | undefined;
	/** `c` (default): numpy `ravel()` order. `chunk` (needs `index`): chunk by chunk, without assembling rows of chunks. */
	order?: RowOrder | undefined;
	/** Chunks read and decoded at once, per column; by default from the store's kind (see defaultConcurrency). */
	concurrency?: number | undefined;
	/** Called after each chunk is decoded, for progress. */
	onChunk?: ((chunkIndex: number, totalChunks: number) => void) | undefined;
	format?: OutputFormat | undefined;
	/** Parquet rows per row group; default 2^20, fewer for a row wider than 8 bytes (8 MiB of values per row group). */
	rowGroupRows?: number | undefined;
	compression?: ParquetCompression | undefined;
	/**
	 * Stops the export when aborted: its stages are destroyed (a file written all or nothing leaves no temporary file,
	 * a dataset no half-written file) and the call rejects with Node's AbortError (`cause`: the signal's reason), as
	 * `stream.pipeline` does; an export whose signal is aborted already rejects before it reads anything.
	 */
	signal?: AbortSignal | undefined;
}

/** An export's options as the package's own callers give them: a caller's (ExportOptions) and the pipeline's `bufferPool` (StoreSettings). */
export interface ExportSettings extends ExportOptions {
	/** See StoreSettings.bufferPool: the CLI's, for an output that hands written buffers back; refused from a caller. */
	bufferPool?: BufferPool | undefined;
}

/** What to open: one time array (`array`) or the `columns` of `group`. */
export interface OpenPlan {
	readonly store: StoreSettings;
	/** How CF time arrays are found and opened (the unit: float counts are read once to choose `auto`'s). */
	readonly cf: Required<CfOptions>;
	readonly array?: string;
	readonly group?: string;
	readonly columns?: readonly string[] | "all";
	/** Where a table's index columns come from (only looked up with index columns). */
	readonly indexSource: IndexSource;
}

/** How the chunks are read. */
export interface ReadPlan {
	readonly order: RowOrder;
	/** Undefined: the store's default (defaultConcurrency). */
	readonly concurrency: number | undefined;
	readonly onChunk?: (chunkIndex: number, totalChunks: number) => void;
	/** Index columns are written: coordinate arrays are then read with the values. */
	readonly index: boolean;
	/** Aborts the export (ExportOptions.signal). */
	readonly signal?: AbortSignal;
}

/** How each column becomes Arrow data: the column kinds (src/table/column-kinds.ts) read their settings here. */
export interface ColumnsPlan {
	readonly conversion: NormalizedConversionOptions;
	/** Canonical (see canonicalTimezone), or null. */
	readonly timezone: string | null;
	/** The name of a single column, when asked for. */
	readonly column: string | undefined;
	readonly index: boolean;
	/** Output names to change, old to new. */
	readonly rename: ReadonlyMap<string, string>;
	/** CF decoding of companion columns (false: `--no-cf`). */
	readonly cf: boolean;
	readonly nanAsNull: boolean;
	readonly convertCalendar: boolean;
	readonly alignOn: CalendarAlignment;
	/** Leave out the rows of a time coordinate's dates the proleptic Gregorian calendar lacks (see ExportOptions). */
	readonly dropInvalidDates: boolean;
	/** A single array is exported (not `columns`): its own values are the time that leaves rows out. */
	readonly singleArray: boolean;
	/** Parquet has no seconds unit: a time column in seconds is written in milliseconds (converted by the core). */
	readonly secondsAsMillis: boolean;
}

/**
 * The output's settings as they take effect: Parquet's with their defaults filled in, none for Arrow IPC (which
 * has neither). The same export planned by the CLI (which passes its defaults) and by the library (which leaves
 * them out) then has the same plan, and its dataset parts the same options digest.
 */
export interface OutputPlan {
	readonly format: OutputFormat;
	readonly compression: ParquetCompression | undefined;
	readonly rowGroupRows: number | undefined;
}

function planOutput(options: Pick<ExportOptions, "compression" | "rowGroupRows">, format: OutputFormat): OutputPlan {
	if (format !== "parquet") return { format, compression: undefined, rowGroupRows: undefined };
	return { format, ...normalizeParquetOptions(options) };
}

export interface ExportPlan {
	readonly open: OpenPlan;
	readonly read: ReadPlan;
	readonly columns: ColumnsPlan;
	readonly output: OutputPlan;
	/** Which rows (a time range, a part): undefined for all of them (see export-selection.ts). */
	readonly select: SelectPlan | undefined;
	/** The output is a dataset folder (partitions, parts): undefined for one file or stream. */
	readonly dataset: DatasetPlan | undefined;
}

/**
 * Every option an export takes (and `overwrite`, of the calls that write files, and `breakLock`, of exportDataset): a name outside them is refused,
 * since a JavaScript caller's misspelt option (`unti: "s"`) would otherwise be ignored and its export made with the
 * default. The compiler checks that the list and ExportOptions agree.
 */
export const EXPORT_OPTION_NAMES: readonly string[] = [
	...Object.keys({
		array: 0, group: 0, columns: 0, column: 0, timezone: 0, index: 0, rename: 0, cf: 0, nanAsNull: 0,
		convertCalendar: 0, alignOn: 0, dropInvalidDates: 0, order: 0, concurrency: 0, onChunk: 0, format: 0, rowGroupRows: 0, compression: 0, unit: 0,
		allowTruncate: 0, rounding: 0, onOverflow: 0, headers: 0, retries: 0, timeoutMs: 0, redirects: 0, bufferPool: 0, signRequests: 0, env: 0, forbiddenAsMissing: 0, followLinksOutside: 0, partitionBy: 0,
		maxRowsPerFile: 0, maxOpenFiles: 0, maxPartitions: 0, start: 0, end: 0, timeColumn: 0, rangeSearch: 0, timeSorted: 0, part: 0, parts: 0, signal: 0,
	} satisfies Record<keyof ExportSettings, 0>),
	"overwrite",
	"breakLock",
];

/** Refuses an option name an export does not take, naming the closest one it does. */
function checkOptionNames(options: object): void {
	for (const name of Object.keys(options)) {
		if (EXPORT_OPTION_NAMES.includes(name)) continue;
		throw new UsageError(`unknown option ${JSON.stringify(name)}${didYouMean(name, EXPORT_OPTION_NAMES)}`, { option: name });
	}
}

/** How model calendars' dates are converted: `date` unless asked otherwise, and only asked with `convertCalendar`. */
function planAlignment({ alignOn, convertCalendar }: Pick<ExportOptions, "alignOn" | "convertCalendar">): CalendarAlignment {
	if (alignOn === undefined) return "date";
	if (!CALENDAR_ALIGNMENTS.includes(alignOn)) throw new UsageError(`invalid alignOn ${JSON.stringify(alignOn)}: choose one of ${CALENDAR_ALIGNMENTS.join(", ")}`, { option: "alignOn", value: alignOn });
	if (convertCalendar !== true) throw new UsageError("alignOn says how `convertCalendar` moves a model calendar's dates, and is given without it", { option: "alignOn", value: alignOn });
	return alignOn;
}

/** Whether the rows of dates the proleptic Gregorian calendar lacks are left out: only when converting them by date. */
function planInvalidDates({ dropInvalidDates, convertCalendar }: Pick<ExportOptions, "dropInvalidDates" | "convertCalendar">, alignOn: CalendarAlignment): boolean {
	if (dropInvalidDates === undefined || dropInvalidDates === false) return false;
	if (dropInvalidDates !== true) throw new UsageError(`invalid dropInvalidDates ${JSON.stringify(dropInvalidDates)}: true or false`, { option: "dropInvalidDates", value: dropInvalidDates });
	if (convertCalendar !== true) throw new UsageError("dropInvalidDates leaves out the rows of the dates `convertCalendar` cannot convert, and is given without it", { option: "dropInvalidDates" });
	if (alignOn === "year") throw new UsageError("dropInvalidDates leaves out the rows of dates aligned on the date; `alignOn` year gives every 360_day date a day of its year, and leaves none out", { option: "dropInvalidDates" });
	return true;
}

/** Refuses the options only a dataset folder takes, for an export that writes one file or stream. */
export function checkDatasetOptions(options: DatasetOptions, dataset: boolean): void {
	if (dataset) return;
	if (options.partitionBy !== undefined) throw new UsageError("partitionBy writes a dataset folder (exportDataset), not one file or stream", { option: "partitionBy" });
	for (const option of DATASET_OPTION_NAMES) {
		if (options[option] !== undefined) throw new UsageError(`${option} applies to the files of a dataset folder, and this export writes one file or stream`, { option });
	}
}

/**
 * Checks and normalizes the options of an export, before anything is read: the one place they are checked.
 * `dataset`: the export writes a dataset folder (exportDataset; by default, when partitionBy or part is given),
 * not one file or stream, which a part of the rows (`part`) can be too.
 */
export function planExport(options: ExportSettings = {}, dataset = writesDataset(options)): ExportPlan {
	checkOptionNames(options);
	if (options.onChunk !== undefined && typeof options.onChunk !== "function") throw new UsageError("invalid onChunk: a function (chunkIndex, totalChunks)", { option: "onChunk" });
	decodeThreadsAsked();
	// A dataset is Parquet unless told otherwise, as with the CLI's --partition-by and --part: what engines read.
	const format = options.format ?? (dataset ? "parquet" : "arrow");
	if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`invalid format ${JSON.stringify(format)}: choose one of ${OUTPUT_FORMATS.join(", ")}`, { option: "format", value: format });
	if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw new UsageError("invalid signal: an AbortSignal", { option: "signal" });
	const conversion = normalizeConversionOptions(options);
	const timezone = canonicalTimezone(options.timezone);
	const { concurrency, columns } = options;
	if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY)) {
		throw new UsageError(`invalid concurrency ${concurrency}: must be an integer from 1 to ${MAX_CONCURRENCY}`, { option: "concurrency", value: concurrency });
	}
	const order = options.order ?? "c";
	if (order !== "c" && order !== "chunk") throw new UsageError(`invalid order ${JSON.stringify(order)}: choose one of c, chunk`, { option: "order", value: order });
	const { index = false } = options;
	if (index !== true && index !== false && index !== "positions") throw new UsageError(`invalid index ${JSON.stringify(index)}: true, false or "positions"`, { option: "index", value: index });
	if (order === "chunk" && index === false) throw new UsageError("order chunk needs index columns: rows out of C order must say where they come from", { option: "order", value: order });
	const rename = new Map<string, string>();
	for (const [from, to] of Object.entries(options.rename ?? {})) {
		if (typeof to !== "string" || to === "") throw new UsageError(`rename ${from}: the new name must be a non-empty string`, { option: "rename", value: to });
		rename.set(from, to);
	}
	if (options.column !== undefined && columns !== undefined) throw new UsageError("column conflicts with `columns`: the columns of a table are named after their arrays", { option: "column" });
	checkDatasetOptions(options, dataset);
	if ((options as { breakLock?: unknown }).breakLock !== undefined && !dataset) {
		throw new UsageError("breakLock applies to a part of a dataset folder (exportDataset), and this export writes one file or stream", { option: "breakLock" });
	}
	// Each store option by name: a new one is added here, as the other parts' are.
	const { headers, retries, timeoutMs, redirects, bufferPool, signRequests, env, forbiddenAsMissing, followLinksOutside } = options;
	// Checked whatever the store, so that options a local export takes are the ones a remote one takes.
	checkHttpStoreOptions({ headers, retries, timeoutMs, redirects });
	if (bufferPool !== undefined && !(bufferPool instanceof BufferPool)) throw new UsageError("bufferPool is internal to dt64-export's own stages: leave it out", { option: "bufferPool" });
	checkPartsOption(options);
	if (forbiddenAsMissing !== undefined && typeof forbiddenAsMissing !== "boolean") {
		throw new UsageError(`invalid forbiddenAsMissing ${JSON.stringify(forbiddenAsMissing)}: true or false`, { option: "forbiddenAsMissing", value: forbiddenAsMissing });
	}
	if (followLinksOutside !== undefined && typeof followLinksOutside !== "boolean") {
		throw new UsageError(`invalid followLinksOutside ${JSON.stringify(followLinksOutside)}: true or false`, { option: "followLinksOutside", value: followLinksOutside });
	}
	const alignOn = planAlignment(options);
	const dropInvalidDates = planInvalidDates(options, alignOn);
	const select = selectsRows(options) ? planSelection(options) : undefined;
	const datasetPlan = dataset ? planDataset(options, format) : undefined;
	if (datasetPlan?.maxPartitions !== undefined && datasetPlan.partitionBy !== undefined && select !== undefined) {
		checkPartitionsSpanned(select.bounds, datasetPlan.partitionBy, datasetPlan.maxPartitions);
	}
	return {
		open: {
			store: { headers, retries, timeoutMs, redirects, bufferPool, signRequests, env, forbiddenAsMissing, followLinksOutside, signal: options.signal },
			cf: { cf: options.cf ?? true, convertCalendar: options.convertCalendar ?? false, alignOn, unit: conversion.unit, rounding: conversion.rounding },
			...(columns === undefined ? { array: options.array } : { group: options.group ?? options.array, columns }),
			// Without index columns no coordinate is looked up, and a coordinate named in `columns` stays a value column.
			indexSource: indexSourceForExport(index),
		},
		read: { order, concurrency, onChunk: options.onChunk, index: index !== false, signal: options.signal },
		columns: {
			conversion,
			timezone,
			column: options.column,
			index: index !== false,
			rename,
			cf: options.cf ?? true,
			nanAsNull: options.nanAsNull ?? false,
			convertCalendar: options.convertCalendar ?? false,
			alignOn,
			dropInvalidDates,
			singleArray: columns === undefined,
			secondsAsMillis: format === "parquet",
		},
		output: planOutput(options, format),
		select,
		dataset: datasetPlan,
	};
}
