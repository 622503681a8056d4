/**
 * The library's dataset and selection exports (exportDataset, exportSelection) on stores written here: what a
 * failed dataset export leaves, a part of the rows written to one stream, and how their errors read in the library
 * (options by their API names) and in the CLI (flags).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { mulberry32 } from "../scripts/lib/mulberry32.mjs";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { describeForCli } from "../src/cli/error-advice.js";
import { planExport } from "../src/export-plan.js";
import { commitDataset, createTableExportStages, type Dt64ExportError, exportDataset, exportSelection, exportTable, exportToFile, openTable } from "../src/index.js";
import { partFromEnvironment } from "../src/select/part.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const query = useDuckDB();

const T0 = BigInt(Date.UTC(2021, 0, 30) / 1000);
const HOURS = 24 * 8;

/** Hourly times over eight days in chunks of 12 rows; `corrupt`: the chunks whose bytes are cut short. */
async function hourlyStore(corrupt: (chunk: number) => boolean = () => false): Promise<string> {
	const store = path.join(tempDir(), "hourly.zarr");
	const values = BigInt64Array.from({ length: HOURS }, (_, i) => T0 + BigInt(i) * 3600n);
	await writeArray(store, "", { shape: [HOURS], chunks: [12], values, corruptChunk: (coords: number[], bytes: Uint8Array) => (corrupt(coords[0]) ? bytes.subarray(0, 5) : bytes) });
	return store;
}

/** Every file and folder under `folder`, with each file's size and modification time. */
function folderState(folder: string): string[] {
	return fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).sort().map((entry) => {
		const stat = fs.statSync(path.join(folder, entry));
		return stat.isDirectory() ? `${entry}/` : `${entry} ${stat.size} ${stat.mtimeMs}`;
	});
}

