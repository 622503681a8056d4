import { refusedNodesWarning } from "../store/refused-nodes.js";
import { staleConsolidatedWarning } from "../store/stale-consolidated.js";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import { isatty } from "node:tty";
import type { RedirectPolicy } from "../store/http-store.js";
import type { Writable } from "node:stream";
import type { Schema } from "apache-arrow";
import { pipeline } from "node:stream/promises";
import yargs, { type Argv } from "yargs";
import { hideBin } from "yargs/helpers";
import type { OverflowPolicy, Rounding, TargetUnitOption } from "../convert/options.js";
import { Dt64ExportError, isDt64ExportError, oneLine, UsageError, writeFailure } from "../errors.js";
import { checkDatasetOptions, FILE_EXTENSIONS, planExport, type ColumnsPlan, type ExportPlan, type OutputFormat } from "../export-plan.js";
import { writesDataset } from "../select/selection-options.js";
import { createTableReader, openPlannedTable } from "../export-source.js";
import { firstChunkSent } from "../zarr/codecs/off-thread.js";
import { datetime64CfAttributesWarning } from "../cf/xarray-datetime64-warning.js";
import { YEAR_ALIGNED_CALENDAR, type CalendarAlignment } from "../cf/calendar-alignment.js";
import { parseCfCalendar } from "../cf/calendars.js";
import { CF_DECODED_KEY } from "../arrow/field-metadata-keys.js";
import type { ZarrTable } from "../open-table.js";
import { parseColumnList } from "./column-list.js";
import { parseRenameList } from "./rename-list.js";
import type { RowOrder } from "../stream/table-reader.js";
import { AtomicFileWriter, checkFileOutput, removePendingTempFiles, strayTemporaryFiles } from "../output/atomic-file.js";
import type { ParquetCompression } from "../stream/parquet/options.js";
import { BufferPool } from "../memory/buffer-pool.js";
import { WrittenBackWriter } from "../output/written-back.js";
import { collectHeaders } from "./header-options.js";
import { checkCommandLine, type CommandLine } from "./command-line.js";
import { completeWords } from "./completion.js";
import { declareOptions } from "./declare-options.js";
import { describeForCli } from "./error-advice.js";
import { safeMessageText } from "../message-text.js";
import { optionsFromEnvironment } from "./environment.js";
import { runInspect, type InspectArgs } from "./inspect-command.js";
import { exitOnInterrupt } from "./interrupt.js";
import { flag, OUTPUT_FLAGS, optionsOf, type RunFacts } from "./options.js";
import { resolveDatasetFormat, resolveOutputFormat } from "../output/output-format.js";
import { rewriteYargsMessage } from "./yargs-messages.js";
import { Progress } from "./progress.js";
import { refusedNodesJson, writeJsonSummary } from "./export-summary.js";
import { runCommit, runDatasetExport } from "./dataset-command.js";
import type { PartitionLevel } from "../output/hive-partition.js";
import { countText } from "./count-text.js";
import { forbiddenChunksNotice } from "./forbidden-chunks-notice.js";
import { droppedDatesNotice, droppedDatesText } from "./dropped-dates-notice.js";
import { overflowNullsText } from "./overflow-notice.js";
import { cfAutoUnitNotices } from "./cf-auto-unit-notice.js";
import { checkOutputOutsideStore, statOutput } from "../output/output-path.js";
import { caseOnlyNamesWarning, namesDifferingOnlyByCase } from "./case-only-names.js";
import { ignoreStderrFailures, writeStderrLine } from "./stderr-line.js";
import { endQuietlyOnClosedPipe } from "./closed-reader.js";
import { namedDescriptor } from "../output/named-descriptor.js";
import { runtimeFailure } from "../runtime-support.js";

const version = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

