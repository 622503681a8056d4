/**
 * A dataset's own files that cannot be written (trial 19: 03, 04): a part's manifest or the `_SUCCESS` that a full
 * disk has no room for fails the run (WRITE_FAILED, exit 1) and leaves nothing that passes for finished, never a
 * success without the file. The disk is made full for those files only (test/support/full-disk.mjs), in the library
 * and in the CLI's process; no file system is mounted.
 */
import * as fs from "node:fs";
import nodeFs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { commitDataset, exportDataset, exportToFile } from "../src/index.js";
import { listDataset } from "../src/output/dataset-files.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { hourlyStore } from "./support/hourly-store.js";
import { failWritesTo } from "./support/full-disk.mjs";
import { makeReadOnly } from "./support/read-only-folder.mjs";

const FULL_DISK = pathToFileURL(path.join(REPO, "test/support/full-disk.mjs")).href;
const READ_ONLY = pathToFileURL(path.join(REPO, "test/support/read-only-folder.mjs")).href;
const MANIFEST = String.raw`^\.part-0-of-1\.json\.`;
const SUCCESS = String.raw`^\._SUCCESS\.`;

/** Everything under `folder`, relative, folders with a trailing `/`. */
function contents(folder: string): string[] {
	if (!fs.existsSync(folder)) return [];
	return fs
		.readdirSync(folder, { recursive: true, withFileTypes: true })
		.map((entry) => `${path.relative(folder, path.join(entry.parentPath, entry.name))}${entry.isDirectory() ? "/" : ""}`)
		.sort();
}