describe("exportDataset", () => {
	it("a failed export removes the files it wrote and the folders it created, and nothing else", async () => {
		// The 13th chunk (day 7) is corrupt: the first days' files are finished when the read fails.
		const store = await hourlyStore((chunk) => chunk === 12);
		const created = path.join(tempDir(), "new", "out");
		await expect(exportDataset(store, created, { partitionBy: "day", format: "parquet", concurrency: 1 })).rejects.toMatchObject({ code: "CHUNK_CORRUPT" });
		expect(fs.readdirSync(path.dirname(path.dirname(created)))).toEqual([]);

		const shared = path.join(tempDir(), "out");
		const good = await hourlyStore();
		await exportDataset(good, shared, { partitionBy: "day", format: "parquet", part: "0/2" });
		fs.writeFileSync(path.join(shared, "notes.txt"), "the user's own file");
		const before = folderState(shared);
		await expect(exportDataset(store, shared, { partitionBy: "day", format: "parquet", part: "1/2", concurrency: 1 })).rejects.toMatchObject({ code: "CHUNK_CORRUPT" });
		expect(folderState(shared)).toEqual(before);
	});

	it("a whole export replacing a dataset that fails leaves the previous dataset as it was, committed (trial 22: 16)", async () => {
		const folder = path.join(tempDir(), "out");
		const good = await hourlyStore();
		// The previous dataset: by month, in 2 parts, committed; the new one by day, whose first days are written when
		// the 13th chunk fails: they were put in place over the old files (and the old ones all removed) before.
		await exportDataset(good, folder, { partitionBy: "month", format: "parquet", part: "0/2" });
		await exportDataset(good, folder, { partitionBy: "month", format: "parquet", part: "1/2" });
		await commitDataset(folder);
		const before = folderState(folder);
		const corrupt = await hourlyStore((chunk) => chunk === 12);
		await expect(exportDataset(corrupt, folder, { partitionBy: "day", format: "parquet", concurrency: 1, overwrite: true })).rejects.toMatchObject({ code: "CHUNK_CORRUPT" });
		expect(folderState(folder)).toEqual(before);
		await expect(commitDataset(folder)).resolves.toMatchObject({ rows: HOURS });
		// The same names: a whole export of part 0/1 over a dataset of part 0/1, by the same partitioning.
		const same = path.join(tempDir(), "same");
		await exportDataset(good, same, { partitionBy: "day", format: "parquet" });
		const sameBefore = folderState(same);
		await expect(exportDataset(corrupt, same, { partitionBy: "day", format: "parquet", concurrency: 1, overwrite: true })).rejects.toMatchObject({ code: "CHUNK_CORRUPT" });
		expect(folderState(same)).toEqual(sameBefore);
		// Run again without the corrupt chunk, it replaces the dataset and leaves nothing aside.
		await exportDataset(good, same, { partitionBy: "year", format: "parquet", overwrite: true });
		expect(fs.readdirSync(path.join(same, "_parts"))).toEqual(["part-0-of-1.json"]);
		expect((await query(`SELECT count(*) FROM read_parquet('${same}/**/*.parquet', hive_partitioning = true)`))[0][0]).toBe(BigInt(HOURS));
	});

	it("a part that reads no time column states no time unit in its manifest (it said ns)", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "parts");
		await exportDataset(store, folder, { part: "0/1", format: "parquet" });
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts", "part-0-of-1.json"), "utf8"));
		expect(manifest).toMatchObject({ rows: HOURS, timeUnit: null, minTime: null, maxTime: null });
		const partitioned = path.join(tempDir(), "by-day");
		await exportDataset(store, partitioned, { part: "0/1", partitionBy: "day", format: "parquet" });
		expect(JSON.parse(fs.readFileSync(path.join(partitioned, "_parts", "part-0-of-1.json"), "utf8"))).toMatchObject({ timeUnit: "ms" });
	});

	it("overwriting a dataset with another partitioning leaves none of the old partition folders, and the user's files", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "out");
		await exportDataset(store, folder, { partitionBy: "day", format: "parquet" });
		fs.mkdirSync(path.join(folder, "notes"));
		fs.writeFileSync(path.join(folder, "notes", "readme.txt"), "the user's own file");
		fs.writeFileSync(path.join(folder, "year=2021", "keep.txt"), "the user's, in a partition folder");
		await exportDataset(store, folder, { partitionBy: "year", format: "parquet", overwrite: true });
		// Trial 16: the 8 day= and 2 month= folders stayed, empty, which Hive readers take for partitions.
		const folders = (fs.readdirSync(folder, { recursive: true, encoding: "utf8" }) as string[]).filter((entry) => fs.statSync(path.join(folder, entry)).isDirectory()).sort();
		expect(folders).toEqual(["_parts", "notes", "year=2021"]);
		expect(fs.readFileSync(path.join(folder, "year=2021", "keep.txt"), "utf8")).toBe("the user's, in a partition folder");
	});
});

describe("parts written by the CLI and by the library", () => {
	it("commit together when they ran the same export, whichever defaults each spelt out; a real difference still refuses", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "mixed.parquet");
		// The CLI passes its defaults (compression zstd, row groups of 2^20 rows, unit auto, order c); the library none.
		const cli = runCli([store, "--partition-by", "day", "--part", "0/2", "-o", folder]);
		expect([cli.status, cli.stderr]).toMatchObject([0, expect.stringContaining("part 0/2")]);
		await exportDataset(store, folder, { partitionBy: "day", part: "1/2" });
		const manifests = [0, 1].map((k) => JSON.parse(fs.readFileSync(path.join(folder, "_parts", `part-${k}-of-2.json`), "utf8")));
		expect(manifests[1].options).toEqual(manifests[0].options);
		expect(manifests[0].options.output).toEqual({ format: "parquet", compression: "zstd" });
		expect((await commitDataset(folder)).rows).toBe(HOURS);

		const other = path.join(tempDir(), "other.parquet");
		expect(runCli([store, "--partition-by", "day", "--part", "0/2", "-o", other]).status).toBe(0);
		// Refused as another export (trial 19: 05) unless overwrite, which runs it; commit then refuses the mix.
		await expect(exportDataset(store, other, { partitionBy: "day", part: "1/2", compression: "snappy" })).rejects.toMatchObject({ code: "OUTPUT_EXISTS" });
		await exportDataset(store, other, { partitionBy: "day", part: "1/2", compression: "snappy", overwrite: true });
		await expect(commitDataset(other)).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringContaining("parts ran different exports: 1/2") });
		// Options an Arrow dataset does not use say nothing of its content.
		const arrow = path.join(tempDir(), "mixed.arrow");
		expect(runCli([store, "--partition-by", "day", "--part", "0/2", "-o", arrow]).status).toBe(0);
		await exportDataset(store, arrow, { partitionBy: "day", part: "1/2", compression: "snappy" });
		expect((await commitDataset(arrow)).rows).toBe(HOURS);
	});
});