interface ExportArgs {
	store: string;
	array?: string;
	to?: OutputFormat;
	output?: string;
	unit: TargetUnitOption;
	tz?: string;
	allowTruncate: boolean;
	round: boolean;
	onOverflow: OverflowPolicy;
	column?: string;
	columns?: string;
	index?: string;
	rename?: string;
	cf: boolean;
	nanAsNull: boolean;
	order: RowOrder;
	concurrency?: number;
	progress?: boolean;
	json: boolean;
	quiet: boolean;
	force: boolean;
	breakLock: boolean;
	rowGroupRows: number | undefined;
	compression: ParquetCompression;
	header: string[];
	retries: number;
	timeout: number;
	redirects: RedirectPolicy;
	convertCalendar: boolean;
	alignOn?: CalendarAlignment;
	dropInvalidDates: boolean;
	signRequest: boolean;
	forbiddenAsMissing: boolean;
	followLinksOutside: boolean;
	start?: string;
	end?: string;
	timeColumn?: string;
	rangeSearch: boolean;
	timeSorted?: boolean;
	partitionBy?: PartitionLevel;
	part?: string;
	parts?: number;
	maxRowsPerFile?: number;
	maxPartitions?: number;
}

/** `--index` alone is coordinates (true); `--index positions` is positions; no `--index`, none. */
function parseIndexOption(value: string | undefined): boolean | "positions" {
	if (value === undefined || value === "false") return false;
	if (value === "" || value === "true") return true;
	if (value === "positions") return "positions";
	throw new UsageError(`--index ${JSON.stringify(value)}: write --index (coordinates where they exist) or --index positions`);
}

/**
 * The error line, written before the process exits: synchronously, since process.exit does not wait for a write to a
 * pipe that is still pending (a supervisor reading stderr got its first 64 KiB, without the code); a pipe that
 * cannot take it now (EAGAIN) gets it the ordinary way.
 */
function writeErrorLine(line: string): void {
	try {
		fs.writeSync(2, line);
	} catch {
		process.stderr.write(line);
	}
}

/**
 * The working folder for yargs, which asks for it before parsing anything (to look for configuration files this CLI
 * never reads): "/" when it has been removed (a shell left in a folder a previous step deleted), where process.cwd()
 * throws ENOENT. Absolute paths then export as anywhere else (trial 25, finding 17: every command failed with
 * `ENOENT: ... uv_cwd [INTERNAL]`); a relative one is refused as missing-folder (cwdGone).
 */
function workingFolderOrRoot(): string {
	try {
		return process.cwd();
	} catch {
		return "/";
	}
}

function fail(error: unknown): never {
	removePendingTempFiles();
	// A WebAssembly module this Node could not instantiate (under ulimit -v): said as such, not as a bug.
	if (!isDt64ExportError(error)) error = runtimeFailure(error) ?? error;
	if (process.env.DT64_DEBUG === "1") console.error(error);
	const message = isDt64ExportError(error) ? describeForCli(error) : (error as Error)?.message ?? String(error);
	// The library's code, for scripts and bug reports; an error that is not one of ours broke a contract: INTERNAL.
	const code = isDt64ExportError(error) ? error.code : "INTERNAL";
	writeErrorLine(`dt64-export: ${oneLine(safeMessageText(message))} [${code}]\n`);
	process.exit(isDt64ExportError(error) && error.kind === "usage" ? 2 : 1);
}

/**
 * The Arrow stages (apache-arrow is a third of the CLI's code) are loaded while the reader's first chunks are read
 * and decoded on the thread pool: their loading then costs no time of its own.
 */
const loadArrowStages = () => import("../export.js");

/** A single-file export of a time range or a part: the rows found, filtered to the range exactly. */
async function selectedStages(table: ZarrTable, plan: ExportPlan) {
	const stages = await (await import("../export-selection.js")).createSelectedStages(table, plan);
	const notice = stages.selection.unsortedReason === undefined ? undefined : `the time column is not sorted (${stages.selection.unsortedReason}): every row was read and filtered`;
	return { ...stages, notice };
}

/**
 * How long the Arrow stages wait for a local store's first chunk to reach a decode thread: reading it takes a few
 * ms; past this, something else holds it (a slow disk) and waiting would only delay the load.
 */
const FIRST_CHUNK_WAIT_MS = 50;

/**
 * The stages of an export. `startReading`: the first chunk is read while apache-arrow loads; not when the output is
 * yet to be checked (its name comes from the schema, without -o), so that nothing is read nor decoded for an export
 * refused there.
 */
