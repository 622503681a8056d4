/**
 * Writes RecordBatches as one part of a dataset folder: rows routed to Hive partitions by their time (or all in
 * the folder itself), each file written atomically under a name of this part, at most `maxOpenFiles` open at once.
 * While the time arrives sorted, rows go straight to their partition's file (see OpenPartitions). Unsorted, they
 * are held in memory per partition (PartitionBuffers) and written in large batches: an open file's rows once there
 * are enough of them, the largest partition's when the rows held pass the memory budget, and all of them at the end,
 * so a partition gets one file while its rows fit in the budget, and a few more beyond, whatever the order.
 * When every file is in place, the files this part wrote in an earlier run and not now are removed (a part run
 * again replaces exactly its own files), and the part's manifest is written last: a part without a manifest is
 * not finished, whatever files it left. A run that fails or is interrupted before its manifest undoes itself
 * (see `abandon`). A part's run, and a whole export that replaces a dataset, write their files aside (`replacing`)
 * and put them in place only once all are written: a run that fails leaves the part's earlier run (or the previous
 * dataset) as it was, committed if it was.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { once } from "node:events";
import { Writable, type Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { RecordBatch, Schema } from "apache-arrow";
import { floorDiv } from "../convert/bigint-division.js";
import { formatIsoTimestamp } from "../convert/iso8601.js";
import type { OverflowNulls } from "../convert/overflow-nulls.js";
import { ATTOSECONDS_PER_UNIT, type TargetUnit } from "../dtype/units.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { Part } from "../select/part.js";
import type { TimeBounds } from "../select/time-bounds.js";
import type { RowRange } from "../select/time-search.js";
import { KEYS_NAMED, type ForbiddenChunks } from "../store/forbidden-chunks.js";
import { AtomicFileWriter, keepAttributesOf } from "./atomic-file.js";
import { isFileOfPart, listDataset, manifestPath, partFileName, PARTS_FOLDER, SUCCESS_FILE } from "./dataset-files.js";
import { makeFolder } from "./make-folder.js";
import { HivePartitions, hivePartitionOf, PARTITION_LEVELS, type PartitionLevel } from "./hive-partition.js";
import { writeJsonFile, MANIFEST_VERSION, type ManifestFile, type PartManifest, type SlicedTable } from "./manifest.js";
import { PartitionCount } from "./partition-bound.js";
import { OpenPartitions, type PartitionFile, type RowsStart, type TimeRange } from "./open-partitions.js";
import { DEFAULT_BUFFER_BYTES, PartitionBuffers } from "./partition-buffers.js";

/** Open files by default: each holds up to a row group of rows in memory until it is closed. */
const DEFAULT_MAX_OPEN_FILES = 16;

/**
 * Rows of unsorted time held for an open file before they are written to it: one write per 64 Ki rows (the slice
 * the Parquet writer hands to WebAssembly) rather than one per input batch's few rows of each partition.
 */
const WRITE_ROWS = 1 << 16;

/** Hive's (and Spark's, DuckDB's) name for the partition of rows whose partition value is null. */
const NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__";

