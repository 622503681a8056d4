/**
 * The lock of a dataset part (`_parts/part-K-of-N.lock`): two overlapping runs of the same part (a batch engine
 * retrying a task while its first attempt still runs) must not delete each other's files. The second run refuses at
 * once, before reading anything; a lock left by a process of this host that has ended is taken over; another host's
 * is not, unless asked; every way a run ends releases it; commit refuses while a part may still write; and readers
 * of the dataset never see the lock.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { commitDataset, exportDataset, exportToFile } from "../src/index.js";
import { listDataset, partStagingPath } from "../src/output/dataset-files.js";
import { acquirePartLock, LOCK_LEASE_MS, LOCK_RENEWAL_MS } from "../src/output/part-lock.js";
import { BIN, REPO, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { runCliAsync } from "./support/run-cli-async.js";

const query = useDuckDB();
const WEATHER = path.join(REPO, "data/weather-station.zarr");
const COMMON = [WEATHER, "--to", "parquet", "--partition-by", "month", "--row-group-rows", "64", "-q"];

const lockOf = (folder: string, k: number, n: number) => path.join(folder, "_parts", `part-${k}-of-${n}.lock`);

/** The CLI with every write slowed down, so that a run lasts long enough to overlap another or to be interrupted. */
function slowRun(args: string[], gate?: string) {
	const slow = path.join(REPO, "test/support/slow-writes.mjs");
	const env = { ...process.env, NODE_OPTIONS: `--import ${slow}`, DT64_TEST_WRITE_DELAY_MS: "40", ...(gate === undefined ? {} : { DT64_TEST_WRITE_GATE: gate }) };
	const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
	let stderr = "";
	child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
	const exited = new Promise<{ status: number | null; stderr: string }>((resolve) => child.once("close", (status) => resolve({ status, stderr })));
	return { child, exited };
}