describe("partition keys", () => {
	it("a column named as a Hive key of the partitioning (any case) is refused: Hive readers would read the folders' values in its place", async () => {
		const store = path.join(tempDir(), "days.zarr");
		await writeArray(store, "time", { shape: [4], chunks: [4], values: BigInt64Array.from({ length: 4 }, (_, i) => T0 + BigInt(i) * 86_400n), dimensionNames: ["time"] });
		await writeArray(store, "Day", { shape: [4], chunks: [4], dataType: "int32", fillValue: 0, values: Int32Array.of(100, 101, 102, 103), dimensionNames: ["time"] });
		const folder = path.join(tempDir(), "out");
		await expect(exportDataset(store, folder, { columns: ["Day"], index: true, partitionBy: "day" })).rejects.toMatchObject({
			code: "COLUMNS_INCOMPATIBLE",
			option: "rename",
			value: "Day",
			message: 'column "Day" has the name of a Hive partition key of `partitionBy` day (year, month, day): DuckDB, polars and Spark would read the folders\' day in its place',
		});
		expect(fs.existsSync(folder)).toBe(false);
		const run = runCli([store, "--columns", "Day", "--index", "--partition-by", "day", "-o", folder]);
		expect([run.status, run.stderr]).toEqual([
			2,
			'dt64-export: column "Day" has the name of a Hive partition key of --partition-by day (year, month, day): DuckDB, polars and Spark would read the folders\' day in its place: rename one with --rename Day=<new name> [COLUMNS_INCOMPATIBLE]\n',
		]);
		// By month, day is no key; renamed, it is no clash.
		expect((await exportDataset(store, path.join(tempDir(), "m"), { columns: ["Day"], index: true, partitionBy: "month" })).rows).toBe(4);
		expect((await exportDataset(store, path.join(tempDir(), "d"), { columns: ["Day"], index: true, partitionBy: "day", rename: { Day: "day_number" } })).rows).toBe(4);
	});
});

/**
 * 20,000 times at random over 60 days (as observations written in arrival order are), with their row number;
 * `firstTimes` replace the first ones.
 */
async function unsortedStore(firstTimes: readonly bigint[] = []): Promise<{ store: string; rows: number; times: BigInt64Array }> {
	const rows = 20_000;
	// Uniform numbers in [0, 1) from a seed: the same "random" rows on every run.
	const random = mulberry32(14);
	const times = BigInt64Array.from({ length: rows }, () => T0 + BigInt(Math.floor(random() * 60 * 86_400)));
	times.set(firstTimes);
	const store = path.join(tempDir(), "unsorted.zarr");
	await writeGroup(store, "");
	await writeArray(store, "time", { shape: [rows], chunks: [1000], values: times });
	await writeArray(store, "row", { shape: [rows], chunks: [1000], dataType: "int32", fillValue: 0, values: Int32Array.from({ length: rows }, (_, i) => i) });
	return { store, rows, times };
}

