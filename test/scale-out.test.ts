/**
 * Fan-out as batch engines run it: N real processes of the built CLI in parallel, each `--part K/N` of the same
 * command into one dataset folder, then `commit`; DuckDB reads the folder as one table and must find what a single
 * process exports, row for row in aggregate.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { listDataset, partStagingPath } from "../src/output/dataset-files.js";
import { useDuckDB } from "./support/duckdb.js";
import { BIN, REPO, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";

const query = useDuckDB();
const work = tempDir("dt64-scale-");
const T0 = BigInt(Date.UTC(2021, 0, 30, 18) / 1000);

/** Hourly times from T0 and a float companion, 1-D (chunks of 40 and 25) or 3-D (time broadcast over 3 x 4). */
async function makeStore(name: string, rank: 1 | 3): Promise<string> {
	const store = path.join(work, name);
	const hours = 24 * 9 + 5;
	const inner = rank === 1 ? [] : [3, 4];
	const rowSize = inner.reduce((a, b) => a * b, 1);
	const time = BigInt64Array.from({ length: hours * rowSize }, (_, i) => (T0 + BigInt(Math.floor(i / rowSize)) * 3600n) * 1_000_000n);
	const value = Float64Array.from({ length: hours * rowSize }, (_, i) => (i % 97) * 0.5 - 3);
	const unit = { name: "numpy.datetime64", configuration: { unit: "us", scale_factor: 1 } };
	await writeArray(store, "time", { shape: [hours, ...inner], chunks: [40, ...inner.map(() => 2)], values: time, dataType: unit });
	await writeArray(store, "value", { shape: [hours, ...inner], chunks: [25, ...inner.map(() => 3)], values: value, dataType: "float64", fillValue: 0 });
	return store;
}

const stores = { "1-D": makeStore("one.zarr", 1), "3-D": makeStore("three.zarr", 3) };

/** count, min, max and sum of the epoch microseconds of time, and sum of value: exact (integers, or halves). */
async function aggregate(source: string): Promise<string[]> {
	const rows = await query(`SELECT count(*), min(epoch_us(time)), max(epoch_us(time)), sum(epoch_us(time))::HUGEINT, sum(value) FROM ${source}`);
	return rows[0].map(String);
}

interface Case {
	readonly store: keyof typeof stores;
	readonly parts: number;
	readonly args: string[];
}

const CASES: Case[] = [
	{ store: "1-D", parts: 1, args: ["--start", "2021-02-01T05:00", "--end", "2021-02-04"] },
	{ store: "1-D", parts: 3, args: ["--partition-by", "day", "--start", "2021-02-01T05:00:00+01:00", "--end", "2021-02-04T00:00Z"] },
	{ store: "1-D", parts: 8, args: ["--partition-by", "hour", "--max-rows-per-file", "7"] },
	{ store: "3-D", parts: 1, args: ["--partition-by", "month"] },
	{ store: "3-D", parts: 3, args: ["--start", "2021-02-02", "--end", "2021-02-05T13:00"] },
	{ store: "3-D", parts: 8, args: ["--partition-by", "day", "--start", "2021-01-31T23:00", "--end", "2021-02-06"] },
];

describe("fan-out over N processes", () => {
	for (const { store, parts, args } of CASES) {
		it(`${store}, N = ${parts}: ${args.join(" ")}`, async () => {
			const location = await stores[store];
			const common = [location, "--columns", "time,value", "--to", "parquet", "-q", ...args];
			const single = path.join(tempDir(), "single.parquet");
			const folder = path.join(tempDir(), "out");
			const runs = await Promise.all([
				runCliAsync([...common.filter((_arg, i) => !isDatasetOption(common, i)), "-o", single]),
				...Array.from({ length: parts }, (_, k) => runCliAsync([...common, "--part", `${k}/${parts}`, "-o", folder])),
			]);
			// A part with no chunk of rows (N above the chunks) says so, even with -q (trial 19: 06); nothing else is said.
			for (const run of runs) expect(run.stderr.replace(/^dt64-export: warning: part \d+\/\d+ of \S+ selected no rows: .*\n/gm, "")).toBe("");
			expect(runs.map((run) => run.status)).toEqual(runs.map(() => 0));
			const commit = await runCliAsync(["commit", folder, "--json"]);
			expect(commit.status, commit.stderr).toBe(0);
			const expected = await aggregate(`read_parquet('${single}')`);
			expect(Number(expected[0])).toBeGreaterThan(0);
			expect(await aggregate(`read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`)).toEqual(expected);
			expect(JSON.parse(commit.stdout.toString())).toMatchObject({ committed: true, parts, rows: Number(expected[0]) });
			const level = args[args.indexOf("--partition-by") + 1];
			if (args.includes("--partition-by")) {
				const checks = ["year(time) = year", "month(time) = month", "day(time) = day", "hour(time) = hour"].slice(0, ["year", "month", "day", "hour"].indexOf(level) + 1);
				const misplaced = await query(`SELECT count(*) FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true) WHERE NOT (${checks.join(" AND ")})`);
				expect(Number(misplaced[0][0])).toBe(0);
			}
		});
	}
});