/** Waits until `ready` holds, or `child` has ended (then fails): however long its start takes, not a number of turns. */
async function until(child: ChildProcess, ready: () => boolean): Promise<void> {
	while (!ready() && child.exitCode === null && child.signalCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
	expect(ready()).toBe(true);
}

/** The pid of a process of this host that has ended. */
function endedPid(): number {
	const pid = spawnSync(process.execPath, ["-e", ""]).pid;
	expect(pid).toBeGreaterThan(0);
	return pid!;
}

function writeLock(file: string, holder: Record<string, unknown>): string {
	fs.mkdirSync(path.dirname(file), { recursive: true });
	const text = JSON.stringify({ part: "0/2", startedAt: "2026-01-02T03:04:05.000Z", token: "a-run-before", ...holder });
	fs.writeFileSync(file, text);
	return text;
}

/** Rows, distinct files, and the sum of the times, as DuckDB reads the dataset (its files' names too). */
async function readDataset(folder: string): Promise<{ rows: string; files: string[]; sum: string }> {
	const source = `read_parquet('${folder}/**/*.parquet', hive_partitioning = true, filename = true)`;
	const [[rows, sum]] = await query(`SELECT count(*), sum(epoch_ms("weather-station"))::HUGEINT FROM ${source}`);
	const files = (await query(`SELECT DISTINCT filename FROM ${source} ORDER BY 1`)).map(([file]) => String(file));
	return { rows: String(rows), files, sum: String(sum) };
}

describe("two runs of the same part", () => {
	it("started together: one refuses at once, naming the other; the other's files are intact and the dataset commits", async () => {
		const folder = path.join(tempDir(), "out");
		// Both write nothing until the gate opens: the one that takes the lock waits in its first write, holding it,
		// however far apart the two started (on a loaded machine, one could start after the other had finished, and
		// both then succeeded). The other refuses meanwhile; the gate opens once it has.
		const gate = path.join(tempDir(), "gate");
		const runs = [slowRun([...COMMON, "--part", "0/2", "-o", folder], gate), slowRun([...COMMON, "--part", "0/2", "-o", folder], gate)];
		// The refusal comes while the other run still holds the lock: it does not wait for it.
		const lockHeldAtExit = runs.map(({ exited }) => exited.then(() => fs.existsSync(lockOf(folder, 0, 2))));
		const first = await Promise.race(runs.map(({ exited }, k) => exited.then(() => k)));
		expect(runs[1 - first].child.exitCode).toBeNull();
		fs.writeFileSync(gate, "");
		const results = await Promise.all(runs.map(({ exited }) => exited));
		const loser = results.findIndex((result) => result.status !== 0);
		expect(loser).toBe(first);
		expect(results.map((result) => result.status).sort()).toEqual([0, 1]);
		expect(await lockHeldAtExit[loser]).toBe(true);
		const winnerPid = runs[1 - loser].child.pid;
		expect(results[loser].stderr).toMatch(
			new RegExp(`^dt64-export: part 0/2 of .*out is being exported by pid ${winnerPid}@${os.hostname()} since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(lock .*part-0-of-2\\.lock\\): wait for that export to end, or stop it, then run the part again if it failed \\[DATASET_INVALID\\]\\n$`),
		);
		expect(results[1 - loser].stderr).toBe("");
		expect(fs.existsSync(lockOf(folder, 0, 2))).toBe(false);
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts/part-0-of-2.json"), "utf8")) as { files: { path: string }[] };
		expect(listDataset(folder)).toEqual({ dataFiles: manifest.files.map((file) => file.path).sort(), tempFiles: [], otherDataFiles: [] });
		expect((await runCliAsync([...COMMON, "--part", "1/2", "-o", folder])).status).toBe(0);
		const commit = await runCliAsync(["commit", folder]);
		expect(commit.stderr).toMatch(/^committed .*: 2 parts, /);
		const single = path.join(tempDir(), "single.parquet");
		await exportToFile(WEATHER, single);
		const [[rows, sum]] = await query(`SELECT count(*), sum(epoch_ms("weather-station"))::HUGEINT FROM read_parquet('${single}')`);
		expect(await readDataset(folder)).toMatchObject({ rows: String(rows), sum: String(sum) });
	});

	it("in one process (the library): the second call refuses before reading anything, the first finishes", async () => {
		const folder = path.join(tempDir(), "out");
		// The second names the folder through a symbolic link: the lock is the same file.
		const alias = path.join(tempDir(), "alias");
		fs.mkdirSync(folder);
		fs.symlinkSync(folder, alias);
		const [first, second] = await Promise.allSettled([
			exportDataset(WEATHER, folder, { partitionBy: "month", part: "0/2" }),
			exportDataset(WEATHER, alias, { partitionBy: "month", part: "0/2" }),
		]);
		expect(first.status).toBe("fulfilled");
		expect(second).toMatchObject({ status: "rejected", reason: { code: "DATASET_INVALID", path: lockOf(alias, 0, 2), value: { pid: process.pid, host: os.hostname() } } });
		// Held by a run that is reading: the store is not even opened (a store that does not exist is not noticed).
		const lock = await acquirePartLock(folder, { index: 1, count: 2 });
		try {
			await expect(exportDataset(path.join(tempDir(), "no-such.zarr"), folder, { partitionBy: "month", part: "1/2" })).rejects.toMatchObject({ code: "DATASET_INVALID" });
		} finally {
			lock.release();
		}
		// (Named as the store of part 0/2: a store of another name would be another export, refused before it is opened.)
		await expect(exportDataset(path.join(tempDir(), path.basename(WEATHER)), folder, { partitionBy: "month", part: "1/2" })).rejects.toMatchObject({ code: "STORE_NOT_FOUND" });
		expect(fs.readdirSync(path.join(folder, "_parts"))).toEqual(["part-0-of-2.json"]);
		// A folder that cannot be made is said so, as the output's fault.
		await expect(exportDataset(WEATHER, path.join(folder, "_parts/part-0-of-2.json/out"), { part: "1/2" })).rejects.toMatchObject({ code: "OUTPUT_INVALID" });
	});
});

describe("a lock left behind", () => {
	it("by a process of this host that has ended is taken over, with a warning; so is one of this pid that this process does not hold", async () => {
		const folder = path.join(tempDir(), "out");
		const pid = endedPid();
		writeLock(lockOf(folder, 0, 2), { pid, host: os.hostname() });
		const run = await runCliAsync([...COMMON, "--part", "0/2", "-o", folder]);
		expect(run.status).toBe(0);
		expect(run.stderr).toBe(`dt64-export: warning: part 0/2: took over the lock of pid ${pid}@${os.hostname()} since 2026-01-02T03:04:05.000Z, which has ended (${lockOf(folder, 0, 2)})\n`);
		expect(fs.existsSync(lockOf(folder, 0, 2))).toBe(false);
		// A container's pid 1 started again has the pid of the run that was killed: that lock is not this process's.
		writeLock(lockOf(folder, 1, 2), { part: "1/2", pid: process.pid, host: os.hostname() });
		const summary = await exportDataset(WEATHER, folder, { partitionBy: "month", part: "1/2", rowGroupRows: 64, compression: "zstd" });
		expect(summary.lockTakenOver).toMatchObject({ state: "ended", holder: { pid: process.pid, token: "a-run-before" } });
		expect(fs.readdirSync(path.join(folder, "_parts")).sort()).toEqual(["part-0-of-2.json", "part-1-of-2.json"]);
		expect((await commitDataset(folder)).committed).toBe(true);
	});

	it("by another host is refused, untouched, saying how to remove it; --break-lock takes it over; a running one never", async () => {
		const folder = path.join(tempDir(), "out");
		const text = writeLock(lockOf(folder, 0, 2), { pid: 4242, host: "other-host.invalid" });
		const refused = await runCliAsync([...COMMON, "--part", "0/2", "-o", folder]);
		expect(refused.status).toBe(1);
		const lock = lockOf(folder, 0, 2);
		expect(refused.stderr).toBe(
			`dt64-export: part 0/2 of ${folder} is locked by pid 4242@other-host.invalid since 2026-01-02T03:04:05.000Z, which cannot be checked from ${os.hostname()} (lock ${lock}): once sure that no export of part 0/2 runs any more, remove ${lock}, or run the part with --break-lock [DATASET_INVALID]\n`,
		);
		await expect(exportDataset(WEATHER, folder, { partitionBy: "month", part: "0/2" })).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringContaining("`breakLock`") });
		expect(fs.readFileSync(lock, "utf8")).toBe(text);
		expect(fs.readdirSync(folder)).toEqual(["_parts"]);
		const broken = await runCliAsync([...COMMON, "--part", "0/2", "--break-lock", "-o", folder]);
		expect(broken.status).toBe(0);
		expect(broken.stderr).toMatch(/^dt64-export: warning: part 0\/2: took over the lock of pid 4242@other-host\.invalid since .*, as --break-lock asks/);
		expect(fs.existsSync(lock)).toBe(false);
		// This test's own process runs: its lock is not broken, whatever is asked.
		writeLock(lockOf(folder, 1, 2), { part: "1/2", pid: process.pid, host: os.hostname() });
		const running = await runCliAsync([...COMMON, "--part", "1/2", "--break-lock", "-o", folder]);
		expect(running.status).toBe(1);
		expect(running.stderr).toMatch(new RegExp(`^dt64-export: part 1/2 of .* is being exported by pid ${process.pid}@`));
		// Nor does an export to one file take the option.
		await expect(exportToFile(WEATHER, path.join(tempDir(), "t.arrow"), { breakLock: true } as never)).rejects.toMatchObject({ code: "USAGE", option: "breakLock" });
	});
});

