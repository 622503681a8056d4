/**
 * Writes RecordBatches as one part of a dataset folder: rows routed to Hive partitions by their time (or all in
 * the folder itself), each file written atomically under a name of this part, at most `maxOpenFiles` open at once.
 * When every file is in place, the files this part wrote in an earlier run and not now are removed (a part run
 * again replaces exactly its own files), and the part's manifest is written last: a part without a manifest is
 * not finished, whatever files it left.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { once } from "node:events";
import { Writable, type Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { RecordBatch, Schema } from "apache-arrow";
import { formatIsoTimestamp } from "../convert/iso8601.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { Part } from "../select/part.js";
import { AtomicFileWriter } from "./atomic-file.js";
import { isFileOfPart, listDataset, manifestPath, partFileName, SUCCESS_FILE } from "./dataset-files.js";
import { hivePartitionOf, PARTITION_LEVELS, type PartitionLevel } from "./hive-partition.js";
import { writeJsonFile, MANIFEST_VERSION, type ManifestFile, type PartManifest } from "./manifest.js";
import { OpenPartitions, type PartitionFile, type TimeRange } from "./open-partitions.js";

/** Open files by default: each holds up to a row group of rows in memory until it is closed. */
export const DEFAULT_MAX_OPEN_FILES = 16;

/** Hive's (and Spark's, DuckDB's) name for the partition of rows whose partition value is null. */
export const NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__";

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
	readonly maxOpenFiles?: number;
	/** What the manifest records as this part's options, and their digest (see digestOptions). */
	readonly options: Record<string, unknown>;
	readonly optionsDigest: string;
}

interface OpenFile extends PartitionFile {
	readonly relative: string;
	readonly encoder: Transform;
	readonly done: Promise<void>;
	rows: number;
}

export interface DatasetSummary {
	readonly files: readonly ManifestFile[];
	readonly rows: number;
	readonly manifest: string;
}

export class DatasetWriter extends Writable {
	readonly #options: DatasetWriterOptions;
	readonly #partitions: OpenPartitions<OpenFile>;
	readonly #written: ManifestFile[] = [];
	#schema: Schema | undefined;
	#timeIndex = -1;
	#rows = 0;
	#min: bigint | undefined;
	#max: bigint | undefined;
	summary: DatasetSummary | undefined;