describe("exportDataset of unsorted time", () => {
	it("writes one file per day, holding exactly that day's rows in their order", async () => {
		const { store, rows, times } = await unsortedStore();
		const expected = new Map<string, number[]>();
		times.forEach((time, row) => {
			const date = new Date(Number(time) * 1000);
			const day = `${date.getUTCFullYear()}-${date.getUTCMonth() + 1}-${date.getUTCDate()}`;
			expected.set(day, [...(expected.get(day) ?? []), row]);
		});

		const folder = path.join(tempDir(), "out");
		const summary = await exportDataset(store, folder, { columns: ["time", "row"], partitionBy: "day", format: "parquet" });
		expect(summary.committed).toMatchObject({ rows, files: expected.size });
		const days = new Set(summary.files.map((file) => path.dirname(file.path)));
		expect([summary.files.length, days.size]).toEqual([expected.size, expected.size]);
		const read = await query(
			`SELECT year || '-' || month || '-' || day, list(row ORDER BY file_row_number), count(*) FILTER (WHERE day(time) <> day OR month(time) <> month)
			FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true, file_row_number = true) GROUP BY ALL`,
		);
		expect(new Map(read.map(([day, list, misplaced]) => [day, [(list as { items: number[] }).items, Number(misplaced)]]))).toEqual(new Map([...expected].map(([day, list]) => [day, [list, 0]])));
	});

	it("with a time range, still one file per day (trial 16: the first day seen was written as two files)", async () => {
		// The rows in range start with day 10, then day 20 alone (between rows out of range), in order so far: day 10 was
		// written to a file, closed when day 20 passed it, and its later rows went to a second file.
		const { store, times } = await unsortedStore([T0 + 10n * 86_400n + 3600n, T0 + 55n * 86_400n, T0 + 20n * 86_400n + 3600n, T0 + 55n * 86_400n]);
		// Days 10 to 40 of the 60: the range keeps rows scattered over every batch, each cut out as a run of its own.
		const start = T0 + 10n * 86_400n;
		const end = T0 + 40n * 86_400n;
		const expected = new Map<string, number>();
		for (const time of times) {
			if (time < start || time >= end) continue;
			const day = new Date(Number(time) * 1000).toISOString().slice(0, 10);
			expected.set(day, (expected.get(day) ?? 0) + 1);
		}
		const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();
		const folder = path.join(tempDir(), "out");
		const summary = await exportDataset(store, folder, { columns: ["time", "row"], partitionBy: "day", format: "parquet", start: iso(start), end: iso(end) });
		expect(expected.size).toBe(30);
		expect(new Set(summary.files.map((file) => path.dirname(file.path))).size).toBe(30);
		expect(summary.files.length).toBe(30);
		const read = await query(
			`SELECT strftime(min(time), '%Y-%m-%d'), count(*), count(DISTINCT filename), count(*) FILTER (WHERE day(time) <> day)
			FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true, filename = true) GROUP BY year, month, day`,
		);
		expect(new Map(read.map(([day, count, files, misplaced]) => [day, [Number(count), Number(files), Number(misplaced)]]))).toEqual(new Map([...expected].map(([day, count]) => [day, [count, 1, 0]])));
	});
});

/** A Writable that keeps every byte written to it. */
function collector(): Writable & { bytes(): Buffer } {
	const chunks: Buffer[] = [];
	return Object.assign(new Writable({ write: (chunk: Buffer, _encoding, callback) => void (chunks.push(chunk), callback()) }), { bytes: () => Buffer.concat(chunks) });
}

const timesOf = (bytes: Buffer) => Array.from(tableFromIPC(bytes).getChild("hourly")!.data.flatMap((data) => Array.from(data.values as BigInt64Array)));

describe("exportSelection", () => {
	it("writes a part of the rows to one stream: parts 0..N-1 are the whole export, in order", async () => {
		const store = await hourlyStore();
		const whole = collector();
		await exportSelection(store, whole, { format: "arrow-stream" });
		const parts = [];
		for (const k of [0, 1, 2]) {
			const sink = collector();
			const summary = await exportSelection(store, sink, { format: "arrow-stream", part: `${k}/3`, end: "2021-02-06" });
			expect(summary.rows).toBe(timesOf(sink.bytes()).length);
			parts.push(timesOf(sink.bytes()));
		}
		expect(parts[1].length).toBeGreaterThan(0);
		expect(parts.flat()).toEqual(timesOf(whole.bytes()).filter((time) => time < BigInt(Date.UTC(2021, 1, 6) / 1000)));
		await expect(exportSelection(store, collector(), { partitionBy: "day" })).rejects.toMatchObject({ code: "USAGE", option: "partitionBy" });
	});

	it("the CLI writes --part K/N to stdout as one stream, and to a folder with -o (a folder named x.parquet too)", () => {
		const store = path.join(REPO, "data/weather-station.zarr");
		const streamed = runCli([store, "--part", "1/3", "-o", "-", "--to", "arrow-stream"]);
		expect(streamed.status, streamed.stderr).toBe(0);
		expect(tableFromIPC(streamed.stdout).numRows).toBeGreaterThan(0);
		const folder = path.join(tempDir(), "x.parquet");
		expect(runCli([store, "--part", "1/3", "-q", "-o", folder]).status).toBe(0);
		expect(fs.readdirSync(folder).sort()).toEqual(["_parts", "part-00001-of-00003.parquet"]);
	});
});