async function exportStages(table: ZarrTable, plan: ExportPlan, local: boolean, startReading: boolean) {
	const reader = createTableReader(table, plan.read);
	// A failure before the pipeline is attached stays on the stream (pipeline reports it), not an uncaught error.
	reader.on("error", () => undefined);
	if (startReading) reader.read(0);
	// Loading apache-arrow holds this thread for about 40 ms: the first chunk is read and sent to its decode thread
	// first, to decode meanwhile (v3 zstd: sent 35-40 ms sooner). A remote store's first bytes take longer than the
	// load, which then waits for nothing.
	if (local && startReading) await firstChunkSent(FIRST_CHUNK_WAIT_MS);
	return (await loadArrowStages()).createStagesAround(table, reader, plan);
}

/**
 * The name of an export's file without -o (before its extension): the one value column asked for (its coordinates
 * follow it), as the schema names it (`column`, then `rename`); several: their group's (the table's name).
 */
function defaultOutputName(table: ZarrTable, columns: ColumnsPlan): string {
	const asked = table.columns.filter((column) => column.coordinate !== true);
	if (asked.length !== 1) return table.name;
	const name = columns.column ?? asked[0].name;
	return columns.rename.get(name) ?? name;
}

function terminalRefusal(format: OutputFormat): UsageError {
	const kind = format === "parquet" ? "Parquet" : "Arrow";
	return new UsageError(`refusing to write binary ${kind} data to a terminal: redirect it (> file, | program) or use -o <file>`);
}

/**
 * stdout's or a device's own write errors name no target ("ENOSPC: no space left on device, write"); they reach the
 * pipeline through whichever stage was writing (stdout to a file fails synchronously, inside the writer's push).
 * Every other failure is already a Dt64ExportError or comes from reading, never from a `write` call.
 */
function nameInPlaceFailure(error: unknown, name: string): unknown {
	return error instanceof Error && !isDt64ExportError(error) && (error as NodeJS.ErrnoException).syscall === "write" ? writeFailure(name, error) : error;
}

/** A folder named as the output of a one-file export: refused before the store is opened, and again when opened. */
function folderOutputRefusal(target: string): Dt64ExportError {
	return new Dt64ExportError("OUTPUT_INVALID", `${target} is a folder: name the output file (-o <folder>/<file>)`, { path: target });
}

/**
 * A device or a pipe that exists (`-o /dev/null`, a FIFO, `-o >(program)`) is written in place: renaming a
 * temporary file over it would replace it with a file. Undefined for a regular file, or none: that one is written
 * all or nothing (AtomicFileWriter). A folder is refused. A FIFO is opened once it has a reader (waitForReader).
 */
async function openInPlace(target: string, format: OutputFormat): Promise<Writable | undefined> {
	const stat = statOutput(target);
	if (stat?.isDirectory()) throw folderOutputRefusal(target);
	if (stat === undefined) return undefined;
	if (stat.isFile()) {
		// A file behind the shell's redirection (`-o /dev/stdout > f`, `>> log`): written through its descriptor, which
		// appends where the shell opened it to append; replaced, the redirection would lose it (see namedDescriptor).
		const descriptor = namedDescriptor(target);
		return descriptor === undefined ? undefined : endQuietlyOnClosedPipe(fs.createWriteStream(target, { fd: descriptor, autoClose: false }), descriptor);
	}
	let fd: number;
	try {
		// The FIFO is held open for writing while it is opened again to be written (blocking, the reader there):
		// closed first, its reader would see the end of its input before the export began.
		const probe = stat.isFIFO() ? await waitForReader(target) : undefined;
		try {
			fd = fs.openSync(target, "w");
		} finally {
			if (probe !== undefined) fs.closeSync(probe);
		}
	} catch (error) {
		throw writeFailure(target, error as Error);
	}
	if (isatty(fd)) {
		fs.closeSync(fd);
		throw terminalRefusal(format);
	}
	return endQuietlyOnClosedPipe(fs.createWriteStream(target, { fd }), fd);
}