describe("a lock's lease (trial 19: a pod killed outright left a lock every retry on another node refused)", () => {
	it("another host's lock not renewed for 10 minutes is taken over with a warning; renewed, it is refused", async () => {
		const folder = path.join(tempDir(), "leased");
		const lock = lockOf(folder, 0, 2);
		writeLock(lock, { pid: 4242, host: "killed-pod.invalid" });
		const renewed = new Date(Date.now() - LOCK_LEASE_MS + 60_000);
		fs.utimesSync(lock, renewed, renewed);
		const refused = await runCliAsync([...COMMON, "--part", "0/2", "-o", folder]);
		expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining("which cannot be checked from")]);
		const expired = new Date(Date.now() - LOCK_LEASE_MS - 60_000);
		fs.utimesSync(lock, expired, expired);
		const taken = await runCliAsync([...COMMON, "--part", "0/2", "-o", folder]);
		expect(taken.status).toBe(0);
		expect(taken.stderr).toMatch(/^dt64-export: warning: part 0\/2: took over the lock of pid 4242@killed-pod\.invalid since .*, which has not renewed it for 11 minutes \(/);
		expect(fs.existsSync(lock)).toBe(false);
		// Commit names such a lock as stale, as a lock of a run of this host that ended, and commits.
		expect((await runCliAsync([...COMMON, "--part", "1/2", "-o", folder])).status).toBe(0);
		writeLock(lockOf(folder, 1, 2), { part: "1/2", pid: 4243, host: "killed-pod.invalid" });
		fs.utimesSync(lockOf(folder, 1, 2), expired, expired);
		const summary = await commitDataset(folder);
		expect(summary.staleLocks).toEqual([expect.objectContaining({ part: "1/2", holder: expect.stringContaining("pid 4243@killed-pod.invalid") })]);
	});

	it("a run renews the lock it holds, and stops once it has released it", async () => {
		const folder = path.join(tempDir(), "renewed");
		const held = await acquirePartLock(folder, { index: 0, count: 1 });
		const file = lockOf(folder, 0, 1);
		const old = new Date(Date.now() - 3_600_000);
		fs.utimesSync(file, old, old);
		held.renew();
		expect(Date.now() - fs.statSync(file).mtimeMs).toBeLessThan(60_000);
		held.release();
		expect(fs.existsSync(file)).toBe(false);
		expect(LOCK_RENEWAL_MS * 20).toBe(LOCK_LEASE_MS);
	});
});

