import * as fs from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Field, Float64, makeData, RecordBatch, Schema, Struct, Timestamp, TimeUnit, type Data } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { commitDataset } from "../src/output/commit.js";
import { listDataset } from "../src/output/dataset-files.js";
import { DatasetWriter, type DatasetWriterOptions } from "../src/output/dataset-writer.js";
import { digestOptions, readManifest } from "../src/output/manifest.js";
import { IpcWriter } from "../src/stream/ipc-writer.js";
import { createParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import { useDuckDB } from "./support/duckdb.js";
import { tempDir } from "./support/cli.js";

const query = useDuckDB();
const HOUR_MS = 3_600_000n;
const DAY0 = BigInt(Date.UTC(2021, 0, 30));
const schema = new Schema([new Field("time", new Timestamp(TimeUnit.MILLISECOND, null), true), new Field("value", new Float64(), true)]);

/** A batch of (time, value) rows; a null time where `times` holds null. */
function batchOf(times: (bigint | null)[], values: number[]): RecordBatch {
	const bitmap = new Uint8Array(Math.ceil(times.length / 8));
	times.forEach((time, i) => (bitmap[i >> 3] |= time === null ? 0 : 1 << (i & 7)));
	const nulls = times.filter((time) => time === null).length;
	const children: Data[] = [
		makeData({ type: schema.fields[0].type, length: times.length, nullCount: nulls, data: BigInt64Array.from(times, (t) => t ?? 0n), nullBitmap: nulls === 0 ? undefined : bitmap } as never),
		makeData({ type: new Float64(), length: values.length, data: Float64Array.from(values) }),
	];
	return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: times.length, nullCount: 0, children }));
}

function writer(folder: string, options: Partial<DatasetWriterOptions> & { index?: number; count?: number; digestOf?: Record<string, unknown> } = {}): DatasetWriter {
	const { options: stored, digest } = digestOptions(options.digestOf ?? { partitionBy: options.partitionBy ?? null });
	return new DatasetWriter({
		folder,
		part: { index: options.index ?? 0, count: options.count ?? 1 },
		extension: options.extension ?? "parquet",
		createFileWriter: options.createFileWriter ?? (() => createParquetWriter()),
		timeColumn: "time",
		timeUnit: "ms",
		partitionBy: options.partitionBy,
		maxRowsPerFile: options.maxRowsPerFile,
		maxOpenFiles: options.maxOpenFiles,
		bufferBytes: options.bufferBytes,
		options: stored,
		optionsDigest: digest,
	});
}

async function write(target: DatasetWriter, batches: RecordBatch[]): Promise<void> {
	await pipeline(Readable.from(batches), target);
}

/** 72 hourly rows over three days, in two batches. */
const hourly = () => {
	const times = Array.from({ length: 72 }, (_, i) => DAY0 + BigInt(i) * HOUR_MS);
	return [batchOf(times.slice(0, 40), Array.from({ length: 40 }, (_, i) => i)), batchOf(times.slice(40), Array.from({ length: 32 }, (_, i) => i + 40))];
};

