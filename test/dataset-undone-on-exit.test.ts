/**
 * A dataset export that fails in any way leaves its folder as it was before the run: a new dataset nothing, a
 * replaced one or a part run again their earlier files, committed as they were. Not only the failures the pipeline
 * reports (a corrupt chunk, a full disk: test/dataset-write-failures.test.ts) but, in the CLI, an error none of the
 * export's own, which the process's uncaughtException handler reports and exits on (it left the partition folders
 * and the files finished so far), and, in the library, an abort that comes while the part's manifest is written (the
 * manifest, completed after the run was undone, was left, passing for finished a part without files).
 */
import * as fs from "node:fs";
import nodeFs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exportDataset } from "../src/index.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { hourlyStore } from "./support/hourly-store.js";

const UNCAUGHT = path.join(REPO, "test/support/uncaught-after-folder.mjs");

/** Everything under `folder` with each file's bytes, relative, folders with a trailing `/`. */
function contents(folder: string): string[] {
	if (!fs.existsSync(folder)) return [];
	return fs
		.readdirSync(folder, { recursive: true, withFileTypes: true })
		.map((entry) => {
			const full = path.join(entry.parentPath, entry.name);
			const relative = path.relative(folder, full);
			return entry.isDirectory() ? `${relative}/` : `${relative} ${fs.readFileSync(full).toString("base64")}`;
		})
		.sort();
}

describe("an error none of the export's own, mid-export (CLI)", () => {
	/** The CLI run with an uncaught error thrown once the third day's partition folder is made. */
	const failing = (args: string[]) =>
		runCli(args, { env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${UNCAUGHT}`.trim(), DT64_TEST_UNCAUGHT_AFTER_FOLDER: "day=1$" } });

	it("a new dataset: exit 1 INTERNAL, nothing left (no partition folder, no file, no lock)", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "new.parquet");
		const run = failing([store, "--partition-by", "day", "-o", folder]);
		expect(run.stderr).toBe("dt64-export: a failure outside the export's promises [INTERNAL]\n");
		expect(run.status).toBe(1);
		expect(contents(folder)).toEqual([]);
	});

	it("a new part of a dataset, in a folder that exists: only the folder, as it was", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "part.parquet");
		fs.mkdirSync(folder);
		const run = failing([store, "--partition-by", "day", "--part", "0/1", "-o", folder]);
		expect(run.status).toBe(1);
		expect(fs.existsSync(folder)).toBe(true);
		expect(contents(folder)).toEqual([]);
	});

	it("a dataset replaced (--force) and a part run again: the earlier files, manifest and _SUCCESS as they were", async () => {
		const store = await hourlyStore();
		for (const args of [[], ["--part", "0/1"]]) {
			const folder = path.join(tempDir(), "again.parquet");
			expect(runCli([store, "--partition-by", "day", ...args, "-o", folder, "-q"]).status).toBe(0);
			if (args.length > 0) expect(runCli(["commit", folder, "-q"]).status).toBe(0);
			const before = contents(folder);
			expect(before).toContain("_SUCCESS " + fs.readFileSync(path.join(folder, "_SUCCESS")).toString("base64"));
			const run = failing([store, "--partition-by", "day", ...args, "--force", "-o", folder]);
			expect(run.stderr).toContain("[INTERNAL]");
			expect(run.status).toBe(1);
			expect(contents(folder)).toEqual(before);
		}
	});
});

describe("an abort while the part's manifest is written (library)", () => {
	let undo: (() => void) | undefined;
	afterEach(() => {
		undo?.();
		undo = undefined;
	});

	/** Aborts `controller` as the temporary file of a part's manifest is opened. */
	function abortAtManifest(controller: AbortController): () => void {
		const { openSync } = nodeFs;
		nodeFs.openSync = function openSyncThenAbort(file: fs.PathLike, ...rest: unknown[]) {
			const fd = (openSync as (...args: unknown[]) => number).call(nodeFs, file, ...rest);
			if (/^\.part-\d+-of-\d+\.json\./.test(path.basename(String(file)))) controller.abort(new Error("stopped by the test"));
			return fd;
		} as typeof nodeFs.openSync;
		syncBuiltinESMExports();
		return () => {
			nodeFs.openSync = openSync;
			syncBuiltinESMExports();
		};
	}

	for (const [what, part] of [
		["a whole export", undefined],
		["a part", "0/1"],
	] as const) {
		it(`${what}: rejects with the AbortError and leaves no manifest, no file, no folder`, async () => {
			const store = await hourlyStore();
			const folder = path.join(tempDir(), "aborted.parquet");
			const controller = new AbortController();
			undo = abortAtManifest(controller);
			await expect(exportDataset(store, folder, { partitionBy: "day", part, signal: controller.signal })).rejects.toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
			undo();
			undo = undefined;
			// The manifest's write completes after the abort: it must not stay.
			await new Promise((resolve) => setTimeout(resolve, 50));
			expect(contents(folder)).toEqual([]);
		});
	}
});