	constructor(options: DatasetWriterOptions) {
		super({ objectMode: true, highWaterMark: 1 });
		if (options.partitionBy !== undefined && !PARTITION_LEVELS.includes(options.partitionBy)) {
			throw new UsageError(`invalid partition level ${JSON.stringify(options.partitionBy)}: choose one of ${PARTITION_LEVELS.join(", ")}`, { option: "partitionBy", value: options.partitionBy });
		}
		this.#options = options;
		this.#partitions = new OpenPartitions<OpenFile>({
			limit: options.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES,
			open: (partition, sequence) => this.#open(partition, sequence),
			close: (file) => this.#close(file),
			discard: (file) => file.encoder.destroy(new Error("the dataset export stopped")),
		});
		fs.mkdirSync(options.folder, { recursive: true });
		// The dataset changes from now on: it is no longer committed, and this part no longer finished.
		fs.rmSync(path.join(options.folder, SUCCESS_FILE), { force: true });
		fs.rmSync(path.join(options.folder, manifestPath(options.part)), { force: true });
	}

	#open(partition: string, sequence: number): OpenFile {
		const name = partFileName(this.#options.part, sequence, this.#options.extension);
		const relative = partition === "" ? name : `${partition}/${name}`;
		const target = path.join(this.#options.folder, relative);
		fs.mkdirSync(path.dirname(target), { recursive: true });
		const encoder = this.#options.createFileWriter(this.#schema!);
		const done = pipeline(encoder, new AtomicFileWriter(target, { overwrite: true }));
		done.catch(() => undefined);
		return { relative, encoder, done, rows: 0 };
	}

	async #close(file: OpenFile): Promise<void> {
		file.encoder.end();
		await file.done;
		this.#written.push({ path: file.relative, rows: file.rows });
	}

	async #append(file: OpenFile, batch: RecordBatch): Promise<void> {
		file.rows += batch.numRows;
		if (!file.encoder.write(batch)) await Promise.race([once(file.encoder, "drain"), file.done]);
	}

	/** Routes rows [from, to) of `batch`, all of one partition, splitting them at the file size limit. */
	async #route(batch: RecordBatch, from: number, to: number, partition: string, range: TimeRange | undefined, first: bigint | null): Promise<void> {
		const limit = this.#options.maxRowsPerFile ?? Number.POSITIVE_INFINITY;
		let file = await this.#partitions.fileFor(partition, range, first);
		while (from < to) {
			if (file.rows >= limit) file = await this.#partitions.fileFor(partition, range, first, true);
			const end = Math.min(to, from + (limit - file.rows));
			await this.#append(file, batch.slice(from, end));
			from = end;
		}
	}

	async #writeBatch(batch: RecordBatch): Promise<void> {
		if (this.#schema === undefined) {
			this.#schema = batch.schema;
			this.#timeIndex = batch.schema.fields.findIndex((field) => field.name === this.#options.timeColumn);
			if (this.#timeIndex < 0 && this.#options.timeColumn !== undefined) throw new Dt64ExportError("INTERNAL", `the dataset's time column ${JSON.stringify(this.#options.timeColumn)} is not among the exported columns`);
		}
		if (batch.numRows === 0) return;
		if (this.#timeIndex < 0) {
			await this.#route(batch, 0, batch.numRows, "", undefined, null);
			this.#rows += batch.numRows;
			return;
		}
		const data = batch.getChildAt(this.#timeIndex)!.data[0];
		const values = data.values as BigInt64Array;
		const { partitionBy, timeUnit } = this.#options;
		const nullPath = partitionBy === undefined ? "" : PARTITION_LEVELS.slice(0, PARTITION_LEVELS.indexOf(partitionBy) + 1).map((level) => `${level}=${NULL_PARTITION}`).join("/");
		let row = 0;
		while (row < batch.numRows) {
			const start = row;
			if (!data.getValid(row)) {
				while (row < batch.numRows && !data.getValid(row)) row++;
				await this.#route(batch, start, row, nullPath, undefined, null);
				continue;
			}
			const first = values[row];
			const partition = partitionBy === undefined ? { path: "", low: -(2n ** 63n), high: 2n ** 63n } : hivePartitionOf(first, timeUnit, partitionBy);
			while (row < batch.numRows && data.getValid(row)) {
				const value = values[row];
				if (value < partition.low || value >= partition.high) break;
				if (this.#min === undefined || value < this.#min) this.#min = value;
				if (this.#max === undefined || value > this.#max) this.#max = value;
				row++;
			}
			await this.#route(batch, start, row, partition.path, partition, first);
		}
		this.#rows += batch.numRows;
	}

	override _write(batch: RecordBatch, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
		this.#writeBatch(batch).then(() => callback(), callback);
	}

	override _final(callback: (error?: Error | null) => void): void {
		this.#finish().then(() => callback(), callback);
	}

	async #finish(): Promise<void> {
		await this.#partitions.closeAll();
		const { folder, part, timeUnit } = this.#options;
		const kept = new Set(this.#written.map((file) => file.path));
		const listing = listDataset(folder);
		for (const relative of [...listing.dataFiles, ...listing.tempFiles]) {
			if (isFileOfPart(relative, part) && !kept.has(relative)) fs.rmSync(path.join(folder, relative), { force: true });
		}
		const time = (value: bigint | undefined) => (value === undefined ? null : { value: value.toString(), iso: formatIsoTimestamp(value, timeUnit) });
		const files = [...this.#written].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
		const manifest: PartManifest = {
			version: MANIFEST_VERSION,
			part: part.index,
			parts: part.count,
			optionsDigest: this.#options.optionsDigest,
			options: this.#options.options,
			files,
			rows: this.#rows,
			timeUnit,
			minTime: time(this.#min),
			maxTime: time(this.#max),
		};
		await writeJsonFile(path.join(folder, manifestPath(part)), manifest);
		this.summary = { files, rows: this.#rows, manifest: manifestPath(part) };
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		this.#partitions.discardAll();
		callback(error);
	}
}