describe("dataset writer", () => {
	it("writes Hive day partitions DuckDB reads as one table, and a manifest commit accepts", async () => {
		const folder = tempDir();
		const target = writer(folder, { partitionBy: "day" });
		await write(target, hourly());
		expect(target.summary!.files.map((file) => [file.path, file.rows])).toEqual([
			["year=2021/month=1/day=30/part-00000-of-00001.parquet", 24],
			["year=2021/month=1/day=31/part-00000-of-00001.parquet", 24],
			["year=2021/month=2/day=1/part-00000-of-00001.parquet", 24],
		]);
		const manifest = readManifest(path.join(folder, "_parts/part-0-of-1.json"));
		expect(manifest).toMatchObject({ rows: 72, minTime: { iso: "2021-01-30T00:00:00" }, maxTime: { iso: "2021-02-01T23:00:00" } });
		const summary = await commitDataset(folder);
		expect(summary).toMatchObject({ parts: 1, files: 3, rows: 72 });
		expect(JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8"))).toMatchObject({ committed: true, rows: 72 });
		const rows = await query(
			`SELECT count(*), sum(value), min(day), count(*) FILTER (WHERE day(time) <> day OR month(time) <> month) FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`,
		);
		expect(rows[0].map(Number)).toEqual([72, (71 * 72) / 2, 1, 0]);
	});

	it("splits at --max-rows-per-file; with more days than maxOpenFiles, unsorted times still write one file per day", async () => {
		const folder = tempDir();
		const limited = writer(folder, { partitionBy: "day", maxRowsPerFile: 10 });
		await write(limited, hourly());
		const firstDay = limited.summary!.files.filter((file) => file.path.startsWith("year=2021/month=1/day=30/"));
		expect(Object.fromEntries(firstDay.map((file) => [path.basename(file.path), file.rows]))).toEqual({
			"part-00000-of-00001.parquet": 10,
			"part-00000-of-00001-00001.parquet": 10,
			"part-00000-of-00001-00002.parquet": 4,
		});
		const unsorted = tempDir();
		const times = Array.from({ length: 30 }, (_, i) => DAY0 + BigInt((i * 7) % 3) * 24n * HOUR_MS + BigInt(i));
		const lru = writer(unsorted, { partitionBy: "day", maxOpenFiles: 2, extension: "arrow", createFileWriter: (s) => new IpcWriter("file", s) });
		await write(lru, [batchOf(times, times.map(Number))]);
		expect(lru.summary!.files.map((file) => [path.basename(file.path), file.rows])).toEqual(Array.from({ length: 3 }, () => ["part-00000-of-00001.arrow", 10]));
		expect((await commitDataset(unsorted)).rows).toBe(30);
	});

	it("puts rows without a time in Hive's null partition", async () => {
		const folder = tempDir();
		const target = writer(folder, { partitionBy: "month" });
		await write(target, [batchOf([DAY0, null, null, DAY0 + 1n], [1, 2, 3, 4])]);
		expect(target.summary!.files.map((file) => file.path)).toEqual([
			"year=2021/month=1/part-00000-of-00001.parquet",
			"year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/part-00000-of-00001.parquet",
		]);
		await commitDataset(folder);
		const rows = await query(`SELECT count(*) FILTER (WHERE year IS NULL), count(*) FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`);
		expect(rows[0].map(Number)).toEqual([2, 4]);
	});

	it("sorted times with scattered NaT: one file per partition, the null partition's included", async () => {
		// Hourly over three days, NaT every 5th row, in batches of 7: runs of null rows between every few times.
		const times = Array.from({ length: 72 }, (_, i) => (i % 5 === 3 ? null : DAY0 + BigInt(i) * HOUR_MS));
		const batches = Array.from({ length: Math.ceil(times.length / 7) }, (_, b) => batchOf(times.slice(b * 7, b * 7 + 7), times.slice(b * 7, b * 7 + 7).map(Number)));
		const filesPer = (target: DatasetWriter) => {
			const counts: Record<string, number> = {};
			for (const file of target.summary!.files) counts[path.dirname(file.path)] = (counts[path.dirname(file.path)] ?? 0) + 1;
			return counts;
		};
		const whole = writer(tempDir(), { partitionBy: "day" });
		await write(whole, batches);
		expect(filesPer(whole)).toEqual({
			"year=2021/month=1/day=30": 1,
			"year=2021/month=1/day=31": 1,
			"year=2021/month=2/day=1": 1,
			"year=__HIVE_DEFAULT_PARTITION__/month=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__": 1,
		});
		expect(whole.summary!.files.find((file) => file.path.startsWith("year=__"))!.rows).toBe(14);
		// Split only by --max-rows-per-file: 14 null rows in files of 6 are 3 files, 24-row days minus NaT in 2 or 3.
		const split = writer(tempDir(), { partitionBy: "day", maxRowsPerFile: 6 });
		await write(split, batches);
		expect(Object.values(filesPer(split))).toEqual([4, 4, 4, 3]);
	});

	it("sorted times with NaT and one open file: the rows that cannot go to a file are held, one file per partition", async () => {
		const times = Array.from({ length: 72 }, (_, i) => (i % 5 === 3 ? null : DAY0 + BigInt(i) * HOUR_MS));
		const target = writer(tempDir(), { partitionBy: "day", maxOpenFiles: 1 });
		await write(target, [batchOf(times.slice(0, 30), Array.from({ length: 30 }, (_, i) => i)), batchOf(times.slice(30), Array.from({ length: 42 }, (_, i) => i + 30))]);
		expect(target.summary!.files.map((file) => [file.path.split("/")[2], path.basename(file.path), file.rows])).toEqual([
			["day=30", "part-00000-of-00001.parquet", 19],
			["day=31", "part-00000-of-00001.parquet", 20],
			["day=1", "part-00000-of-00001.parquet", 19],
			["day=__HIVE_DEFAULT_PARTITION__", "part-00000-of-00001.parquet", 14],
		]);
	});

	describe("unsorted times over the memory budget", () => {
		// 20,000 rows at random over 60 days, one in 10 without a time, in batches of 1,000; each row's value is its number.
		const rows = 20_000;
		let seed = 20261204;
		const random = () => {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		const times = Array.from({ length: rows }, () => (random() < 0.1 ? null : DAY0 + BigInt(Math.floor(random() * 60 * 24 * 3600 * 1000))));
		const batches = Array.from({ length: rows / 1000 }, (_, b) => batchOf(times.slice(b * 1000, b * 1000 + 1000), Array.from({ length: 1000 }, (_, i) => b * 1000 + i)));
		const dayOf = (time: bigint | null) => (time === null ? null : new Date(Number(time)).toISOString().slice(0, 10));
		const partitions = new Set(times.map(dayOf)).size;
		// Less than the rows take (16 bytes each, plus room to grow): the largest partition goes out when it is exceeded.
		const budgeted = (folder: string, kib: number, createFileWriter?: DatasetWriterOptions["createFileWriter"]) =>
			writer(folder, { partitionBy: "day", maxOpenFiles: 4, bufferBytes: kib * 1024, createFileWriter });

		it("the rows of each day are exactly its own, in order, in a few files", async () => {
			const folder = tempDir();
			const target = budgeted(folder, 256);
			await write(target, batches);
			const expected = new Map<string | null, number[]>();
			times.forEach((time, row) => expected.set(dayOf(time), [...(expected.get(dayOf(time)) ?? []), row]));
			const perPartition = new Map<string, number>();
			for (const file of target.summary!.files) perPartition.set(path.dirname(file.path), (perPartition.get(path.dirname(file.path)) ?? 0) + 1);
			expect(perPartition.size).toBe(partitions);
			// Without the budget's bound it is thousands of files (one per row or two); with it, a few per partition.
			expect(target.summary!.files.length).toBeGreaterThan(partitions);
			expect(target.summary!.files.length).toBeLessThanOrEqual(2 * partitions);
			expect(Math.max(...perPartition.values())).toBeLessThanOrEqual(4);
			expect(await commitDataset(folder)).toMatchObject({ rows });
			// Files of a partition in the order they were written: by name, the first without a sequence number (shorter).
			const read = await query(
				`SELECT strftime(make_date(year, month, day), '%Y-%m-%d'), list(value::INTEGER ORDER BY length(filename), filename, file_row_number)
				FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true, file_row_number = true, filename = true) GROUP BY ALL`,
			);
			expect(new Map(read.map(([day, list]) => [day, (list as { items: number[] }).items]))).toEqual(expected);
		});

		it("a failure after some of those files were written removes them all", async () => {
			const folder = tempDir();
			let opened = 0;
			const target = budgeted(folder, 128, () => (opened++, createParquetWriter()));
			const failing = async function* () {
				yield* batches.slice(0, 15);
				throw new Error("the read failed");
			};
			await expect(pipeline(Readable.from(failing()), target)).rejects.toThrow("the read failed");
			// Files were written, a few per day at most (row by row it was thousands), then all removed.
			expect(opened).toBeGreaterThan(4);
			expect(opened).toBeLessThanOrEqual(2 * partitions);
			expect(fs.readdirSync(folder)).toEqual([]);
		});
	});

	it("a part run again replaces exactly its own files", async () => {
		const folder = tempDir();
		await write(writer(folder, { partitionBy: "day", index: 0, count: 2 }), hourly());
		await write(writer(folder, { partitionBy: "day", index: 1, count: 2 }), [batchOf([DAY0 + 100n * HOUR_MS], [7])]);
		fs.writeFileSync(path.join(folder, "year=2021/month=1/day=30/.part-00000-of-00002.parquet.999.dead.tmp"), "left by a killed run");
		// The same part again with fewer rows: its day=31 and Feb files go, part 1's file stays.
		await write(writer(folder, { partitionBy: "day", index: 0, count: 2 }), [batchOf([DAY0], [1])]);
		expect(listDataset(folder)).toEqual({
			dataFiles: ["year=2021/month=1/day=30/part-00000-of-00002.parquet", "year=2021/month=2/day=3/part-00001-of-00002.parquet"],
			tempFiles: [],
			otherDataFiles: [],
		});
		expect(await commitDataset(folder)).toMatchObject({ parts: 2, rows: 2, files: 2 });
	});

	it("commit refuses a missing part, parts of other options or N, stray files and wrong row counts", async () => {
		const folder = tempDir();
		await write(writer(folder, { partitionBy: "day", index: 0, count: 3 }), hourly());
		await write(writer(folder, { partitionBy: "day", index: 2, count: 3 }), [batchOf([DAY0 + 200n * HOUR_MS], [1])]);
		await expect(commitDataset(folder)).rejects.toThrow(/1 of 3 parts have not finished: 1\/3/);
		await write(writer(folder, { partitionBy: "day", index: 1, count: 3, digestOf: { partitionBy: "day", start: "2021" } }), [batchOf([DAY0 + 300n * HOUR_MS], [1])]);
		await expect(commitDataset(folder)).rejects.toThrow(/1\/3 used other options/);
		await write(writer(folder, { partitionBy: "day", index: 1, count: 3 }), [batchOf([DAY0 + 300n * HOUR_MS], [1])]);
		fs.writeFileSync(path.join(folder, "part-00000-of-00002.parquet"), "");
		await expect(commitDataset(folder)).rejects.toThrow(/no finished part lists.*: part-00000-of-00002.parquet/);
		fs.rmSync(path.join(folder, "part-00000-of-00002.parquet"));
		const manifestFile = path.join(folder, "_parts/part-2-of-3.json");
		const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
		manifest.files[0].rows = 5;
		fs.writeFileSync(manifestFile, JSON.stringify(manifest));
		await expect(commitDataset(folder)).rejects.toThrow(/holds 1 rows, its part 2\/3 says 5/);
		manifest.files[0].rows = 1;
		fs.writeFileSync(manifestFile, JSON.stringify(manifest));
		fs.writeFileSync(path.join(folder, "_parts/part-0-of-2.json"), fs.readFileSync(path.join(folder, "_parts/part-0-of-3.json"), "utf8").replace('"parts": 3', '"parts": 2'));
		await expect(commitDataset(folder)).rejects.toThrow(/different N: 2 parts .*; 3 parts/);
		fs.rmSync(path.join(folder, "_parts/part-0-of-2.json"));
		expect(await commitDataset(folder)).toMatchObject({ parts: 3, rows: 74 });
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(true);
	});
});