/** Hourly times over eight days in chunks of 12 rows, the 13th chunk cut short: a run fails after its first files. */
async function failingStore(): Promise<string> {
	const store = path.join(tempDir(), "hourly.zarr");
	const values = BigInt64Array.from({ length: 24 * 8 }, (_, i) => BigInt(Date.UTC(2021, 0, 30) / 1000) + BigInt(i) * 3600n);
	await writeArray(store, "", { shape: [values.length], chunks: [12], values, corruptChunk: (coords: number[], bytes: Uint8Array) => (coords[0] === 12 ? bytes.subarray(0, 5) : bytes) });
	return store;
}

describe("every way a run ends releases its lock", () => {
	it("a failure, an abort, a store that cannot be opened: the lock held while it ran is gone, and the folders made for it", async () => {
		const parent = tempDir();
		const folder = path.join(parent, "new", "out");
		const heldWhileReading: boolean[] = [];
		const onChunk = () => heldWhileReading.push(fs.existsSync(lockOf(folder, 1, 2)));
		await expect(exportDataset(await failingStore(), folder, { partitionBy: "day", part: "1/2", concurrency: 1, onChunk })).rejects.toMatchObject({ code: "CHUNK_CORRUPT" });
		expect(fs.readdirSync(parent)).toEqual([]);
		await expect(exportDataset(path.join(parent, "no-such.zarr"), folder, { part: "1/2" })).rejects.toMatchObject({ code: "STORE_NOT_FOUND" });
		expect(fs.readdirSync(parent)).toEqual([]);
		fs.mkdirSync(folder, { recursive: true });
		const controller = new AbortController();
		const abortAtThird = (chunk: number) => (onChunk(), chunk === 2 && controller.abort());
		await expect(exportDataset(WEATHER, folder, { partitionBy: "month", part: "1/2", signal: controller.signal, onChunk: abortAtThird, concurrency: 1 })).rejects.toMatchObject({ name: "AbortError" });
		expect(fs.readdirSync(folder)).toEqual([]);
		expect(heldWhileReading.length).toBeGreaterThan(3);
		expect(heldWhileReading.every((held) => held)).toBe(true);
		// Released: the next run takes it without a takeover.
		expect((await exportDataset(WEATHER, folder, { partitionBy: "month", part: "1/2" })).lockTakenOver).toBeUndefined();
	});

	it("parts that end together leave no empty _parts folder, whichever of them made it (trial 36: a whole export then refused the folder as not empty)", async () => {
		const folder = path.join(tempDir(), "out");
		// Part 0 makes the folder and _parts, parts 1 and 2 find them; part 0 ends first, while their locks are there.
		const locks = [];
		for (const k of [0, 1, 2]) locks.push(await acquirePartLock(folder, { index: k, count: 3 }));
		for (const lock of locks) lock.release();
		expect(fs.readdirSync(folder)).toEqual([]);
		// A failure while taking the lock (another run of the same part holds it) removes it too, once empty.
		const held = await acquirePartLock(folder, { index: 1, count: 3 });
		await expect(acquirePartLock(folder, { index: 1, count: 3 })).rejects.toMatchObject({ code: "DATASET_INVALID" });
		expect(fs.readdirSync(path.join(folder, "_parts"))).toEqual(["part-1-of-3.lock"]);
		held.release();
		expect(fs.readdirSync(folder)).toEqual([]);
		await exportDataset(WEATHER, folder, { partitionBy: "year" });
		expect(fs.readdirSync(folder)).toContain("_SUCCESS");
	});

	for (const [signal, status] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
		it(`${signal} in the middle of a write: exit ${status}, the lock released`, async () => {
			const folder = path.join(tempDir(), "out");
			const run = slowRun([...COMMON, "--part", "0/2", "-o", folder]);
			// A part writes its files aside until all are written (see dataset-writer.ts).
			await until(run.child, () => fs.existsSync(lockOf(folder, 0, 2)) && listDataset(path.join(folder, partStagingPath({ index: 0, count: 2 }))).tempFiles.length > 0);
			run.child.kill(signal);
			expect((await run.exited).status).toBe(status);
			expect(fs.existsSync(lockOf(folder, 0, 2))).toBe(false);
			expect(fs.existsSync(folder)).toBe(false);
		});
	}
});

