/**
 * The export pipeline, one for every export: a single array is a one-column table. The plan (export-plan.ts) is
 * made once from the options; the table is opened and its reader made (export-source.ts); the batcher and the
 * writer are built here around the reader, each from its part of the plan.
 */
import { checkDestinationArgument, checkOverwrite, checkTableArgument, optionsArgument, outputArgument, storeArgument } from "./call-arguments.js";
import type { Readable, Transform, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Schema } from "apache-arrow";
import { abortable, asAbortError, followingSignal, isAborted, throwIfAborted } from "./abort.js";
import { UsageError, withErrorFields } from "./errors.js";
import { OUTPUT_FORMATS, planExport, type ExportOptions, type ExportPlan, type ExportSettings, type OutputPlan } from "./export-plan.js";
import { poolOf } from "./memory/opened-pool.js";
import { createTableReader, openPlannedTable } from "./export-source.js";
import type { ZarrTable } from "./open-table.js";
import { AtomicFileWriter, checkFileOutput, strayTemporaryFiles, type StrayTemporaryFile } from "./output/atomic-file.js";
import { BufferPool } from "./memory/buffer-pool.js";
import { IpcWriter, SMALL_PIECE_BYTES } from "./stream/ipc-writer.js";
import { createParquetWriter } from "./stream/parquet/parquet-writer.js";
import { tableBatcherWith, type TableBatcher } from "./stream/table-batcher.js";
import type { TableReader } from "./stream/table-reader.js";
import { writesDataset } from "./select/selection-options.js";
import { planTableColumns } from "./table/column-kinds.js";
import { withIndexSource } from "./table/index-source.js";
import { LIBRARY_SPELLING, resolveOutputFormat } from "./output/output-format.js";
import { absoluteOutput, checkOutputOutsideStore, statOutput } from "./output/output-path.js";
import { checkDestinationOpen, destinationFailure, intoCallerDestination } from "./output/caller-destination.js";

/** The stages of an export, to pipe with `stream.pipeline` or to use one by one. */
export interface ExportStages {
	readonly reader: TableReader;
	readonly batcher: TableBatcher;
	readonly writer: Transform;
	readonly table: ZarrTable;
}

/**
 * The encoder of one output file (or stream): Parquet, or Arrow IPC file or stream. The Parquet writer copies each
 * batch into WebAssembly, then hands its buffers back to `bufferPool` (an IPC writer passes them on to the output,
 * and hands back those it copies, the small pieces it joins).
 */
export function createWriter(output: OutputPlan, schema: Schema, bufferPool?: BufferPool): Transform {
	return output.format === "parquet"
		? createParquetWriter({ compression: output.compression, rowGroupRows: output.rowGroupRows }, bufferPool)
		: new IpcWriter(output.format === "arrow" ? "file" : "stream", schema, bufferPool);
}

/** The batcher and the writer around a reader made beforehand (createTableReader), each from its part of the plan. */
export function createStagesAround(table: ZarrTable, reader: TableReader, plan: ExportPlan): ExportStages {
	const pool = poolOf(table);
	const batcher = tableBatcherWith({
		...planTableColumns(table, plan.columns, {
			// The reader's bands are its own decoded chunks, read by no one else: they are converted where they are.
			convertInPlace: true,
			// Written whole by the output, a bitmap comes back to the pool as chunks do; small ones are joined with the
			// pieces around them by the IPC writer (a copy), so they would never come back.
			allocateBitmap: pool === undefined ? undefined : (bytes) => (bytes >= SMALL_PIECE_BYTES ? pool.acquire(bytes) : new Uint8Array(bytes)),
			allocateValues: pool === undefined ? undefined : (length) => (length * 8 >= SMALL_PIECE_BYTES ? new BigInt64Array(pool.acquire(length * 8).buffer, 0, length) : new BigInt64Array(length)),
			releaseValues: pool === undefined ? undefined : (values) => pool.release(new Uint8Array(values.buffer, values.byteOffset, values.byteLength)),
		}),
		// Position index columns too, written whole (N-d batches: a megabyte-sized column per dimension per batch).
		allocateIndex: pool === undefined ? undefined : (length) => (length * 8 >= SMALL_PIECE_BYTES ? new BigInt64Array(pool.acquire(length * 8).buffer, 0, length) : new BigInt64Array(length)),
		countOverflowNulls: plan.columns.conversion.onOverflow === "null",
		invalidDateBounds: plan.select?.bounds,
	});
	const writer = createWriter(plan.output, batcher.schema, pool);
	// Encoded bytes waiting in the writer mean the destination is behind: a chunk read ahead now would only wait too
	// (measured on 50M gzip values to a file: the worst of nine peaks 108 -> 100 MiB, no slower). So does a write the
	// destination has not finished: the pipe pauses the writer until the destination drains (a chunk of 8 MB is
	// past any destination's high-water mark), and each chunk read meanwhile is one more chunk of memory (20M zstd
	// values to a file: 145 -> 137 MiB, blosc-lz4 150 -> 142, no slower).
	reader.holdReadAheadWhile(() => writer.readableLength > 0 || writer.readableFlowing === false);
	return { reader, batcher, writer, table };
}