/** The environment of a CLI run whose writes in `mount` fail as on a read-only file system (EROFS), or with `code`. */
function readOnlyEnv(mount: string, code?: "EACCES"): Record<string, string> {
	return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${READ_ONLY}`.trim(), DT64_TEST_READ_ONLY: mount, ...(code === undefined ? {} : { DT64_TEST_READ_ONLY_CODE: code }) };
}

/** A dataset export into `mount` (made read-only or unwritable), to an existing folder and to one to create, refused naming `reason`. */
async function expectDatasetFoldersRefused(store: string, mount: string, reason: string): Promise<void> {
	for (const [folder, options] of [
		[path.join(mount, "x.parquet"), { partitionBy: "day" }],
		[path.join(mount, "y.parquet"), { partitionBy: "day", part: "0/2" }],
	] as const) {
		await expect(exportDataset(store, folder, options)).rejects.toMatchObject({
			code: "OUTPUT_INVALID",
			message: `cannot create the dataset folder ${path.join(folder, "_parts")}: ${reason}`,
		});
	}
}

let undo: (() => void) | undefined;
afterEach(() => {
	undo?.();
	undo = undefined;
});

describe("a part's manifest or _SUCCESS on a full disk (library)", () => {
	it("a part whose manifest cannot be written fails WRITE_FAILED and undoes its files, as a failed part does", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "out.parquet");
		undo = failWritesTo(new RegExp(MANIFEST));
		await expect(exportDataset(store, folder, { partitionBy: "day", part: "0/1" })).rejects.toMatchObject({
			code: "WRITE_FAILED",
			path: path.join(folder, "_parts", "part-0-of-1.json"),
			message: `cannot write to ${path.join(folder, "_parts", "part-0-of-1.json")}: ENOSPC: no space left on device`,
		});
		// The folder was created by the run: nothing of it is left.
		expect(contents(folder)).toEqual([]);
	});

	it("a part run again whose manifest cannot be written leaves no manifest: commit refuses rather than commits", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "again.parquet");
		await exportDataset(store, folder, { partitionBy: "day", part: "0/1" });
		const files = listDataset(folder);
		undo = failWritesTo(new RegExp(MANIFEST));
		await expect(exportDataset(store, folder, { partitionBy: "day", part: "0/1" })).rejects.toMatchObject({ code: "WRITE_FAILED" });
		undo();
		undo = undefined;
		// The files moved in had replaced the earlier run's: they stay, uncommitted (trial 26: 01; they were removed,
		// which left the part's rows nowhere), and the next run replaces them.
		expect(listDataset(folder)).toEqual(files);
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringContaining("no part has finished (_parts/ holds no part-K-of-N.json): run the export, or each of its parts, again, then commit") });
	});

	it("commit that cannot write _SUCCESS fails WRITE_FAILED and leaves the folder as it was: an earlier commit's _SUCCESS intact", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "commit.parquet");
		await exportDataset(store, folder, { partitionBy: "day", part: "0/1" });
		await commitDataset(folder);
		const marker = path.join(folder, "_SUCCESS");
		const earlier = fs.readFileSync(marker);
		const before = contents(folder);
		undo = failWritesTo(new RegExp(SUCCESS));
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "WRITE_FAILED", path: marker, message: expect.stringContaining("ENOSPC: no space left on device") });
		// The earlier marker, byte for byte, and nothing beside it (its replacement was written aside, never renamed).
		expect(contents(folder)).toEqual(before);
		expect(fs.readFileSync(marker)).toEqual(earlier);
		undo();
		undo = undefined;
		expect(await commitDataset(folder)).toMatchObject({ committed: true, rows: 96 });
	});

	it("a whole export whose _SUCCESS cannot be written fails WRITE_FAILED and leaves nothing", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "whole.parquet");
		undo = failWritesTo(new RegExp(SUCCESS));
		await expect(exportDataset(store, folder, { partitionBy: "day" })).rejects.toMatchObject({ code: "WRITE_FAILED", path: path.join(folder, "_SUCCESS") });
		expect(contents(folder)).toEqual([]);
	});
});

describe("a part's manifest or _SUCCESS on a full disk (CLI)", () => {
	const fullDisk = (pattern: string) => ({ NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${FULL_DISK}`.trim(), DT64_TEST_FULL_DISK: pattern });

	it("--part: exit 1 WRITE_FAILED naming the manifest, no success line, nothing left", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "cli.parquet");
		const run = runCli([store, "--partition-by", "day", "--part", "0/1", "-o", folder], { env: fullDisk(MANIFEST) });
		expect(run.stderr).toBe(`dt64-export: cannot write to ${path.join(folder, "_parts", "part-0-of-1.json")}: ENOSPC: no space left on device [WRITE_FAILED]\n`);
		expect(run.status).toBe(1);
		expect(contents(folder)).toEqual([]);
	});

	it("commit --json: exit 1, committed false with the error, no _SUCCESS; an earlier commit's kept", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "cli-commit.parquet");
		expect(runCli([store, "--partition-by", "day", "--part", "0/1", "-o", folder, "-q"]).status).toBe(0);
		const run = runCli(["commit", folder, "--json"], { env: fullDisk(SUCCESS) });
		expect(run.status).toBe(1);
		expect(JSON.parse(run.stdout.toString())).toEqual({
			committed: false,
			error: { code: "WRITE_FAILED", message: `cannot write to ${path.join(folder, "_SUCCESS")}: ENOSPC: no space left on device` },
		});
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		// Committed once, then again on a full disk: exit 1, one line, the first commit's _SUCCESS as it was.
		expect(runCli(["commit", folder, "-q"]).status).toBe(0);
		const earlier = fs.readFileSync(path.join(folder, "_SUCCESS"));
		const again = runCli(["commit", folder], { env: fullDisk(SUCCESS) });
		expect(again.stderr.toString()).toBe(`dt64-export: cannot write to ${path.join(folder, "_SUCCESS")}: ENOSPC: no space left on device [WRITE_FAILED]\n`);
		expect(again.status).toBe(1);
		expect(fs.readFileSync(path.join(folder, "_SUCCESS"))).toEqual(earlier);
		expect(fs.readdirSync(folder).filter((name) => name.startsWith("._SUCCESS"))).toEqual([]);
	});

	it("a whole export (no --part): exit 1, no 'committed' line, nothing left", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "cli-whole.parquet");
		const run = runCli([store, "--partition-by", "day", "-o", folder], { env: fullDisk(SUCCESS) });
		expect(run.stderr).toBe(`dt64-export: cannot write to ${path.join(folder, "_SUCCESS")}: ENOSPC: no space left on device [WRITE_FAILED]\n`);
		expect(run.status).toBe(1);
		expect(contents(folder)).toEqual([]);
	});
});