export interface DatasetWriterOptions {
	readonly folder: string;
	readonly part: Part;
	/** File extension of the data files: `parquet` or `arrow`. */
	readonly extension: string;
	/** The encoder of one file (a Parquet or Arrow IPC file writer stage). */
	createFileWriter(schema: Schema): Transform;
	/** The column rows are partitioned by and whose range the manifest records; none: no partitions, no range. */
	readonly timeColumn: string | undefined;
	readonly timeUnit: TargetUnit;
	readonly partitionBy?: PartitionLevel;
	readonly maxRowsPerFile?: number;
	/** The time range selected (`start`, `end`), if any: a part of no rows puts its file in a partition of it (see #writeEmptyFile). */
	readonly range?: TimeBounds;
	readonly maxOpenFiles?: number;
	/** The partitions this run may write at most (see partition-bound.ts); none: as many as the data has. */
	readonly maxPartitions?: number;
	/** The memory rows of unsorted time held back may take; default DEFAULT_BUFFER_BYTES (tests lower it). */
	readonly bufferBytes?: number;
	/** What the manifest records as this part's options, and their digest (see digestOptions). */
	readonly options: Record<string, unknown>;
	readonly optionsDigest: string;
	/** The values of the rows written that are null because they overflowed, per column; read when the part ends. */
	readonly overflowNulls?: () => OverflowNulls;
	/**
	 * With `forbiddenAsMissing`: the chunks the part's store read as missing because S3 answered 403, counted by the
	 * time the part ends (see PartManifest.forbiddenChunks).
	 */
	readonly forbiddenChunks?: ForbiddenChunks;
	/** With `dropInvalidDates`: the rows the part left out because their date does not exist; read when the part ends. */
	readonly droppedInvalidDates?: () => number | undefined;
	/** The table the part's rows were cut from, and the rows along its first axis the part read (see PartManifest). */
	readonly slice?: { readonly table: SlicedTable; readonly rows: RowRange };
	/**
	 * Run once the manifest is written, as the last step of the part: a whole export commits the dataset here, so that
	 * a commit that fails (a `_SUCCESS` the disk has no room for) fails the run, which is then undone as any failed run
	 * is, its manifest included: nothing of it is left to pass for finished.
	 */
	readonly commit?: () => Promise<void>;
	/**
	 * A run that replaces what the folder holds (a part's run, whose earlier run it replaces; a whole export replacing
	 * the dataset): its files are written below `staging` (a folder of its own, which readers skip), what they replace
	 * left as it is, committed if it was; once every file is written, `clear` removes the marker (`_SUCCESS`) and the
	 * manifests replaced, the files are moved in place, then `clear` removes the replaced files but those of `kept`
	 * (a part's earlier files not replaced are removed by the writer itself, as without `replacing`).
	 */
	readonly replacing?: {
		readonly staging: string;
		clear(kept: ReadonlySet<string>, phase: "marker" | "files"): void;
		/** Whether the folder holds data files of what the run replaces (the dataset, or the part's earlier run). */
		holdsEarlierFiles(): boolean;
	};
}

/**
 * The suffix of a file written aside (see DatasetWriterOptions.replacing): no reader's glob of the dataset
 * (all `.parquet` files below the folder) takes it for data meanwhile.
 */
const STAGED_SUFFIX = ".staged";

/** Rows [from, to) of a batch, all of one partition. */
interface PartitionRun extends RowsStart {
	readonly from: number;
	readonly to: number;
	readonly partition: string;
}

/** The one "partition" of rows not partitioned by time. */
const WHOLE_RANGE = { path: "", low: -(2n ** 63n), high: 2n ** 63n };

interface OpenFile extends PartitionFile {
	readonly relative: string;
	readonly encoder: Transform;
	/** The file on disk: a temporary file until it is moved to its name. */
	readonly sink: AtomicFileWriter;
	readonly done: Promise<void>;
	rows: number;
}

/** The dataset writers of this process that have not finished, for a signal handler to abandon. */
const unfinished = new Set<DatasetWriter>();

/** Undoes every dataset part this process is writing (on a signal, before exiting): see DatasetWriter.abandon. */
export function abandonUnfinishedDatasets(): void {
	for (const writer of unfinished) writer.abandon();
}

export interface DatasetSummary {
	readonly files: readonly ManifestFile[];
	readonly rows: number;
	/** Per column, the values written as null because they were outside int64 in its unit (`onOverflow: "null"`). */
	readonly overflowNulls: OverflowNulls;
	/** With `dropInvalidDates`: the rows left out because their time coordinate held a date that does not exist. */
	readonly droppedInvalidDates?: number;
	readonly manifest: string;
}

