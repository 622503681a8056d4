/**
 * The library's dataset and selection exports (exportDataset, exportSelection) on stores written here: what a
 * failed dataset export leaves, and a part of the rows written to one stream.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportDataset } from "../src/index.js";
import { tempDir } from "./support/cli.js";

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
});
