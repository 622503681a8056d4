/**
 * A program embedding the library may change its working folder (`process.chdir`) while an export runs (trial 25,
 * finding 07): the relative store and output paths of a call name what they named when the call was made, as
 * fs.createWriteStream resolves its path once. Before, the store's chunks were looked up again in the new working
 * folder (missing there: read as fill values, the call resolving) and the file was written there.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportDataset, exportToFile } from "../src/index.js";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { readRawInt64, tempDir } from "./support/cli.js";

/** Folders A and B, each holding `s.zarr` (8 seconds in 4 chunks) with other values, and an empty `out` folder. */
async function twoFolders(): Promise<{ a: string; b: string }> {
	const work = tempDir("dt64-chdir-");
	const [a, b] = [path.join(work, "A"), path.join(work, "B")];
	for (const [folder, first] of [[a, 100n], [b, 900n]] as const) {
		fs.mkdirSync(path.join(folder, "out"), { recursive: true });
		const values = BigInt64Array.from({ length: 8 }, (_, i) => first + BigInt(i));
		await writeArray(path.join(folder, "s.zarr"), "", { shape: [8], chunks: [2], values });
	}
	return { a, b };
}

/** Starts `run` in the working folder `a`, moves to `b` while it runs and waits for it; the working folder restored. */
async function startedInThenMoved(a: string, b: string, run: () => Promise<unknown>): Promise<void> {
	const before = process.cwd();
	process.chdir(a);
	try {
		const done = run();
		process.chdir(b);
		await done;
	} finally {
		process.chdir(before);
	}
}

describe("the working folder changed while an export runs", () => {
	it("exportToFile reads the store and writes the file named when it was called", async () => {
		const { a, b } = await twoFolders();
		await startedInThenMoved(a, b, () => exportToFile("s.zarr", "out/t.arrow", { format: "arrow" }));
		expect(readRawInt64(path.join(a, "out/t.arrow"))).toEqual([100n, 101n, 102n, 103n, 104n, 105n, 106n, 107n]);
		expect(fs.readdirSync(path.join(b, "out"))).toEqual([]);
	});

	it("exportDataset writes its folder (and takes its lock) where it was named", async () => {
		const { a, b } = await twoFolders();
		await startedInThenMoved(a, b, () => exportDataset("s.zarr", "out/ds", { partitionBy: "year" }));
		expect(fs.readdirSync(path.join(a, "out/ds")).sort()).toEqual(["_SUCCESS", "_parts", "year=1970"]);
		expect(fs.readdirSync(path.join(a, "out/ds/_parts"))).toEqual(["part-0-of-1.json"]);
		expect(fs.readdirSync(path.join(b, "out"))).toEqual([]);
	});
});