/** The dataset-only options (and their values), left out of the single-file export. */
function isDatasetOption(args: string[], i: number): boolean {
	const options = ["--partition-by", "--max-rows-per-file"];
	return options.includes(args[i]) || options.includes(args[i - 1]);
}

/** Spawns the CLI with every write slowed down, so that it can be killed in the middle of one. */
function slowRun(args: string[]) {
	const slow = path.join(REPO, "test/support/slow-writes.mjs");
	return spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NODE_OPTIONS: `--import ${slow}`, DT64_TEST_WRITE_DELAY_MS: "40" }, stdio: "ignore" });
}

/** Every file and folder under `folder`, with each file's size and modification time. */
function folderState(folder: string): string[] {
	return fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).sort().map((entry) => {
		const stat = fs.statSync(path.join(folder, entry));
		return stat.isDirectory() ? `${entry}/` : `${entry} ${stat.size} ${stat.mtimeMs}`;
	});
}

/**
 * Waits until `ready` holds or `child` has ended, whichever comes first: however long its start takes (a loaded
 * machine), not a number of turns (a 4 s bound here was as long as a CLI's start may take under load). An export
 * that ends first fails the `ready()` that follows; one that hangs, the test's timeout.
 */
async function untilOrEnded(child: ReturnType<typeof spawn>, ready: () => boolean): Promise<void> {
	while (!ready() && child.exitCode === null && child.signalCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Runs the CLI slowed down, interrupts it (SIGINT) once `ready` holds, and resolves to its exit status. */
async function interruptWhen(args: string[], ready: () => boolean): Promise<number | null> {
	const child = slowRun(args);
	const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
	await untilOrEnded(child, ready);
	expect(ready()).toBe(true);
	child.kill("SIGINT");
	return exited;
}

describe("retries and commit", () => {
	it("a part killed (SIGKILL) in the middle of a write, run again, leaves no temporary file and no duplicate row", async () => {
		const location = await stores["3-D"];
		const folder = path.join(tempDir(), "out");
		const common = [location, "--columns", "time,value", "--to", "parquet", "--partition-by", "day", "--row-group-rows", "16", "-q", "-o", folder];
		for (const k of [0, 2]) expect((await runCliAsync([...common, "--part", `${k}/3`])).status).toBe(0);
		const victim = slowRun([...common, "--part", "1/3"]);
		const exited = new Promise((resolve) => victim.once("exit", resolve));
		// The part writes its files aside (`_parts/.replacing-part-1-of-3/`) until all are written.
		const staging = path.join(folder, partStagingPath({ index: 1, count: 3 }));
		await untilOrEnded(victim, () => listDataset(staging).tempFiles.length > 0);
		expect(listDataset(staging).tempFiles.length).toBeGreaterThan(0);
		victim.kill("SIGKILL");
		await exited;
		// Nothing of it among the dataset's files: what it left is aside, for its next run to remove.
		expect(listDataset(folder).dataFiles.filter((file) => file.includes("part-00001"))).toEqual([]);
		const refused = await runCliAsync(["commit", folder]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(/cannot commit .*(1\/3|killed while writing)/);
		expect((await runCliAsync([...common, "--part", "1/3"])).status).toBe(0);
		expect(listDataset(folder).tempFiles).toEqual([]);
		expect(fs.existsSync(staging)).toBe(false);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
		const single = path.join(tempDir(), "single.parquet");
		expect((await runCliAsync([location, "--columns", "time,value", "--to", "parquet", "-q", "-o", single])).status).toBe(0);
		expect(await aggregate(`read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`)).toEqual(await aggregate(`read_parquet('${single}')`));
	});

	it("a whole export killed (SIGKILL) into the folder it created is run again by the same command, without --force (trial 26: 02)", async () => {
		const location = await stores["3-D"];
		const folder = path.join(tempDir(), "out");
		const command = [location, "--columns", "time,value", "--to", "parquet", "--partition-by", "day", "--row-group-rows", "16", "-q", "-o", folder];
		const victim = slowRun(command);
		const exited = new Promise((resolve) => victim.once("exit", resolve));
		// A new dataset is written in place: a file finished at its name, another being written.
		const leftBehind = () => fs.existsSync(folder) && listDataset(folder).dataFiles.length > 0 && listDataset(folder).tempFiles.length > 0;
		await untilOrEnded(victim, leftBehind);
		expect(leftBehind()).toBe(true);
		victim.kill("SIGKILL");
		await exited;
		// Before: "out is not empty: a whole dataset is written to an empty folder ... (use --force to overwrite)".
		const retry = await runCliAsync(command);
		expect([retry.status, retry.stderr]).toEqual([0, expect.stringMatching(/^dt64-export: warning: part 0\/1: took over the lock of pid \d+/)]);
		expect(listDataset(folder).tempFiles).toEqual([]);
		expect(fs.readdirSync(path.join(folder, "_parts"))).toEqual(["part-0-of-1.json"]);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(true);
		const single = path.join(tempDir(), "single.parquet");
		expect((await runCliAsync([location, "--columns", "time,value", "--to", "parquet", "-q", "-o", single])).status).toBe(0);
		expect(await aggregate(`read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`)).toEqual(await aggregate(`read_parquet('${single}')`));
		// A folder holding anything a killed whole export does not leave (a user's file) is still refused.
		const other = path.join(tempDir(), "other");
		fs.mkdirSync(path.join(other, "year=2021"), { recursive: true });
		fs.copyFileSync(path.join(folder, listDataset(folder).dataFiles[0]), path.join(other, "year=2021", "part-00000-of-00001.parquet"));
		fs.writeFileSync(path.join(other, "notes.txt"), "the user's own file");
		const refused = await runCliAsync([...command.slice(0, -1), other]);
		expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining("is not empty")]);
	});

	it("a part interrupted (SIGINT) in the middle of a write removes what it wrote and the folders it created, and nothing else", async () => {
		const location = await stores["3-D"];
		const folder = path.join(tempDir(), "out");
		const common = [location, "--columns", "time,value", "--to", "parquet", "--partition-by", "day", "--row-group-rows", "16", "-q"];
		for (const k of [0, 2]) expect((await runCliAsync([...common, "--part", `${k}/3`, "-o", folder])).status).toBe(0);
		fs.writeFileSync(path.join(folder, "notes.txt"), "the user's own file");
		const before = folderState(folder);
		// Into the dataset of the other parts, once a file of its own is finished; and into a folder it creates.
		const created = path.join(tempDir(), "new", "out");
		const interrupted = await Promise.all([
			interruptWhen([...common, "--part", "1/3", "-o", folder], () => {
				// Aside until all are written: a file of its own finished (`.staged`), another being written.
				const staging = path.join(folder, partStagingPath({ index: 1, count: 3 }));
				const names = fs.existsSync(staging) ? fs.readdirSync(staging, { recursive: true, encoding: "utf8" }) : [];
				return names.some((name) => name.endsWith(".parquet.staged")) && listDataset(staging).tempFiles.length > 0;
			}),
			interruptWhen([...common, "-o", created], () => listDataset(created).tempFiles.length > 0),
		]);
		expect(interrupted).toEqual([130, 130]);
		expect(folderState(folder)).toEqual(before);
		expect(fs.readdirSync(path.dirname(path.dirname(created)))).toEqual([]);
	});

	it("a committed part run again and interrupted mid-way leaves its earlier run, the manifest and _SUCCESS as they were", async () => {
		const location = await stores["3-D"];
		const folder = path.join(tempDir(), "out");
		const common = [location, "--columns", "time,value", "--to", "parquet", "--partition-by", "day", "--row-group-rows", "16", "-q", "-o", folder];
		for (const k of [0, 1, 2]) expect((await runCliAsync([...common, "--part", `${k}/3`])).status).toBe(0);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
		const before = folderState(folder);
		const staging = path.join(folder, partStagingPath({ index: 1, count: 3 }));
		// Once a file of the run is finished and the next being written, wherever it writes them.
		const status = await interruptWhen([...common, "--part", "1/3"], () => {
			const names = fs.existsSync(staging) ? fs.readdirSync(staging, { recursive: true, encoding: "utf8" }) : [];
			const aside = names.some((name) => name.endsWith(".parquet.staged")) && listDataset(staging).tempFiles.length > 0;
			const replacedInPlace = folderState(folder).some((entry) => entry.includes("part-00001-of-00003") && !before.includes(entry)) && listDataset(folder).tempFiles.length > 0;
			return aside || replacedInPlace;
		});
		expect(status).toBe(130);
		// Every file as it was, byte for byte and untouched (size and mtime), _SUCCESS and part 1's manifest included.
		expect(folderState(folder)).toEqual(before);
		expect(before.some((entry) => entry.startsWith("_SUCCESS "))).toBe(true);
		expect(before.some((entry) => entry.startsWith("_parts/part-1-of-3.json "))).toBe(true);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
	});

	it("commit refuses a missing part and a part run with other options, naming them", async () => {
		const location = await stores["1-D"];
		const folder = path.join(tempDir(), "out");
		const common = [location, "--columns", "time,value", "--to", "parquet", "--partition-by", "day", "-q", "-o", folder];
		await Promise.all([0, 2].map((k) => runCliAsync([...common, "--part", `${k}/3`])));
		const missing = await runCliAsync(["commit", folder]);
		expect(missing.status).toBe(1);
		expect(missing.stderr).toMatch(/^dt64-export: cannot commit .*: 1 of 3 parts have not finished: 1\/3 \(no _parts\/part-1-of-3\.json\) \[DATASET_INVALID\]\n$/);
		// --json says so on stdout too: a script parsing it gets a document.
		const missingJson = await runCliAsync(["commit", folder, "--json"]);
		expect(missingJson.status).toBe(1);
		expect(JSON.parse(missingJson.stdout)).toMatchObject({ committed: false, error: { code: "DATASET_INVALID", message: expect.stringMatching(/1 of 3 parts have not finished/) } });
		// A part of another export refuses to join the folder (trial 19: 05); with --force it runs, and commit refuses.
		const refused = await runCliAsync([...common, "--part", "1/3", "--end", "2021-02-03"]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(/holds parts 0\/3, 2\/3 of another export than this run of part 1\/3, with other options: --end none \(this run: 2021-02-03T00:00:00\) \(part 0\/3's\); this part could not be committed with them: .* \[OUTPUT_EXISTS\]\n$/);
		expect((await runCliAsync([...common, "--part", "1/3", "--end", "2021-02-03", "--force"])).status).toBe(0);
		const other = await runCliAsync(["commit", folder]);
		expect(other.status).toBe(1);
		expect(other.stderr).toMatch(/parts ran different exports: 1\/3 used other options/);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		expect((await runCliAsync([...common, "--part", "1/3"])).status).toBe(0);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(true);
		// A file readers would take for data that no part wrote (trial 16): refused, and the earlier _SUCCESS goes,
		// which would otherwise still say complete what commit now refuses.
		const partition = fs.readdirSync(folder).find((name) => name.startsWith("year="))!;
		fs.writeFileSync(path.join(folder, partition, "extra.parquet"), "");
		const stray = await runCliAsync(["commit", folder]);
		expect(stray.status).toBe(1);
		expect(stray.stderr).toMatch(new RegExp(`files that readers of the dataset .* would read as data, which no part wrote: ${partition}/extra\\.parquet \\(move them out of the folder\\); the _SUCCESS of an earlier commit was removed \\[DATASET_INVALID\\]\n$`));
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		fs.rmSync(path.join(folder, partition, "extra.parquet"));
		// -q as on every export (a script that passes it everywhere): no summary line.
		const quiet = await runCliAsync(["commit", folder, "-q"]);
		expect({ status: quiet.status, stderr: quiet.stderr }).toEqual({ status: 0, stderr: "" });
	});

	it("--part auto takes K and N from the batch engine, and refuses ambiguity", async () => {
		const location = await stores["1-D"];
		const folder = path.join(tempDir(), "out");
		const common = [location, "--columns", "time,value", "--to", "parquet", "-q", "-o", folder, "--part", "auto"];
		const env = (k: number) => ({ AWS_BATCH_JOB_ARRAY_INDEX: String(k), AWS_BATCH_JOB_ARRAY_SIZE: "2" });
		for (const k of [0, 1]) expect((await runCliAsync(common, { env: env(k) })).status).toBe(0);
		expect((await runCliAsync(["commit", folder])).status).toBe(0);
		const ambiguous = await runCliAsync(common, { env: { ...env(0), JOB_COMPLETION_INDEX: "0" } });
		expect(ambiguous.status).toBe(2);
		expect(ambiguous.stderr).toMatch(/ambiguous/);
	});
});