/** How often a FIFO without a reader is looked at again (waitForReader). */
const FIFO_READER_POLL_MS = 50;

/**
 * A descriptor of the FIFO `target` open for writing without blocking, once it has a reader. Its plain open for
 * writing blocks until then, in a call that no signal handler interrupts (libuv restarts it; in a pool thread it
 * would keep the process from exiting): so it is tried without blocking (O_NONBLOCK fails with ENXIO while there is
 * no reader) every FIFO_READER_POLL_MS, the event loop free meanwhile for Ctrl-C's handler.
 */
async function waitForReader(target: string): Promise<number> {
	const { O_WRONLY, O_NONBLOCK } = fs.constants;
	for (;;) {
		try {
			return fs.openSync(target, O_WRONLY | O_NONBLOCK);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
		}
		await new Promise((resolve) => setTimeout(resolve, FIFO_READER_POLL_MS));
	}
}

/** One warning line per datetime64 column that carries CF attributes (xarray issue 11350). */
function warnOfDatetime64CfAttributes(table: ZarrTable): void {
	for (const column of table.columns) {
		if (column.kind !== "time" || column.metadata.dataType.kind !== "datetime64") continue;
		const warning = datetime64CfAttributesWarning(column.name, column.metadata.attributes);
		if (warning !== undefined) writeStderrLine(`dt64-export: ${warning}`);
	}
}