/** The options of an export that open its store or its file, which createTableExportStages cannot honour. */
const OPENING_OPTIONS = ["array", "group", "columns", "column", "headers", "retries", "timeoutMs", "redirects", "signRequests", "env", "overwrite", "cf", "convertCalendar", "alignOn", "nanAsNull"] as const;

/**
 * Builds the reader, batcher and writer for an opened table. Options are checked here, before any read. The rows
 * of a time range or a part are found by reading the time first, which these stages cannot wait for: exportSelection
 * writes them.
 */
export function createTableExportStages(table: ZarrTable, options: ExportOptions | null = {}): ExportStages {
	checkTableArgument("createTableExportStages", table);
	options = optionsArgument(options);
	// The table is open already: what opens a store, or writes a file, has nothing to do here.
	for (const option of OPENING_OPTIONS) {
		if ((options as Record<string, unknown>)[option] !== undefined) {
			throw new UsageError(`${option} applies when a store is opened (openTable, or the exports that open one), not to the stages of a table open already`, { option });
		}
	}
	// A model calendar's time is converted as the table was opened (convertCalendar, alignOn): leaving its dates out
	// is the stages' part, asked here without convertCalendar, which holds when the table converts such a time.
	const converts = [...table.columns, ...table.index.flatMap((entry) => (entry.kind === "coordinate" ? [entry.column] : []))].some(
		(column) => column.kind === "plain" && column.cfTime?.coding.calendar?.kind === "model",
	);
	const plan = planExport(options.dropInvalidDates === true && converts ? { ...options, convertCalendar: true } : options, false);
	if (plan.select !== undefined) {
		const option = options.start !== undefined ? "start" : options.end !== undefined ? "end" : "part";
		throw new UsageError(`${option} selects rows, found by reading the time column first: exportSelection writes them`, { option });
	}
	// The columns the one call writes with these options: without the index, a coordinate named in columns is one.
	const exported = withIndexSource(table, plan.open.indexSource);
	return createStagesAround(exported, createTableReader(exported, plan.read), plan);
}

/**
 * Runs the stages of an export into its destination, the last of `chain`: a failure of the destination (its own
 * error, or its closing mid-export) rejects as WRITE_FAILED (destinationFailure), the export's own errors (and
 * those of an `onChunk` callback) as they are. With `signal`, an abort destroys them all and rejects with Node's
 * AbortError (see abort.ts); a signal aborted already destroys them before anything runs (a file writer's temporary
 * file is removed, a dataset writer's folders).
 */
export async function runStages(chain: readonly (Readable | Writable)[], signal: AbortSignal | undefined): Promise<void> {
	// Aborted already, or a destination that cannot take the export: the stages are destroyed unrun (a file writer's
	// temporary file removed, a dataset writer's folders).
	try {
		throwIfAborted(signal);
		checkDestinationOpen(chain[chain.length - 1] as Writable);
	} catch (error) {
		for (const stream of chain) stream.destroy();
		throw error;
	}
	// The stream that failed first: the pipeline then destroys the others with the same error, the destination too,
	// so the destination emitting an error does not make it the cause.
	let first: Readable | Writable | undefined;
	for (const stream of chain) stream.on("error", () => (first ??= stream));
	// Under a signal of its own that follows the caller's: pipeline listens to the signal it is given, a listener per
	// export on a signal a service shares (MaxListenersExceededWarning at the eleventh export at once).
	const following = signal === undefined ? undefined : followingSignal(signal);
	try {
		await pipeline(chain as unknown as NodeJS.ReadWriteStream[], ...(following === undefined ? [] : [{ signal: following.signal }]));
	} catch (error) {
		if (isAborted(signal)) throw asAbortError(error, signal);
		throw destinationFailure(error, first === chain[chain.length - 1]);
	} finally {
		following?.release();
	}
}

/**
 * Whether the export writes part of a batch's rows where nothing says the others dead (a part, partitions, dates left
 * out): the chunk buffers behind the batches then never come back to a pool whole. A time range's filter says dead
 * the rows it leaves out (TimeFilter).
 */
function writesPartOfBatches(options: ExportOptions): boolean {
	return writesDataset(options) || options.dropInvalidDates === true;
}

