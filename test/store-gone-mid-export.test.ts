/**
 * A local store that goes away while it is read (moved, removed, unmounted, a link to it repointed) is an error,
 * not missing chunks (trial 25, finding 08: `mv store.zarr` during an export gave 19.5 of 20 million fill values and
 * exit 0). A chunk missing from a store still there is the fill value, as before.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { DirectoryStore } from "../src/store/directory-store.js";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { tempDir } from "./support/cli.js";

/** A store of 8 seconds in 4 chunks (`c/0`..`c/3`), the third chunk never written (all fill). */
async function storeAt(folder: string): Promise<void> {
	const values = BigInt64Array.from({ length: 8 }, (_, i) => (i === 4 || i === 5 ? -(2n ** 63n) : BigInt(i)));
	await writeArray(folder, "", { shape: [8], chunks: [2], values });
}

describe("a local store gone while it is read", () => {
	it("a chunk never written is missing; after the store is moved away, a read is READ_FAILED saying so", async () => {
		const work = tempDir("dt64-gone-");
		const root = path.join(work, "s.zarr");
		await storeAt(root);
		const store = new DirectoryStore(root);
		expect(await store.get("/c/0")).toBeDefined();
		expect(await store.get("/c/2")).toBeUndefined();
		fs.renameSync(root, path.join(work, "moved.zarr"));
		for (const key of ["/c/1", "/c/2"] as const) {
			await expect(store.get(key)).rejects.toMatchObject({
				code: "READ_FAILED",
				message: `cannot read ${path.join(root, key.slice(1))}: the store ${root} is no longer there (moved, removed or unmounted while it was read)`,
			});
			await expect(store.get(key, { small: true })).rejects.toMatchObject({ code: "READ_FAILED" });
		}
	});

	it("a link to the store repointed to another store: READ_FAILED, not the other store's chunks", async () => {
		const work = tempDir("dt64-gone-");
		await storeAt(path.join(work, "a.zarr"));
		await storeAt(path.join(work, "b.zarr"));
		fs.rmSync(path.join(work, "b.zarr/c/1"));
		const link = path.join(work, "latest.zarr");
		fs.symlinkSync("a.zarr", link);
		const store = new DirectoryStore(link);
		expect(await store.get("/c/1")).toBeDefined();
		fs.rmSync(link);
		fs.symlinkSync("b.zarr", link);
		await expect(store.get("/c/1")).rejects.toMatchObject({
			code: "READ_FAILED",
			message: `cannot read ${path.join(link, "c/1")}: the store ${link} is another folder than the one opened (moved, or a link to it repointed, while it was read)`,
		});
		// Past the period between checks of a read that finds its file: the other store's chunk is refused too.
		await new Promise((resolve) => setTimeout(resolve, 150));
		await expect(store.get("/c/0")).rejects.toMatchObject({ code: "READ_FAILED" });
	});
});