/** A store named by a URL (http(s)://, s3://, ...) is read over the network; anything else is a local path. */
const isRemote = (store: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(store);
const isS3 = (store: string) => /^s3:\/\//i.test(store);

/** What the planned columns say of the options that apply to some columns only. */
function columnFacts(schema: Schema): Pick<RunFacts, "timestamps" | "floats" | "modelCalendar" | "yearAlignable"> {
	const types = schema.fields.map((field) => String(field.type));
	const calendars = schema.fields.filter((field) => field.metadata.get(CF_DECODED_KEY) === "true").map((field) => parseCfCalendar(field.metadata.get("calendar")));
	const modelCalendar = calendars.some((calendar) => calendar.kind === "model");
	const yearAlignable = calendars.some((calendar) => calendar.name === YEAR_ALIGNED_CALENDAR);
	return { timestamps: types.some((type) => type.startsWith("Timestamp")), floats: types.some((type) => type.startsWith("Float")), modelCalendar, yearAlignable };
}

/**
 * One warning line per option given on the command line that does nothing in this run. Called again once more facts
 * are known (the planned columns), with the options `warned` already: each is named once.
 */
/** Names the temporary files an export of `target` killed outright left beside it (see strayTemporaryFiles). */
function warnOfStrayTemporaryFiles(target: string): void {
	for (const stray of strayTemporaryFiles(target)) {
		writeStderrLine(`dt64-export: warning: ${stray.path} (${countText(stray.bytes)} bytes) is the temporary file of an export of ${target} that was killed while writing: remove it`);
	}
}

function warnInapplicable(command: CommandLine, facts: RunFacts, warned = new Set<string>()): Set<string> {
	for (const option of optionsOf(command.command)) {
		const reason = command.given.has(option.name) && !warned.has(option.name) ? option.inapplicable?.(facts) : undefined;
		if (reason === undefined) continue;
		writeStderrLine(`dt64-export: warning: ${command.spelled?.get(option.name) ?? flag(option.name)} does nothing here: ${reason}`);
		warned.add(option.name);
	}
	return warned;
}

/** `--round` rounds to the nearest unit, `--allow-truncate` floors: one or the other. */
function roundingOf(args: Pick<ExportArgs, "allowTruncate" | "round">): Rounding {
	if (args.round && args.allowTruncate) throw new UsageError("--round rounds to the nearest unit and --allow-truncate floors: give one of them");
	return args.round ? "nearest" : args.allowTruncate ? "floor" : "error";
}

async function runExport(args: ExportArgs, command: CommandLine): Promise<void> {
	if (args.output === "") throw new UsageError("-o: empty file name (use -o <file>, or -o - for stdout)");
	const toStdout = args.output === "-";
	if (toStdout && args.json && command.given.has("json")) {
		throw new UsageError("--json prints the export's summary on stdout, where -o - writes its data: name an output file or folder with -o");
	}
	// DT64_EXPORT_JSON set for a job's other runs leaves an export to stdout its data alone.
	const json = args.json && !toStdout;
	const existing = args.output === undefined || toStdout ? undefined : statOutput(args.output);
	if (args.output !== undefined && !toStdout) checkOutputOutsideStore(args.store, args.output);
	// A dataset's -o is a folder, whose extension names its files' format as a file's does (Parquet when it names
	// none). A part to stdout is the part's rows as one stream.
	const dataset = args.partitionBy !== undefined || (args.part !== undefined && !toStdout);
	// Before the output's name is read for a format: -o names a folder when the user meant a dataset.
	checkDatasetOptions({ maxRowsPerFile: args.maxRowsPerFile }, dataset);
	// Without --partition-by it bounds nothing: a warning (below) when given, silence when set for a job's every run.
	const maxPartitions = args.partitionBy === undefined ? undefined : args.maxPartitions;
	const format = dataset
		? resolveDatasetFormat(args.to, args.output, OUTPUT_FLAGS)
		: resolveOutputFormat(args.to, args.output, existing !== undefined && (!existing.isFile() || namedDescriptor(args.output!) !== undefined), OUTPUT_FLAGS);
	const selects = args.start !== undefined || args.end !== undefined || args.partitionBy !== undefined;
	const facts: RunFacts = {
		format,
		remote: isRemote(args.store),
		s3: isS3(args.store),
		selects,
		ranged: args.start !== undefined || args.end !== undefined,
		dataset,
		partitioned: args.partitionBy !== undefined,
		parted: args.part !== undefined,
		quiet: args.quiet,
	};
	const warned = warnInapplicable(command, facts);
	if (!dataset && args.output !== undefined && !toStdout && namedDescriptor(args.output) === undefined) {
		// A file that exists (without --force), or a folder this process may not write in: refused before the store is
		// opened, its chunks read and decoded (see checkFileOutput). A device or a FIFO is written in place (openInPlace).
		// A folder too: refused after the store was opened, a float CF time array had been read whole for its unit.
		if (existing?.isDirectory()) throw folderOutputRefusal(args.output);
		if (existing === undefined || existing.isFile()) checkFileOutput(args.output, args.force);
		warnOfStrayTemporaryFiles(args.output);
	}
	// The reader starts before the progress line exists: chunks decoded until then count in its first update.
	let progress: Progress | undefined;
	// The chunks' buffers come from one pool: encoded bytes go back once decoded, and a file hands a chunk's
	// decoded buffer back once written (see BufferPool), for the next chunks.
	// A time range's filter says dead the bytes of the rows it leaves out, as the file says those it writes (TimeFilter).
	// (Not for partitions or a part: their rows are routed to many files. Nor when rows of dates that do not exist are
	// left out: those batches are copied without them.)
	const bufferPool = writesDataset({ part: args.part, partitionBy: args.partitionBy }) || args.dropInvalidDates ? undefined : new BufferPool();
	const index = parseIndexOption(args.index);
	const plan = planExport({
		array: args.array,
		columns: args.columns === undefined ? undefined : args.columns.trim() === "all" ? "all" : parseColumnList(args.columns),
		column: args.column,
		format,
		unit: args.unit,
		timezone: args.tz,
		rounding: roundingOf(args),
		onOverflow: args.onOverflow,
		concurrency: args.concurrency,
		rowGroupRows: args.rowGroupRows,
		compression: args.compression,
		index,
		order: args.order,
		rename: args.rename === undefined ? undefined : parseRenameList(args.rename),
		cf: args.cf,
		convertCalendar: args.convertCalendar,
		alignOn: args.alignOn,
		dropInvalidDates: args.dropInvalidDates || undefined,
		nanAsNull: args.nanAsNull,
		onChunk: (chunk: number, total: number) => progress?.update(chunk, total),
		headers: collectHeaders(args.header),
		retries: args.retries,
		timeoutMs: args.timeout * 1000,
		redirects: args.redirects,
		signRequests: args.signRequest,
		forbiddenAsMissing: args.forbiddenAsMissing,
		followLinksOutside: args.followLinksOutside,
		bufferPool,
		start: args.start,
		end: args.end,
		timeColumn: args.timeColumn,
		rangeSearch: args.rangeSearch,
		timeSorted: args.timeSorted,
		part: args.part,
		// Without --part, --parts does nothing: the CLI warns (above) where the library refuses it.
		parts: args.part === undefined ? undefined : args.parts,
		partitionBy: args.partitionBy,
		maxRowsPerFile: args.maxRowsPerFile,
		maxPartitions,
	}, dataset);
	const showProgress = !args.quiet && (args.progress ?? process.stderr.isTTY === true);
	// What is said once the table is open and its columns planned, before anything is written; the progress line
	// then knows the rows to read.
	const planned = (table: ZarrTable, schema: Schema, rows: number) => {
		progress = showProgress ? new Progress(process.stderr, rows) : undefined;
		warnOfDatetime64CfAttributes(table);
		if (!args.quiet) for (const notice of cfAutoUnitNotices(table, plan.columns.conversion, index !== false)) writeStderrLine(`dt64-export: ${notice}`);
		const stale = staleConsolidatedWarning(table.staleConsolidatedMetadata ?? []);
		if (stale !== undefined) writeStderrLine(`dt64-export: warning: ${stale}`);
		const refused = refusedNodesWarning(table.refusedNodes ?? [], table.columns[0]?.metadata.path ?? table.name, "name it with --array (nothing is searched then)");
		if (refused !== undefined) writeStderrLine(`dt64-export: warning: ${refused}`);
		if (table.leftOut.length > 0 && !args.quiet) writeStderrLine(`dt64-export: columns${plan.open.columns === "all" ? " all" : ""} left out ${table.leftOut.join("; ")}`);
		// Without --index; --index positions asked for positions instead of them.
		const coordinates = table.coordinatesLeftOut ?? [];
		if (coordinates.length > 0 && index === false && !args.quiet) {
			const which = `${coordinates.length === 1 ? "coordinate" : "coordinates"} ${coordinates.join(", ")}`;
			writeStderrLine(`dt64-export: columns all left out the ${which}: the dimensions' index, exported as columns with --index`);
		}
		warnInapplicable(command, { ...facts, ...columnFacts(schema) }, warned);
		for (const pair of namesDifferingOnlyByCase(schema.fields.map((field) => field.name))) writeStderrLine(`dt64-export: ${caseOnlyNamesWarning(pair)}`);
	};
	if (plan.dataset !== undefined) {
		await runDatasetExport(args.store, args.output, plan, { quiet: args.quiet, json, overwrite: args.force, breakLock: args.breakLock }, planned, () => progress);
		return;
	}
	if (toStdout && process.stdout.isTTY) throw terminalRefusal(format);
	// Opening the store and searching the time range write nothing: a signal meanwhile ends the process at once, a
	// request to a server that does not answer with it.
	const stopExitingWhileOpening = exitOnInterrupt();
	let target = args.output ?? "";
	// Without -o, the name the table gives, checked as -o is before the store is opened: once the table is laid out,
	// before any chunk is read (--unit auto's pass over float CF counts, a time range's search, the export's reader).
	const table = await openPlannedTable(args.store, plan.open, (laidOut) => {
		if (args.output !== undefined) return;
		target = `${defaultOutputName(laidOut, plan.columns)}.${FILE_EXTENSIONS[format]}`;
		if (namedDescriptor(target) !== undefined) return;
		const named = statOutput(target);
		if (named?.isDirectory()) throw folderOutputRefusal(target);
		if (named?.isFile() !== false) checkFileOutput(target, args.force);
	});
	const stages = plan.select === undefined ? { ...(await exportStages(table, plan, !isRemote(args.store), args.output !== undefined)), filter: undefined, notice: undefined } : await selectedStages(table, plan);
	const rows = stages.reader.totalRows;
	planned(table, stages.batcher.schema, rows);
	// A FIFO's open waits for its reader with the signal handlers in place (see openInPlace), so Ctrl-C ends that wait.
	const inPlace = toStdout ? endQuietlyOnClosedPipe(process.stdout, 1) : await openInPlace(target, format);
	let destination: Writable | undefined;
	// Before the temporary file exists, so that no signal finds it without a handler to remove it; SIGHUP too:
	// closing the terminal must not leave it behind. The handlers of the opening go only once these are in place: a
	// signal between the two would be lost (taken by a handler removed before it ran).
	exitOnInterrupt(() => {
		stages.reader.destroy();
		destination?.destroy();
		removePendingTempFiles();
		progress?.done();
	});
	stopExitingWhileOpening();
	destination =
		inPlace === undefined
			? new AtomicFileWriter(target, { overwrite: args.force, bufferPool })
			: bufferPool === undefined
				? inPlace
				: new WrittenBackWriter(inPlace, bufferPool, { endInner: !toStdout });
	try {
		const filter = stages.filter === undefined ? [] : [stages.filter];
		await pipeline([stages.reader, stages.batcher, ...filter, stages.writer, destination] as unknown as NodeJS.ReadWriteStream[]);
	} catch (error) {
		throw inPlace === undefined ? error : nameInPlaceFailure(error, toStdout ? "stdout" : target);
	}
	progress?.finish(stages.reader.totalChunks);
	if (stages.notice !== undefined && !args.quiet) writeStderrLine(`dt64-export: ${stages.notice}`);
	const overflow = overflowNullsText((stages.filter ?? stages.batcher).overflowNulls?.counts ?? {}, stages.batcher.schema);
	const written = stages.filter?.rowsOut ?? stages.batcher.rowsOut;
	const forbidden = table.store.forbiddenAsMissing;
	const notice = forbiddenChunksNotice(forbidden);
	if (notice !== undefined) writeStderrLine(notice);
	const dropped = stages.batcher.droppedInvalidDates;
	const droppedNotice = droppedDatesNotice(dropped);
	if (droppedNotice !== undefined) writeStderrLine(droppedNotice);
	if (json) {
		const overflowNulls = (stages.filter ?? stages.batcher).overflowNulls?.counts ?? {};
		await writeJsonSummary({
			output: target,
			format,
			rows: written,
			overflowNulls,
			...(forbidden === undefined ? {} : { forbiddenChunks: forbidden.count }),
			...(dropped === undefined ? {} : { droppedInvalidDates: dropped }),
			...refusedNodesJson(table),
		});
	}
	if (!args.quiet && !toStdout && !json) {
		writeStderrLine(`wrote ${countText(written)} ${written === 1 ? "row" : "rows"} to ${target}${overflow}${droppedDatesText(dropped)}`);
	} else if (!args.quiet && !json && overflow !== "") writeStderrLine(`dt64-export: ${overflow.slice(2)}`);
}

const STORE_HELP =
	"a folder, a .zip file, an http(s):// URL, or s3://bucket/path, gs://bucket/path, az://container/path, abfs[s]://container@account.dfs.core.windows.net/path";

const COMPLETION_HELP = "print a bash/zsh completion script (dt64-export completion >> ~/.bashrc)";

/**
 * The `completion` subcommand. yargs prints its script whenever the word is on the command line, `--help` or not:
 * asked for help, it is declared as a plain command instead, whose help yargs prints as the other commands'.
 */
function declareCompletion<T>(y: Argv<T>, commandLine: CommandLine, argv: string[]): Argv<T> {
	if (commandLine.command === "completion" && commandLine.given.has("help")) {
		return y.command("completion", COMPLETION_HELP, (c) => c.example("$0 completion >> ~/.bashrc", "completes subcommands, options and their choices (zsh: ~/.zshrc)"));
	}
	return y.completion("completion", COMPLETION_HELP, (_current: string, _argv: unknown) => completeWords(argv.slice(argv.indexOf("--get-yargs-completions") + 2)));
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
	process.on("uncaughtException", fail);
	process.on("unhandledRejection", fail);
	ignoreStderrFailures();
	// yargs answers the shell's completion requests itself (from completeWords below): no checks on those words.
	const completing = argv.includes("--get-yargs-completions");
	const commandLine = completing ? { command: "export" as const, given: new Set<string>() } : checkCommandLine(argv);
	const environment = optionsFromEnvironment(commandLine.command, process.env, commandLine.given);
	for (const warning of environment.warnings) writeStderrLine(`dt64-export: warning: ${warning}`);
	const parser = yargs(commandLine.argv ?? argv, workingFolderOrRoot())
		.scriptName("dt64-export")
		.usage("$0 <store> [options]\n\nExport a Zarr (v3 or v2) numpy.datetime64 or timedelta64 array, alone or with companion arrays, to Arrow IPC or Parquet.")
		.command<InspectArgs>(
			"inspect <store>",
			"describe the arrays and groups of a store",
			(y) =>
				declareOptions(y.positional("store", { type: "string", describe: STORE_HELP, demandOption: true }), "inspect").example(
					"$0 inspect data/sharded-2d.zarr",
					"nodes, data types, chunking, codecs, first and last values",
				),
			(args) => {
				warnInapplicable(commandLine, { remote: isRemote(args.store), s3: isS3(args.store) });
				return runInspect(args);
			},
		)
		.command<{ folder: string; json: boolean; quiet: boolean }>(
			"commit <folder>",
			"check that every part of a dataset folder has finished and agrees, then write its _SUCCESS",
			(y) =>
				declareOptions(y.positional("folder", { type: "string", describe: "the dataset folder the parts wrote (-o)", demandOption: true }), "commit").example(
					"$0 commit out/",
					"after every --part K/N task has finished",
				),
			(args) => runCommit(args.folder, args.json, args.quiet),
		)
		.command<ExportArgs>(
			"$0 <store>",
			"export a datetime64 array",
			(y) =>
				declareOptions(y.positional("store", { type: "string", describe: STORE_HELP, demandOption: true }), "export")
					.example("$0 data/weather-station.zarr -o weather.arrow", "IPC file (the format from the extension)")
					.example("$0 data/observations.zarr --array time --to parquet --tz UTC", "Parquet, UTC timestamps")
					.example("$0 data/observations.zarr --columns time,temperature,station --index --to parquet", "arrays of a group as one table, broadcast by dimension names")
					.example("$0 data/weather-station.zarr --start 2023-03 --end 2023-04 --partition-by day -o march/", "one month as a Hive-partitioned Parquet dataset")
					.example("$0 era5.zarr --columns all --index -o era5.parquet", "a dataset xarray wrote, as ds.to_dataframe().reset_index() gives it")
					.example("$0 data/weather-station.zarr --to arrow-stream -o - | python3 -c 'import pyarrow as pa,sys; print(pa.ipc.open_stream(sys.stdin.buffer).read_all())'", "stream to another program (here Python with pyarrow installed)"),
			(args) => runExport(args, commandLine),
		);
	await declareCompletion(parser, commandLine, argv)
		.config(environment.values)
		.epilogue(
			"The data/ stores of the examples are the sample stores the package ships (in $(npm root -g)/dt64-export/data after npm i -g, or a clone's data/), or name your own store. " +
				"Every option can also be set in the environment as DT64_EXPORT_<OPTION> (DT64_EXPORT_CONCURRENCY=2, DT64_EXPORT_ALLOW_TRUNCATE=true); the command line wins. " +
				"Exit codes: 0 success, 2 usage error, 1 any other error; 130, 143, 129 when interrupted by SIGINT, SIGTERM, SIGHUP (nothing half-written is left).",
		)
		.version(version)
		.describe("version", "show the version")
		.alias("h", "help")
		.describe("help", "show help")
		.wrap(Math.min(110, process.stdout.columns ?? 110))
		.fail((message, error) => {
			// The command line's mistakes are found before yargs sees it (checkCommandLine) or by the option table's
			// checks, which reach here as a YError with their message: a usage error either way, and one in yargs'
			// wording is rewritten.
			if (error && error.name !== "YError") fail(error);
			const text = message ?? error.message;
			fail(new UsageError(rewriteYargsMessage(text) ?? text));
		})
		.parseAsync();
}
