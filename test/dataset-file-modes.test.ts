/**
 * A dataset's files replaced keep their permissions (trial 25, finding 14), as a file replaced with `--force` does:
 * a part's run and a whole export replacing the dataset write their files aside and rename them over the ones they
 * replace, which took the umask's mode (a private 600 file became 644).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportDataset } from "../src/index.js";
import { listDataset } from "../src/output/dataset-files.js";
import { tempDir } from "./support/cli.js";
import { hourlyStore } from "./support/hourly-store.js";

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("a dataset's files replaced keep their permissions", () => {
	it("a part run again: its files made private stay private; a file it writes anew takes the default", async () => {
		const store = await hourlyStore({ hours: 72, chunk: 24 });
		const folder = path.join(tempDir(), "parts.parquet");
		await exportDataset(store, folder, { partitionBy: "day", part: "0/1" });
		const [first, second] = listDataset(folder).dataFiles.map((file) => path.join(folder, file));
		const fresh = modeOf(second);
		fs.chmodSync(first, 0o600);
		await exportDataset(store, folder, { partitionBy: "day", part: "0/1" });
		expect(modeOf(first)).toBe(0o600);
		expect(modeOf(second)).toBe(fresh);
	});

	it("a whole export replacing the dataset (overwrite): the same", async () => {
		const store = await hourlyStore({ hours: 72, chunk: 24 });
		const folder = path.join(tempDir(), "whole.parquet");
		await exportDataset(store, folder, { partitionBy: "day" });
		const [first, second] = listDataset(folder).dataFiles.map((file) => path.join(folder, file));
		const fresh = modeOf(second);
		fs.chmodSync(first, 0o640);
		await exportDataset(store, folder, { partitionBy: "day", overwrite: true });
		expect(modeOf(first)).toBe(0o640);
		expect(modeOf(second)).toBe(fresh);
	});
});
