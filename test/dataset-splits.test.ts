/**
 * The parts of one dataset are slices of one table, cut the same way: a part run after the store grew or its time
 * changed (trial 19: a daily append between a job's tasks), or a part of another split (another N) in the same
 * folder, would leave rows out or hold them twice. Commit refuses the first, a part refuses to join the second.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { commitDataset, exportDataset } from "../src/index.js";
import { runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const query = useDuckDB();

const T0 = BigInt(Date.UTC(2021, 0, 30) / 1000);

/** `hours` hourly times from `T0 + shift` hours, in chunks of 12 rows, written over `store`. */
async function hourly(store: string, hours: number, shift = 0): Promise<string> {
	fs.rmSync(store, { recursive: true, force: true });
	const values = BigInt64Array.from({ length: hours }, (_, i) => T0 + BigInt(i + shift) * 3600n);
	await writeArray(store, "", { shape: [hours], chunks: [12], values, dimensionNames: ["time"] });
	return store;
}

/** The rows of a dataset and its distinct times, as DuckDB reads them (the column is named after the store). */
async function rowsRead(folder: string, column: string): Promise<unknown[]> {
	const [row] = await query(`SELECT count(*)::INTEGER AS rows, count(DISTINCT "${column}")::INTEGER AS distinct FROM read_parquet('${folder}/**/*.parquet', hive_partitioning = true)`);
	return row;
}

describe("a store that changed between the parts' runs", () => {
	it("grown along time (an append): commit refuses, naming what each part read; the parts run again commit every row once", async () => {
		const store = await hourly(path.join(tempDir(), "grows.zarr"), 192);
		const folder = path.join(tempDir(), "out.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/4` });
		await hourly(store, 240);
		for (const k of [2, 3]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/4` });
		// Parts 0, 1 hold rows 0..96 of 192; parts 2, 3 rows 120..240 of 240: 24 rows were in no part.
		await expect(commitDataset(folder)).rejects.toMatchObject({
			code: "DATASET_INVALID",
			message: expect.stringContaining("the store changed between the parts' runs (parts 0/4, 1/4 read time 192; parts 2/4, 3/4 read time 240): their slices do not fit together; run every part again"),
		});
		expect(fs.existsSync(path.join(folder, "_SUCCESS"))).toBe(false);
		const manifest = JSON.parse(fs.readFileSync(path.join(folder, "_parts", "part-0-of-4.json"), "utf8"));
		expect([manifest.table, manifest.rowRange]).toEqual([{ dimensions: ["time"], shape: [192] }, { start: 0, end: 48 }]);

		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/4` });
		expect(await commitDataset(folder)).toMatchObject({ rows: 240 });
		expect(await rowsRead(folder, "grows")).toEqual([240, 240]);
	});

	it("time rewritten in place (same shape, a range): the slices overlap, and commit refuses", async () => {
		const store = await hourly(path.join(tempDir(), "shifts.zarr"), 192);
		const folder = path.join(tempDir(), "range.parquet");
		const options = { partitionBy: "day", start: "2021-02-02" } as const;
		// Rows from 72 on: 10 chunks, part 0/2 reads rows 72..132.
		await exportDataset(store, folder, { ...options, part: "0/2" });
		// A day later in every row: the range starts at row 48, part 1/2 reads rows 120..192 (12 rows twice).
		await hourly(store, 192, 24);
		await exportDataset(store, folder, { ...options, part: "1/2" });
		await expect(commitDataset(folder)).rejects.toMatchObject({
			code: "DATASET_INVALID",
			message: expect.stringContaining("part 0/2 read rows 72 to 132 of time and part 1/2 from 120: their slices do not fit together"),
		});
	});

	it("manifests of an earlier version, which record no table, still commit", async () => {
		const store = await hourly(path.join(tempDir(), "old.zarr"), 192);
		const folder = path.join(tempDir(), "old.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "day", part: `${k}/2` });
		for (const k of [0, 1]) {
			const file = path.join(folder, "_parts", `part-${k}-of-2.json`);
			const { table: _table, rowRange: _rows, ...older } = JSON.parse(fs.readFileSync(file, "utf8"));
			fs.writeFileSync(file, JSON.stringify(older));
		}
		expect(await commitDataset(folder)).toMatchObject({ rows: 192 });
	});
});

describe("parts of another split in the folder", () => {
	it("a part of another N refuses to start, naming what to remove; nothing in the folder changes", async () => {
		const store = await hourly(path.join(tempDir(), "split.zarr"), 192);
		const folder = path.join(tempDir(), "split.parquet");
		for (const k of [0, 1, 2, 3]) await exportDataset(store, folder, { partitionBy: "month", part: `${k}/4` });
		await commitDataset(folder);
		const before = fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).sort();
		await expect(exportDataset(store, folder, { partitionBy: "month", part: "0/2" })).rejects.toMatchObject({
			code: "DATASET_INVALID",
			message: `${folder} holds a dataset split in 4 parts (4 manifests _parts/part-K-of-4.json, 4 data files part-*-of-00004*): part 0/2 cannot be committed with it; remove those files, or write to another folder`,
		});
		const cli = runCli([store, "--partition-by", "month", "--part", "1/2", "-o", folder]);
		expect([cli.status, cli.stderr.trim().split("\n")]).toEqual([1, [expect.stringMatching(/^dt64-export: .*split in 4 parts .*part 1\/2 cannot be committed with it.*\[DATASET_INVALID\]$/)]]);
		expect(fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).sort()).toEqual(before);
		// The same split runs again as before.
		await exportDataset(store, folder, { partitionBy: "month", part: "3/4" });
		expect(await rowsRead(folder, "split")).toEqual([192, 192]);
	});

	it("commit of manifests of two N names each run's manifests and files, and says running its parts again does not help", async () => {
		const store = await hourly(path.join(tempDir(), "two.zarr"), 192);
		const folder = path.join(tempDir(), "two.parquet");
		for (const k of [0, 1]) await exportDataset(store, folder, { partitionBy: "month", part: `${k}/2` });
		// A second job's manifest, put there by hand (its parts refuse to start in this folder).
		fs.writeFileSync(path.join(folder, "_parts", "part-0-of-3.json"), fs.readFileSync(path.join(folder, "_parts", "part-0-of-2.json"), "utf8").replace('"parts": 2', '"parts": 3'));
		await expect(commitDataset(folder)).rejects.toMatchObject({
			message: expect.stringContaining(
				"the parts were run with different N: 2 parts (2 manifests _parts/part-K-of-2.json, 3 data files part-*-of-00002*); 3 parts (1 manifest _parts/part-K-of-3.json): remove the manifests and data files of the run to drop (running its parts again does not), then commit",
			),
		});
	});
});
