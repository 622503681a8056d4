/**
 * What commit tells an operator, and when it must not mark a dataset complete (trial 19): a part's run that starts
 * while the folder is being committed (a retry, a speculative copy) removes `_SUCCESS` and its manifest before the
 * commit writes the marker; a data file cut short is the file's fault, not the writer's.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { acquirePartLock } from "../src/output/part-lock.js";
import { runCli, tempDir } from "./support/cli.js";

/** Set by a test: run just before `_SUCCESS` is written, as a part's run starting at that moment would act. */
const beforeSuccess: { act?: (folder: string) => Promise<void> } = {};

vi.mock("../src/output/manifest.js", async (importOriginal) => {
	const original = await importOriginal<typeof import("../src/output/manifest.js")>();
	return {
		...original,
		writeJsonFile: async (target: string, value: unknown) => {
			if (path.basename(target) === "_SUCCESS" && beforeSuccess.act !== undefined) await beforeSuccess.act(path.dirname(target));
			return original.writeJsonFile(target, value);
		},
	};
});

const { commitDataset, exportDataset } = await import("../src/index.js");

async function twoParts(): Promise<string> {
	const store = path.join(tempDir(), "hours.zarr");
	const values = BigInt64Array.from({ length: 96 }, (_, i) => BigInt(Date.UTC(2021, 0, 1) / 1000) + BigInt(i) * 3600n);
	await writeArray(store, "", { shape: [96], chunks: [12], values, dimensionNames: ["time"] });
	const folder = path.join(tempDir(), "out.parquet");
	for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/2` });
	return folder;
}

describe("a part's run that starts while the folder is being committed", () => {
	it("taking its lock: the commit removes the _SUCCESS it wrote and refuses (it left _SUCCESS over the running part)", async () => {
		const folder = await twoParts();
		let lock: Awaited<ReturnType<typeof acquirePartLock>> | undefined;
		beforeSuccess.act = async (at) => {
			lock = await acquirePartLock(at, { index: 0, count: 2 }, {});
		};
		try {
			await expect(commitDataset(folder)).rejects.toMatchObject({ code: "DATASET_INVALID", message: expect.stringMatching(/part 0\/2 .*started while the folder was being committed: wait for the part's run to end, then commit again/) });
		} finally {
			beforeSuccess.act = undefined;
			lock?.release();
		}
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		expect((await commitDataset(folder)).rows).toBe(96);
	});

	it("removing its manifest (its lock already gone, killed): the commit removes _SUCCESS and refuses", async () => {
		const folder = await twoParts();
		const manifest = path.join(folder, "_parts", "part-1-of-2.json");
		const kept = fs.readFileSync(manifest);
		beforeSuccess.act = async () => fs.rmSync(manifest);
		try {
			await expect(commitDataset(folder)).rejects.toMatchObject({ message: expect.stringContaining("a part's manifest changed while the folder was being committed") });
		} finally {
			beforeSuccess.act = undefined;
		}
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		fs.writeFileSync(manifest, kept);
		expect((await commitDataset(folder)).rows).toBe(96);
	});
});

describe("what a commit or a part's manifest killed while writing left (trial 26: 04)", () => {
	it("is named in a warning and the summary, left alone (a commit killed outright left ._SUCCESS.<pid>.<hex>.tmp unnamed for good)", async () => {
		const folder = await twoParts();
		const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
		const success = path.join(folder, `._SUCCESS.${dead}.0123abcd.tmp`);
		const manifest = path.join(folder, "_parts", `.part-1-of-2.json.${dead}.89abcdef.tmp`);
		fs.writeFileSync(success, Buffer.alloc(120));
		fs.writeFileSync(manifest, Buffer.alloc(2345));
		const summary = await commitDataset(folder);
		expect(summary.strayTemporaryFiles).toEqual([
			{ path: success, bytes: 120 },
			{ path: manifest, bytes: 2345 },
		]);
		expect(JSON.parse(fs.readFileSync(path.join(folder, "_SUCCESS"), "utf8"))).not.toHaveProperty("strayTemporaryFiles");
		const cli = runCli(["commit", folder, "-q"]);
		expect([cli.status, cli.stderr]).toEqual([
			0,
			`dt64-export: warning: ${success} (120 bytes) is the temporary file of a commit or a part's manifest that was killed while writing: remove it\n` +
				`dt64-export: warning: ${manifest} (2,345 bytes) is the temporary file of a commit or a part's manifest that was killed while writing: remove it\n`,
		]);
		expect([fs.existsSync(success), fs.existsSync(manifest)]).toEqual([true, true]);
	});
});

describe("a data file cut short", () => {
	it("is named with its part to run again, not blamed on the Parquet writer", async () => {
		const folder = await twoParts();
		const file = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).find((name) => name.endsWith("part-00001-of-00002.parquet"))!;
		fs.truncateSync(path.join(folder, file), 100);
		const message = await commitDataset(folder).then(
			() => "committed",
			(error: Error) => error.message,
		);
		expect(message).toBe(`cannot commit ${folder}: ${file} is not a readable data file (not a whole Parquet file (no footer: cut short, or not written by a part?)): run part 1/2 again`);
		expect(message).not.toContain("parquet-wasm");
	});
});

describe("a zip holding its store in one folder (zip -r store.zip store.zarr)", () => {
	it("a path that starts with that folder says the folder is the store's root", async () => {
		const { writeStoredZip } = await import("./support/zip.js");
		const store = path.join(tempDir(), "big.zarr");
		await writeArray(store, "t", { shape: [4], chunks: [4], values: BigInt64Array.from([1n, 2n, 3n, 4n]), dimensionNames: ["time"] });
		fs.writeFileSync(path.join(store, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
		const zip = path.join(tempDir(), "big.zip");
		writeStoredZip(store, zip, { prefix: "big.zarr" });
		const cli = runCli([zip, "--array", "big.zarr/t", "-o", path.join(tempDir(), "t.arrow")]);
		expect([cli.status, cli.stderr.trim()]).toEqual([1, expect.stringContaining("big.zip/big.zarr/t: no zarr.json, .zarray or .zgroup (not a Zarr array or group) (the zip holds the store in its folder big.zarr/, which is the store's root: the path is t)")]);
		expect(runCli([zip, "--array", "t", "-o", path.join(tempDir(), "t.arrow")]).status).toBe(0);
	});
});

describe("a folder to commit that is not there", () => {
	it("does not exist: the not-found a missing path gets (STORE_NOT_FOUND), library and CLI", async () => {
		const folder = path.join(tempDir(), "never-written.parquet");
		await expect(commitDataset(folder)).rejects.toMatchObject({ code: "STORE_NOT_FOUND", path: folder, message: `cannot commit ${folder}: no such file or folder` });
		const refused = runCli(["commit", folder]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toBe(`dt64-export: cannot commit ${folder}: no such file or folder [STORE_NOT_FOUND]\n`);
		expect(fs.existsSync(folder)).toBe(false);
	});

	it("is a file: not a folder (DATASET_INVALID)", async () => {
		const file = path.join(tempDir(), "a-file.parquet");
		fs.writeFileSync(file, "x");
		await expect(commitDataset(file)).rejects.toMatchObject({ code: "DATASET_INVALID", message: `cannot commit ${file}: not a folder` });
	});
});