describe("a dataset folder on a read-only file system (trial 19: 04)", () => {
	it("says EROFS, not ENOENT, for a folder that exists and for one to create (library)", async () => {
		const store = await hourlyStore();
		const mount = tempDir();
		fs.mkdirSync(path.join(mount, "x.parquet"));
		undo = makeReadOnly(mount);
		await expectDatasetFoldersRefused(store, mount, "EROFS: read-only file system");
	});

	it("CLI: one line with EROFS", async () => {
		const store = await hourlyStore();
		const mount = tempDir();
		fs.mkdirSync(path.join(mount, "x.parquet"));
		const folder = path.join(mount, "x.parquet");
		const run = runCli([store, "--partition-by", "day", "-o", folder], { env: readOnlyEnv(mount) });
		expect(run.stderr).toBe(`dt64-export: cannot create the dataset folder ${path.join(folder, "_parts")}: EROFS: read-only file system [OUTPUT_INVALID]\n`);
		expect(run.status).toBe(1);
	});

	it("a file there: OUTPUT_INVALID as for a dataset folder, without the temporary file's name (trial 26: 03; it was WRITE_FAILED)", async () => {
		const store = await hourlyStore();
		const mount = tempDir();
		const target = path.join(mount, "x.parquet");
		undo = makeReadOnly(mount);
		await expect(exportToFile(store, target)).rejects.toMatchObject({ code: "OUTPUT_INVALID", path: mount, message: `cannot create a file in ${mount}: EROFS: read-only file system` });
		undo();
		undo = undefined;
		const run = runCli([store, "-o", target], { env: readOnlyEnv(mount) });
		expect(run.stderr).toBe(`dt64-export: cannot create a file in ${mount}: EROFS: read-only file system [OUTPUT_INVALID]\n`);
		expect(run.status).toBe(1);
		expect(fs.readdirSync(mount)).toEqual([]);
	});
});

describe("an output folder without write permission (EACCES, injected: the tests may run as root, whom chmod does not stop)", () => {

	it("library: a file, a dataset folder to create and one that exists are OUTPUT_INVALID naming EACCES, nothing left", async () => {
		const store = await hourlyStore();
		const mount = tempDir();
		fs.mkdirSync(path.join(mount, "x.parquet"));
		undo = makeReadOnly(mount, "EACCES");
		await expect(exportToFile(store, path.join(mount, "t.parquet"))).rejects.toMatchObject({ code: "OUTPUT_INVALID", path: mount, message: `cannot create a file in ${mount}: EACCES: permission denied` });
		await expectDatasetFoldersRefused(store, mount, "EACCES: permission denied");
		undo();
		undo = undefined;
		expect(contents(mount)).toEqual(["x.parquet/"]);
	});

	it("CLI: exit 1, one line with EACCES, for a file and for a dataset folder", async () => {
		const store = await hourlyStore();
		const mount = tempDir();
		const file = runCli([store, "-o", path.join(mount, "t.parquet")], { env: readOnlyEnv(mount, "EACCES") });
		expect(file.stderr).toBe(`dt64-export: cannot create a file in ${mount}: EACCES: permission denied [OUTPUT_INVALID]\n`);
		expect(file.status).toBe(1);
		const folder = path.join(mount, "days.parquet");
		const dataset = runCli([store, "--partition-by", "day", "-o", folder], { env: readOnlyEnv(mount, "EACCES") });
		expect(dataset.stderr).toBe(`dt64-export: cannot create the dataset folder ${path.join(folder, "_parts")}: EACCES: permission denied [OUTPUT_INVALID]\n`);
		expect(dataset.status).toBe(1);
		expect(fs.readdirSync(mount)).toEqual([]);
	});
});

describe("a part's run that starts while commit writes _SUCCESS (trial 19: 12)", () => {
	it("commit refuses and leaves no _SUCCESS over the part being replaced", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "race.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/2` });
		// The moment commit opens its _SUCCESS, after its checks: part 0/2 starts again, as a run does (its manifest goes).
		const { openSync } = nodeFs;
		nodeFs.openSync = function openSyncRacing(file: fs.PathLike, ...rest: unknown[]) {
			if (path.basename(String(file)).startsWith("._SUCCESS.")) fs.rmSync(path.join(folder, "_parts", "part-0-of-2.json"), { force: true });
			return (openSync as (...args: unknown[]) => number).call(nodeFs, file, ...rest);
		} as typeof fs.openSync;
		syncBuiltinESMExports();
		undo = () => {
			nodeFs.openSync = openSync;
			syncBuiltinESMExports();
		};
		await expect(commitDataset(folder)).rejects.toMatchObject({
			code: "DATASET_INVALID",
			message: `cannot commit ${folder}: a part's manifest changed while the folder was being committed: wait for the part's run to end, then commit again`,
		});
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
	});
});