export class DatasetWriter extends Writable {
	readonly #options: DatasetWriterOptions;
	readonly #partitions: OpenPartitions<OpenFile>;
	readonly #written: ManifestFile[] = [];
	/**
	 * The files this run opened and has not finished; a finished one is in #written, by name only: an encoder keeps
	 * its buffers, and unsorted time may finish thousands of files.
	 */
	readonly #files = new Set<OpenFile>();
	/** The folders this run created (the dataset's own, partitions), to remove once empty if the run is abandoned. */
	readonly #createdFolders: string[] = [];
	/** Set once the manifest is written: the part is finished and nothing of it is undone. */
	#finished = false;
	/**
	 * Set once a replacing run starts moving its files in place: `removable` when they replace nothing (no file of
	 * what the run replaces was there), so that undoing the run may remove them; otherwise they stay (see abandon).
	 */
	#movedIn: "removable" | "kept" | undefined;
	/**
	 * Set as the manifest starts being written (then `_SUCCESS`, by a whole export's commit): a run abandoned from then
	 * on removes them, and a write that completes after it did is removed by #finish.
	 */
	#ending: { readonly manifest: string; readonly success: string | undefined } | undefined;
	#abandoned = false;
	#finishing: Promise<void> | undefined;
	#schema: Schema | undefined;
	/** Rows of partitions whose file is not open, or not worth a write yet; made with the schema. */
	#buffers: PartitionBuffers | undefined;
	readonly #hivePartitions: HivePartitions | undefined;
	/** The partitions routed to so far, with a bound on them. */
	readonly #partitionCount: PartitionCount | undefined;
	/** Where rows without a time go. */
	readonly #nullPath: string;
	/** Where the file of no rows goes (see #writeEmptyFile). */
	readonly #emptyPath: string;
	#timeIndex = -1;
	#rows = 0;
	/** A batch of no rows, while the part has written none (see #writeEmptyFile). */
	#emptyBatch: RecordBatch | undefined;
	#min: bigint | undefined;
	#max: bigint | undefined;
	summary: DatasetSummary | undefined;