describe("commit and readers", () => {
	it("commit refuses while a part's run holds its lock, or another host's lock is there; it names a stale lock and commits", async () => {
		const folder = path.join(tempDir(), "out");
		for (const k of [0, 1]) expect((await runCliAsync([...COMMON, "--part", `${k}/2`, "-o", folder])).status).toBe(0);
		const run = slowRun([...COMMON, "--part", "1/2", "-o", folder]);
		await until(run.child, () => fs.existsSync(lockOf(folder, 1, 2)));
		const refused = await runCliAsync(["commit", folder]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(new RegExp(`^dt64-export: cannot commit .*: part 1/2 is being exported by pid ${run.child.pid}@.* \\(lock .*part-1-of-2\\.lock\\): wait for that export to end, then commit \\[DATASET_INVALID\\]`));
		expect((await run.exited).status).toBe(0);
		// In this process, as a whole export (no part) does not replace the parts either while one runs.
		const lock = await acquirePartLock(folder, { index: 1, count: 2 });
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringContaining(`part 1/2 is being exported by pid ${process.pid}@`) });
		await expect(exportDataset(WEATHER, folder, { partitionBy: "month", overwrite: true })).rejects.toMatchObject({ code: "DATASET_INVALID" });
		lock.release();
		writeLock(lockOf(folder, 0, 2), { pid: 4242, host: "other-host.invalid" });
		await expect(commitDataset(folder)).rejects.toMatchObject({ message: expect.stringMatching(/which cannot be checked from .*remove it once sure that its export has ended/) });
		const pid = endedPid();
		writeLock(lockOf(folder, 0, 2), { pid, host: os.hostname() });
		const commit = await runCliAsync(["commit", folder, "--json"]);
		expect(commit.status).toBe(0);
		expect(JSON.parse(commit.stdout.toString()).staleLocks).toEqual([{ part: "0/2", file: lockOf(folder, 0, 2), holder: `pid ${pid}@${os.hostname()} since 2026-01-02T03:04:05.000Z` }]);
		expect(commit.stderr).toMatch(/^dt64-export: part 0\/2: a stale lock is left \(pid \d+@.*, ended; .*part-0-of-2\.lock\): the part's next run takes it over\n$/);
		expect(JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8"))).not.toHaveProperty("staleLocks");
		// DuckDB reads the data files alone: no lock, no manifest, and the Hive columns of the partitions only.
		const read = await readDataset(folder);
		expect(read.rows).toBe("17520");
		expect(read.files).toEqual(listDataset(folder).dataFiles.map((file) => path.join(folder, file)));
		expect(read.files.some((file) => file.includes("_parts"))).toBe(false);
		const columns = await query(`DESCRIBE SELECT * FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`);
		expect(columns.map(([name]) => name).sort()).toEqual(["month", "weather-station", "year"]);
	});
});