describe("exportToFile and exportTable", () => {
	it("write the rows of a time range or a part (they were written whole), and refuse partitionBy", async () => {
		const store = await hourlyStore();
		const file = path.join(tempDir(), "range.arrows");
		await exportToFile(store, file, { format: "arrow-stream", start: "2021-02-01T05:00", end: "2021-02-02" });
		const times = timesOf(fs.readFileSync(file));
		expect([times.length, times[0]]).toEqual([19, BigInt(Date.UTC(2021, 1, 1, 5) / 1000)]);
		const sink = collector();
		await exportTable(store, sink, { format: "arrow-stream", part: "1/4" });
		const selected = collector();
		await exportSelection(store, selected, { format: "arrow-stream", part: "1/4" });
		expect(timesOf(sink.bytes())).toEqual(timesOf(selected.bytes()));
		expect(timesOf(sink.bytes()).length).toBe(HOURS / 4);
		await expect(exportToFile(store, path.join(tempDir(), "x.arrow"), { partitionBy: "day" })).rejects.toMatchObject({ code: "USAGE", option: "partitionBy" });
		const table = await openTable(path.join(REPO, "data/observations.zarr"), { columns: ["time"] });
		expect(() => createTableExportStages(table, { end: "2021-02-01" })).toThrow(expect.objectContaining({ code: "USAGE", option: "end" }));
	});
});

describe("errors: the library names options, the CLI flags", () => {
	const refusal = async (action: () => unknown): Promise<Dt64ExportError> => {
		try {
			await action();
		} catch (error) {
			return error as Dt64ExportError;
		}
		throw new Error("not refused");
	};
	const observations = path.join(REPO, "data/observations.zarr");

	it.each([
		[() => exportSelection(observations, collector(), { columns: "all", start: "2023", timeColumn: "temperature" }), "--time-column temperature: not a column of times (datetime64 or CF time)"],
		[() => exportDataset(observations, tempDir(), { columns: ["temperature"], partitionBy: "day" }), /^no time column \(datetime64 or CF time\) .*: --index\)$/],
		[() => planExport({ maxRowsPerFile: 1000 }), /^--max-rows-per-file applies to the files of a dataset folder.*--partition-by, or --part with -o <folder>\)$/],
		[() => planExport({ start: "2024", end: "2023" }), "--start 2024 is not before --end 2023: the range [start, end) would be empty"],
		[() => planExport({ part: "7/3" }), "--part 7/3: part 7 does not exist among 3 parts (0 to 2)"],
		[() => partFromEnvironment({ JOB_COMPLETION_INDEX: "2" }), /^--part auto: JOB_COMPLETION_INDEX is set .*: give it as --parts/],
		[() => partFromEnvironment({}), /AWS_BATCH_JOB_ARRAY_INDEX for an AWS Batch array job, .*; use --part K\/N$/],
	])("%#", async (action, cli) => {
		const error = await refusal(action);
		expect(error.message).not.toMatch(/--[a-z]/);
		expect(describeForCli(error)).toMatch(cli);
	});

	it("the CLI says what --max-rows-per-file needs before it reads -o for a format: -o names a folder when a dataset was meant", () => {
		const folder = path.join(tempDir(), "mr");
		const result = runCli([observations, "--max-rows-per-file", "1000", "-o", folder]);
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/^dt64-export: --max-rows-per-file applies to the files of a dataset folder, .*\(a dataset folder is written with --partition-by, or --part with -o <folder>\) \[USAGE\]\n$/);
		expect(fs.existsSync(folder)).toBe(false);
	});
});