	constructor(options: DatasetWriterOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		if (options.partitionBy !== undefined && !PARTITION_LEVELS.includes(options.partitionBy)) {
			throw new UsageError(`invalid partition level ${JSON.stringify(options.partitionBy)}: choose one of ${PARTITION_LEVELS.join(", ")}`, { option: "partitionBy", value: options.partitionBy });
		}
		this.#options = options;
		const { partitionBy } = options;
		this.#hivePartitions = partitionBy === undefined ? undefined : new HivePartitions(options.timeUnit, partitionBy);
		this.#partitionCount = partitionBy === undefined || options.maxPartitions === undefined ? undefined : new PartitionCount(options.maxPartitions, partitionBy, options.folder);
		this.#nullPath = partitionBy === undefined ? "" : PARTITION_LEVELS.slice(0, PARTITION_LEVELS.indexOf(partitionBy) + 1).map((level) => `${level}=${NULL_PARTITION}`).join("/");
		const rangeTime = options.range?.start ?? (options.range?.end === undefined ? undefined : options.range.end - 1n);
		this.#emptyPath = partitionBy === undefined || rangeTime === undefined ? this.#nullPath : hivePartitionOf(floorDiv(rangeTime, ATTOSECONDS_PER_UNIT.ns), "ns", partitionBy).path;
		this.#partitions = new OpenPartitions<OpenFile>({
			limit: options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES,
			open: (partition, sequence) => this.#open(partition, sequence),
			close: (file) => this.#close(file),
			discard: (file) => file.encoder.destroy(new Error("the dataset export stopped")),
		});
		this.#makeFolder(options.folder);
		unfinished.add(this);
		if (options.replacing !== undefined) {
			// What a run killed outright left aside is not this run's. What it replaces changes only once its files are written.
			fs.rmSync(options.replacing.staging, { recursive: true, force: true });
			return;
		}
		// The dataset changes from now on: it is no longer committed, and this part no longer finished.
		fs.rmSync(path.join(options.folder, SUCCESS_FILE), { force: true });
		fs.rmSync(path.join(options.folder, manifestPath(options.part)), { force: true });
	}

	/** Where this run writes a file of the dataset (`relative` to its folder): in place, or aside when replacing. */
	#pathOf(relative: string): string {
		const { replacing, folder } = this.#options;
		return replacing === undefined ? path.join(folder, relative) : path.join(replacing.staging, `${relative}${STAGED_SUFFIX}`);
	}

	/** mkdir -p, noting the folders it created. */
	#makeFolder(folder: string): void {
		const first = makeFolder(folder);
		if (first === undefined) return;
		for (let created = path.resolve(folder); ; created = path.dirname(created)) {
			this.#createdFolders.push(created);
			if (created === path.resolve(first) || created === path.dirname(created)) break;
		}
	}

	/** A write still in progress when the run was abandoned must not create anything after it. */
	#checkNotAbandoned(): void {
		if (this.#abandoned) throw new Dt64ExportError("WRITE_FAILED", `the dataset export to ${this.#options.folder} stopped`, { path: this.#options.folder });
	}

	#open(partition: string, sequence: number): OpenFile {
		this.#checkNotAbandoned();
		const name = partFileName(this.#options.part, sequence, this.#options.extension);
		const relative = partition === "" ? name : `${partition}/${name}`;
		const target = this.#pathOf(relative);
		this.#makeFolder(path.dirname(target));
		const encoder = this.#options.createFileWriter(this.#schema!);
		const sink = new AtomicFileWriter(target, { overwrite: true });
		const done = pipeline(encoder, sink);
		done.catch(() => undefined);
		const file = { relative, encoder, sink, done, rows: 0 };
		this.#files.add(file);
		return file;
	}

	async #close(file: OpenFile): Promise<void> {
		file.encoder.end();
		await file.done;
		this.#written.push({ path: file.relative, rows: file.rows });
		this.#files.delete(file);
	}

	async #append(file: OpenFile, batch: RecordBatch): Promise<void> {
		file.rows += batch.numRows;
		if (!file.encoder.write(batch)) await Promise.race([once(file.encoder, "drain"), file.done]);
	}

	/** Writes rows [from, to) of `batch`, all of one partition, to its file, splitting them at the file size limit. */
	async #route(batch: RecordBatch, from: number, to: number, partition: string, range: TimeRange | undefined): Promise<void> {
		const limit = this.#options.maxRowsPerFile ?? Number.POSITIVE_INFINITY;
		let file = await this.#partitions.fileFor(partition, range);
		while (from < to) {
			if (file.rows >= limit) file = await this.#partitions.fileFor(partition, range, true);
			const end = Math.min(to, from + (limit - file.rows));
			await this.#append(file, batch.slice(from, end));
			from = end;
		}
	}

	/** Writes the rows held for `partition`, if any, to its file (opened if need be). */
	async #writeHeld(partition: string): Promise<void> {
		const held = this.#buffers!.take(partition);
		if (held === undefined) return;
		const batch = held.rows.toBatch();
		await this.#route(batch, 0, batch.numRows, partition, held.range);
	}

	/** Sorted time: the run goes to its file now, unless no file can be opened without closing one (then it is held). */
	async #routeInOrder(batch: RecordBatch, run: PartitionRun): Promise<void> {
		if (run.range !== undefined && run.first !== null) await this.#partitions.notePosition(run.range, run.first);
		if (this.#partitions.isOpen(run.partition) || this.#partitions.hasRoom) {
			await this.#writeHeld(run.partition);
			await this.#route(batch, run.from, run.to, run.partition, run.range);
		} else this.#buffers!.add(run.partition, run.range, batch, run.from, run.to);
	}

	/**
	 * Unsorted time: the run is held, to be written with the partition's other rows; says whether there are enough of
	 * them for a write now (without closing a file).
	 */
	#hold(batch: RecordBatch, run: PartitionRun): boolean {
		const held = this.#buffers!.add(run.partition, run.range, batch, run.from, run.to);
		return held >= WRITE_ROWS && (this.#partitions.isOpen(run.partition) || this.#partitions.hasRoom);
	}

	/** Writes the largest partitions held until the rows held are within the budget. */
	async #keepWithinBudget(): Promise<void> {
		const buffers = this.#buffers!;
		const budget = this.#options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
		while (buffers.bytes > budget) await this.#writeHeld(buffers.largest()!);
	}

	/**
	 * The batch's rows as runs of one partition each, in order, one at a time; notes the smallest and largest time.
	 * Unsorted time makes a run of nearly every row: a million-row batch made an array of a million runs (and their
	 * times as BigInts), held while its rows were copied, which V8 moved to the old generation: 300 MB of heap before
	 * each full collection. Runs found one at a time die young.
	 */
	*#runsOf(batch: RecordBatch): Generator<PartitionRun> {
		const data = batch.getChildAt(this.#timeIndex)!.data[0];
		const values = data.values as BigInt64Array;
		// Validity read here rather than by Data.getValid, which asks first whether the column is a union, every row.
		const bits = data.nullCount === 0 ? undefined : data.nullBitmap;
		const valid = (row: number) => bits === undefined || ((bits[(data.offset + row) >> 3] >> ((data.offset + row) & 7)) & 1) === 1;
		let row = 0;
		while (row < batch.numRows) {
			const start = row;
			if (!valid(row)) {
				while (row < batch.numRows && !valid(row)) row++;
				this.#partitionCount?.note(this.#nullPath);
				yield { from: start, to: row, partition: this.#nullPath, range: undefined, first: null };
				continue;
			}
			const first = values[row];
			const partition = this.#hivePartitions?.of(first) ?? WHOLE_RANGE;
			// Before any row of it is routed: refused, the partition past the bound gets no file.
			this.#partitionCount?.note(partition.path);
			while (row < batch.numRows && valid(row)) {
				const value = values[row];
				if (value < partition.low || value >= partition.high) break;
				if (this.#min === undefined || value < this.#min) this.#min = value;
				if (this.#max === undefined || value > this.#max) this.#max = value;
				row++;
			}
			yield { from: start, to: row, partition: partition.path, range: partition, first };
		}
	}

	async #writeBatch(batch: RecordBatch): Promise<void> {
		if (this.#schema === undefined) {
			this.#schema = batch.schema;
			this.#buffers = new PartitionBuffers(batch.schema);
			this.#timeIndex = batch.schema.fields.findIndex((field) => field.name === this.#options.timeColumn);
			if (this.#timeIndex < 0 && this.#options.timeColumn !== undefined) throw new Dt64ExportError("INTERNAL", `the dataset's time column ${JSON.stringify(this.#options.timeColumn)} is not among the exported columns`);
		}
		if (batch.numRows === 0) {
			// Kept while no row came: the batch a part of no rows writes its empty file with (a Parquet file needs one).
			if (this.#rows === 0) this.#emptyBatch ??= batch;
			return;
		}
		this.#emptyBatch = undefined;
		if (this.#timeIndex < 0) {
			await this.#route(batch, 0, batch.numRows, "", undefined);
			this.#rows += batch.numRows;
			return;
		}
		const runs = this.#runsOf(batch);
		// Rows not partitioned by time all go to one file, sorted or not.
		if (this.#hivePartitions === undefined) {
			for (const run of runs) await this.#routeInOrder(batch, run);
		} else {
			// The runs the sortedness check saw are kept (few while the time is sorted); once it fails (at once, once the
			// time has been found unsorted), the others are held as they are found.
			const seen: PartitionRun[] = [];
			const seeing = (function* () {
				// By next(), not for-of: the check stopping early must leave `runs` open for the rest.
				for (let next = runs.next(); !next.done; next = runs.next()) {
					seen.push(next.value);
					yield next.value;
				}
			})();
			if (this.#partitions.staysSorted(seeing)) {
				for (const run of seen) await this.#routeInOrder(batch, run);
			} else {
				for (const run of seen) if (this.#hold(batch, run)) await this.#writeHeld(run.partition);
				seen.length = 0;
				for (const run of runs) if (this.#hold(batch, run)) await this.#writeHeld(run.partition);
			}
		}
		await this.#keepWithinBudget();
		this.#rows += batch.numRows;
	}

	override _write(batch: RecordBatch, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		this.#writeBatch(batch).then(() => callback(), callback);
	}

	override _final(callback: (error?: Error | null) => void): void {
		this.#finishing = this.#finish();
		this.#finishing.then(() => callback(), callback);
	}

	/**
	 * Resolves once the part's last steps (its manifest, a whole export's commit), if they started, are over, whether
	 * they completed or failed: a run abandoned meanwhile (an abort) releases its lock, which removes the folders it
	 * created once empty, only after the manifest being written is written and removed again.
	 */
	async settled(): Promise<void> {
		await this.#finishing?.catch(() => undefined);
	}

	async #finish(): Promise<void> {
		// The open files' rows first: then the other partitions' files close them in turn, as they are done.
		const held = this.#buffers?.partitions() ?? [];
		for (const partition of [...held.filter((p) => this.#partitions.isOpen(p)), ...held.filter((p) => !this.#partitions.isOpen(p))]) await this.#writeHeld(partition);
		await this.#partitions.closeAll();
		await this.#writeEmptyFile();
		this.#checkNotAbandoned();
		const { folder, part, timeUnit } = this.#options;
		const kept = new Set(this.#written.map((file) => file.path));
		if (this.#options.replacing !== undefined) this.#moveInPlace(kept);
		const listing = listDataset(folder);
		for (const relative of [...listing.dataFiles, ...listing.tempFiles]) {
			if (isFileOfPart(relative, part) && !kept.has(relative)) fs.rmSync(path.join(folder, relative), { force: true });
		}
		const time = (value: bigint | undefined) => (value === undefined ? null : { value: value.toString(), iso: formatIsoTimestamp(value, timeUnit) });
		const files = [...this.#written].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
		const overflowNulls = this.#options.overflowNulls?.() ?? {};
		const droppedInvalidDates = this.#options.droppedInvalidDates?.();
		const dropped = droppedInvalidDates === undefined ? {} : { droppedInvalidDates };
		const manifest: PartManifest = {
			version: MANIFEST_VERSION,
			part: part.index,
			parts: part.count,
			optionsDigest: this.#options.optionsDigest,
			options: this.#options.options,
			files,
			rows: this.#rows,
			overflowNulls,
			...forbiddenOf(this.#options.forbiddenChunks),
			...dropped,
			// No time column read (a part without a range or partitioning): no unit to state.
			timeUnit: this.#options.timeColumn === undefined ? null : timeUnit,
			minTime: time(this.#min),
			maxTime: time(this.#max),
			table: this.#options.slice?.table,
			rowRange: this.#options.slice === undefined ? undefined : { start: this.#options.slice.rows.start, end: this.#options.slice.rows.end },
		};
		this.#makeFolder(path.join(folder, PARTS_FOLDER));
		const manifestFile = path.join(folder, manifestPath(part));
		this.#ending = { manifest: manifestFile, success: this.#options.commit === undefined ? undefined : path.join(folder, SUCCESS_FILE) };
		await writeJsonFile(manifestFile, manifest);
		this.#removeEndingIfAbandoned();
		if (this.#options.commit !== undefined) {
			try {
				await this.#options.commit();
			} catch (error) {
				fs.rmSync(manifestFile, { force: true });
				throw error;
			}
			this.#removeEndingIfAbandoned();
		}
		this.#finished = true;
		unfinished.delete(this);
		this.summary = { files, rows: this.#rows, overflowNulls, ...dropped, manifest: manifestPath(part) };
	}

	/**
	 * A manifest (or a whole export's `_SUCCESS`) whose write completed after the run was abandoned (an abort, a signal
	 * while it was being written) would pass for finished a part whose files are gone: removed, and the run fails.
	 */
	#removeEndingIfAbandoned(): void {
		if (!this.#abandoned) return;
		this.#removeEnding();
		this.#checkNotAbandoned();
	}

	#removeEnding(): void {
		if (this.#ending === undefined) return;
		if (this.#ending.success !== undefined) fs.rmSync(this.#ending.success, { force: true });
		fs.rmSync(this.#ending.manifest, { force: true });
	}

	/**
	 * Replacing, once every file of this run is written aside: what it replaces is no longer committed (marker and
	 * manifests removed), the new files are moved in place (each replacing the file of its name atomically), then the
	 * replaced dataset's other files go. Renames within the folder: no copy, nothing to run out of.
	 */
	#moveInPlace(kept: ReadonlySet<string>): void {
		const { folder, replacing } = this.#options;
		this.#movedIn = replacing!.holdsEarlierFiles() ? "kept" : "removable";
		replacing!.clear(kept, "marker");
		for (const relative of kept) {
			const target = path.join(folder, relative);
			this.#makeFolder(path.dirname(target));
			// A file replaced keeps its permissions, owner and group, as a file replaced with `overwrite` does.
			keepAttributesOf(target, this.#pathOf(relative));
			fs.renameSync(this.#pathOf(relative), target);
		}
		replacing!.clear(kept, "files");
		fs.rmSync(replacing!.staging, { recursive: true, force: true });
	}

	/**
	 * A part that wrote no row writes one file of no rows with the schema, as Spark writes one for an empty DataFrame:
	 * a dataset whose parts all selected nothing is then a table of 0 rows to DuckDB and polars, not a folder without
	 * files, which they refuse ("No files found"). Partitioned, the file goes at the depth of every other file (DuckDB's
	 * `hive_partitioning` refuses files at different depths), and a file of no rows puts no row in its partition: that
	 * of the range's start when one was given (`year=2030/month=1/...`; of its last instant with an end alone), so that readers, which type partition keys
	 * from the folder names alone, read year, month... as integers as they do for a dataset with rows (trial 29: 01;
	 * from `__HIVE_DEFAULT_PARTITION__` alone DuckDB and polars infer strings, and `WHERE year >= 2021` then fails);
	 * else the null partition's folder (`year=__HIVE_DEFAULT_PARTITION__/...`).
	 */
	async #writeEmptyFile(): Promise<void> {
		const batch = this.#emptyBatch;
		if (batch === undefined || this.#written.length > 0 || this.#files.size > 0) return;
		const file = this.#open(this.#emptyPath, 0);
		await this.#append(file, batch);
		await this.#close(file);
	}

	/**
	 * Undoes this run, synchronously (a signal handler exits right after): the files being written are discarded,
	 * the files it finished are removed (its staging folder with them), then the folders it created, those left
	 * empty. Nothing else is touched: other parts' files, a user's files, and what this run replaces while it has not
	 * started moving its files in place (a part's earlier run, files and manifest, and the folder's `_SUCCESS`). Once
	 * it has, commit refuses the part until it runs again (its manifest went before the moves), and the files it moved
	 * in are removed only when they replaced nothing (a folder the run created, a part's first run): once they replaced
	 * an earlier run's files (of their names, the others then removed), removing them would leave neither run's rows
	 * (trial 26: 01), so they stay, uncommitted, for the next run to replace. A manifest being written or written (and a whole
	 * export's `_SUCCESS`) goes too. A finished part is not undone.
	 */
	abandon(): void {
		unfinished.delete(this);
		if (this.#finished || this.#abandoned) return;
		this.#abandoned = true;
		this.#partitions.discardAll();
		const stopped = new Error("the dataset export stopped");
		for (const { encoder, sink } of this.#files) {
			// Once the file is complete, it is moved to its name: whether the move happened yet or not, removing the
			// temporary file first (destroy) then the name leaves neither (the move fails once the temporary is gone).
			const moving = sink.writableEnded;
			encoder.destroy(stopped);
			sink.destroy(stopped);
			if (moving) fs.rmSync(sink.target, { force: true });
		}
		const { folder, replacing } = this.#options;
		if (replacing === undefined || this.#movedIn === "removable") {
			for (const { path: relative } of this.#written) fs.rmSync(path.join(folder, relative), { force: true });
		}
		if (replacing !== undefined) fs.rmSync(replacing.staging, { recursive: true, force: true });
		this.#removeEnding();
		for (const folder of [...this.#createdFolders].sort((a, b) => b.length - a.length)) {
			try {
				fs.rmdirSync(folder);
			} catch {
				// Not empty (a file another run or the user put there), or gone: it stays as it is.
			}
		}
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		this.abandon();
		callback(error);
	}
}

/** What a manifest records of the chunks read as missing (see PartManifest.forbiddenChunks): nothing without the option. */
function forbiddenOf(forbidden: ForbiddenChunks | undefined): Pick<PartManifest, "forbiddenChunks" | "forbiddenKeys"> {
	if (forbidden === undefined) return {};
	return { forbiddenChunks: forbidden.count, forbiddenKeys: forbidden.firstKeys(KEYS_NAMED) };
}
