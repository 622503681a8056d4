/**
 * A run that replaces a dataset (or a part's earlier run) and is stopped after it moved its files in place, while
 * its manifest is written (trial 26: 01): a SIGTERM there (the CLI's signal handler abandons the run), an aborted
 * signal, or a manifest the full disk has no room for. The files moved in had already replaced the previous ones
 * of their names, and the previous dataset's other files were gone: undoing the run by removing them left a folder
 * of empty partition folders, neither dataset. They stay, uncommitted, until the run is repeated.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tempDir } from "./support/cli.js";
import { hourlyStore } from "./support/hourly-store.js";

/**
 * Set by a test: run when a part's manifest is about to be written, after the run moved its files in place;
 * `written` then settles once that write has.
 */
const atManifest: { act?: () => void; written?: Promise<unknown> } = {};

vi.mock("../src/output/manifest.js", async (importOriginal) => {
	const original = await importOriginal<typeof import("../src/output/manifest.js")>();
	return {
		...original,
		writeJsonFile: async (target: string, value: unknown) => {
			if (/^part-\d+-of-\d+\.json$/.test(path.basename(target)) && atManifest.act !== undefined) {
				const act = atManifest.act;
				atManifest.act = undefined;
				act();
				const written = original.writeJsonFile(target, value);
				atManifest.written = written.catch(() => undefined);
				return written;
			}
			return original.writeJsonFile(target, value);
		},
	};
});

const { commitDataset, exportDataset } = await import("../src/index.js");
const { abandonUnfinishedDatasets } = await import("../src/output/dataset-writer.js");

const DAYS = 6;

/** The data files below `folder`, relative to it, sorted. */
function dataFiles(folder: string): string[] {
	return (fs.readdirSync(folder, { recursive: true, encoding: "utf8" }) as string[]).filter((entry) => entry.endsWith(".parquet")).sort();
}

/** What `_parts/` holds but locks: nothing, once the run is undone (the folder itself goes when left empty). */
function manifestsLeft(folder: string): string[] {
	const parts = path.join(folder, "_parts");
	return fs.existsSync(parts) ? fs.readdirSync(parts).filter((name) => !name.endsWith(".lock")) : [];
}

function noRoom(): never {
	throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
}

describe("a run stopped after it moved its files in place", () => {
	it.each([
		["the disk is full when the manifest is written", noRoom],
		[
			"a signal comes (the CLI's handler abandons the run, then exits)",
			() => {
				abandonUnfinishedDatasets();
				throw new Error("the process exits here");
			},
		],
	])("a whole export replacing a dataset leaves its files in place, uncommitted, when %s", async (_, act) => {
		const store = await hourlyStore({ hours: DAYS * 24, from: "2021-01-01", name: "hours.zarr" });
		const folder = path.join(tempDir(), "out.parquet");
		await exportDataset(store, folder, { partitionBy: "day" });
		const files = dataFiles(folder);
		expect(files).toHaveLength(DAYS);
		atManifest.act = act;
		await expect(exportDataset(store, folder, { partitionBy: "day", overwrite: true })).rejects.toThrow();
		// Before: no data file was left (the previous dataset's were replaced by the new ones, then those removed).
		expect(dataFiles(folder)).toEqual(files);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		expect(manifestsLeft(folder)).toEqual([]);
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID" });
		// Run again, it replaces them and commits.
		await expect(exportDataset(store, folder, { partitionBy: "day", overwrite: true })).resolves.toMatchObject({ rows: DAYS * 24 });
		await expect(commitDataset(folder)).resolves.toMatchObject({ rows: DAYS * 24 });
	});

	it("an aborted signal there leaves them too, rejects as an abort, and writes no manifest and no _SUCCESS after it", async () => {
		const store = await hourlyStore({ hours: DAYS * 24, from: "2021-01-01", name: "hours.zarr" });
		const folder = path.join(tempDir(), "out.parquet");
		await exportDataset(store, folder, { partitionBy: "day" });
		const files = dataFiles(folder);
		const controller = new AbortController();
		atManifest.act = () => controller.abort(new Error("stop"));
		await expect(exportDataset(store, folder, { partitionBy: "day", overwrite: true, signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
		// The call rejects at the abort; the manifest's write under way then ends, and the run with it: the manifest
		// goes again, and no commit follows (the run went on to commit the dataset it was aborted in).
		await atManifest.written;
		await new Promise((resolve) => setImmediate(resolve));
		expect(dataFiles(folder)).toEqual(files);
		expect(manifestsLeft(folder)).toEqual([]);
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID" });
	});

	it("a part's retry stopped there leaves its files, and the other parts' untouched", async () => {
		const store = await hourlyStore({ hours: DAYS * 24, from: "2021-01-01", name: "hours.zarr" });
		const folder = path.join(tempDir(), "out.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/2` });
		await commitDataset(folder);
		const files = dataFiles(folder);
		atManifest.act = noRoom;
		await expect(exportDataset(store, folder, { partitionBy: "day", part: "0/2" })).rejects.toThrow();
		expect(dataFiles(folder)).toEqual(files);
		expect(fs.readdirSync(path.join(folder, "_parts")).filter((name) => !name.endsWith(".lock"))).toEqual(["part-1-of-2.json"]);
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID" });
		await exportDataset(store, folder, { partitionBy: "day", part: "0/2" });
		await expect(commitDataset(folder)).resolves.toMatchObject({ rows: DAYS * 24 });
	});
});