/** The table an export wrote, with the rows it left out when asked to (`dropInvalidDates`). */
export type TableExport = ZarrTable & {
	/**
	 * With `dropInvalidDates`: the rows left out because their time coordinate held a date the proleptic Gregorian
	 * calendar lacks (those within the time range, with `start`/`end`). Absent without the option.
	 */
	readonly droppedInvalidDates?: number;
};

async function exportPlanned(store: string, plan: ExportPlan, destination: () => Writable): Promise<TableExport> {
	const signal = plan.read.signal;
	return abortable(signal, async () => {
		const table = await openPlannedTable(store, plan.open);
		// A time range or a part: only the rows selected are read, then filtered to the range (export-selection.ts).
		const stages =
			plan.select === undefined
				? { ...createStagesAround(table, createTableReader(table, plan.read), plan), filter: undefined }
				: await (await import("./export-selection.js")).createSelectedStages(table, plan);
		const filter = stages.filter === undefined ? [] : [stages.filter];
		// Checked before the destination is made: an abort meanwhile then creates no temporary file to remove.
		throwIfAborted(signal);
		await runStages([stages.reader, stages.batcher, ...filter, stages.writer, destination()], signal);
		const dropped = stages.batcher.droppedInvalidDates;
		return dropped === undefined ? table : Object.assign(table, { droppedInvalidDates: dropped });
	});
}

/**
 * One call: opens the store's time array (`array` naming it), or the `columns` of a group as one table, and
 * writes it to `destination` (a file stream, stdout...).
 */
export async function exportTable(storeGiven: string | URL, destination: Writable, options: ExportOptions | null = {}): Promise<TableExport> {
	const store = storeArgument(storeGiven);
	options = optionsArgument(options);
	checkDestinationArgument(destination);
	// Rows of a part or left out are written in part of their chunks' batches: those buffers never come back whole.
	return intoCallerDestination(destination, options, (held) =>
		exportPlanned(store, planExport({ ...options, ...(writesPartOfBatches(options) ? { bufferPool: undefined } : {}), signal: held.signal }, false), held.take),
	);
}

/** What exportToFile resolves to: the table it wrote, and what it found beside the file. */
export type FileExport = TableExport & {
	/**
	 * Temporary files of earlier exports to the same path that were killed outright (SIGKILL, the OOM killer), found
	 * when this one started: named for the caller to remove (or log), never removed (see strayTemporaryFiles); the
	 * CLI prints them as warnings. Empty when there are none.
	 */
	readonly strayTemporaryFiles: readonly StrayTemporaryFile[];
};

/**
 * One call to a file, written all or nothing: a temporary file beside `path`, renamed over it once complete (see
 * AtomicFileWriter); an existing file is an OUTPUT_EXISTS error unless `overwrite`. The chunks' buffers go back
 * for the next chunks once written, as the CLI's do.
 */
export async function exportToFile(storeGiven: string | URL, path: string, options: (ExportOptions & { overwrite?: boolean | undefined }) | null = {}): Promise<FileExport> {
	const store = storeArgument(storeGiven);
	path = outputArgument(path, "path");
	options = optionsArgument(options);
	checkOverwrite(options.overwrite);
	// Rows of a part or left out are written in part of their chunks' batches: those buffers never come back whole.
	// The CLI's own pool (ExportSettings), when it gives one: a caller's is refused by planExport.
	const given = (options as ExportSettings).bufferPool;
	const bufferPool = writesPartOfBatches(options) ? undefined : (given ?? new BufferPool());
	path = absoluteOutput(path);
	// The format the file's name says, as -o's does; `format` may only agree. A device or a pipe says none (and a
	// folder is refused by the writer), nor does a format planExport refuses anyway.
	const existing = statOutput(path);
	checkOutputOutsideStore(store, path);
	const known = options.format === undefined || OUTPUT_FORMATS.includes(options.format);
	const format = known ? resolveOutputFormat(options.format, path, existing !== undefined && !existing.isFile(), LIBRARY_SPELLING) : options.format;
	const plan = planExport({ ...options, format, bufferPool }, false);
	// Looked for before this export's own temporary file exists.
	const stray = strayTemporaryFiles(path);
	try {
		// Before the store is opened: an export refused OUTPUT_EXISTS compiles no decoder and starts no thread.
		checkFileOutput(path, options.overwrite ?? false);
		const table = await exportPlanned(store, plan, () => new AtomicFileWriter(path, { overwrite: options.overwrite ?? false, bufferPool }));
		return Object.assign(table, { strayTemporaryFiles: stray });
	} catch (error) {
		// A stage that writes bytes without knowing where to (the Parquet encoder) is named by the file it wrote to.
		throw withErrorFields(error, ["WRITE_FAILED"], { path });
	} finally {
		// The table this resolves to keeps the pool: its free buffers (a few chunks' worth) go now, not with the table.
		if (bufferPool !== given) bufferPool?.retire();
	}
}
