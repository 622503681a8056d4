/**
 * A local folder store reads only regular files inside it: a symbolic link that leads out of the store (a chunk, a
 * metadata document, a folder of chunks) is READ_FAILED naming the key unless `followLinksOutside` asks for it, and a
 * key that is a named pipe, a folder or a device is READ_FAILED at once, on the calling thread or the pool, without
 * ever waiting for a writer (an export of a store holding a FIFO used to block the process for good).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";
import { DirectoryStore } from "../src/store/directory-store.js";
import { readArrow, runCli, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";

const work = tempDir("dt64-contained-");
const SECRET = Buffer.from("TOP-SECRET-OF-ANOTHER-TENANT-0123456789abcdefghijklmnopqrstuvwx");
const secretFile = path.join(work, "secret.bin");
fs.writeFileSync(secretFile, SECRET);
const T0 = BigInt(Date.UTC(2024, 0, 1) / 1000);
const times = (length: number) => BigInt64Array.from({ length }, (_, i) => T0 + BigInt(i));

/** A group of `time` and `leak` (uint8), both of SECRET's length; `leak/c/0` a link to the secret file outside it. */
async function linkedChunkStore(name: string): Promise<string> {
	const root = path.join(work, name);
	await writeGroup(root, "");
	await writeArray(root, "time", { shape: [SECRET.length], chunks: [SECRET.length], values: times(SECRET.length), dimensionNames: ["x"] });
	await writeArray(root, "leak", { shape: [SECRET.length], chunks: [SECRET.length], values: new Uint8Array(SECRET.length).fill(7), dataType: "uint8", fillValue: 0, dimensionNames: ["x"] });
	fs.rmSync(path.join(root, "leak/c/0"));
	fs.symlinkSync(secretFile, path.join(root, "leak/c/0"));
	return root;
}

/** A time array of 4 values; `c/0` then replaced by `make`. */
async function storeWith(name: string, make?: (chunk: string, root: string) => void): Promise<string> {
	const root = path.join(work, name);
	await writeArray(root, "", { shape: [4], chunks: [4], values: times(4) });
	if (make !== undefined) {
		const chunk = path.join(root, "c/0");
		fs.rmSync(chunk);
		make(chunk, root);
	}
	return root;
}

const mkfifo = (file: string) => execFileSync("mkfifo", [file]);

describe("symbolic links out of a local store", () => {
	it("refuses a chunk that links to a file outside, naming the key and the option; follows it when asked", async () => {
		const store = await linkedChunkStore("linked-chunk.zarr");
		const out = path.join(work, "linked.arrow");
		const refusal = await exportToFile(store, out, { columns: ["time", "leak"] }).catch((error: unknown) => error);
		expect(refusal).toMatchObject({ code: "READ_FAILED", key: "leak/c/0", option: "followLinksOutside" });
		expect((refusal as Error).message).toContain("symbolic link that leads out of the store");
		expect(fs.existsSync(out)).toBe(false);
		const cli = runCli([store, "--columns", "time,leak", "-o", out]);
		expect(cli.status).toBe(1);
		expect(cli.stderr).toMatch(/leak\/c\/0: it is a symbolic link that leads out of the store .*--follow-links-outside.*\[READ_FAILED\]\n$/);
		await exportToFile(store, out, { columns: ["time", "leak"], followLinksOutside: true, overwrite: true });
		expect(Buffer.from(readArrow(out).getChild("leak")!.toArray() as Uint8Array).equals(SECRET)).toBe(true);
	});

	it("refuses a zarr.json and a chunk folder that lead outside; links inside the store are followed", async () => {
		const outsideMeta = await storeWith("outside-meta.zarr");
		const meta = await storeWith("linked-meta.zarr");
		fs.rmSync(path.join(meta, "zarr.json"));
		fs.symlinkSync(path.join(outsideMeta, "zarr.json"), path.join(meta, "zarr.json"));
		await expect(exportToFile(meta, path.join(work, "m.arrow"))).rejects.toMatchObject({ code: "READ_FAILED", key: "zarr.json" });

		const folder = await storeWith("linked-folder.zarr");
		fs.rmSync(path.join(folder, "c"), { recursive: true });
		fs.symlinkSync(path.join(outsideMeta, "c"), path.join(folder, "c"));
		const error = await exportToFile(folder, path.join(work, "f.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "READ_FAILED", key: "c/0" });
		expect((error as Error).message).toContain("its folder c is a symbolic link that leads out of the store");

		// Inside: a chunk linked to another file of the store, a folder linked to one of the store's, the store itself a link.
		const inside = await storeWith("linked-inside.zarr", (chunk, root) => {
			fs.copyFileSync(path.join(outsideMeta, "c/0"), path.join(root, "chunk-0"));
			fs.symlinkSync("../chunk-0", chunk);
		});
		const rootLink = path.join(work, "root-link.zarr");
		fs.symlinkSync(inside, rootLink);
		const out = path.join(work, "inside.arrow");
		await exportToFile(rootLink, out);
		expect(readArrow(out).numRows).toBe(4);
	});

	it("reads a dangling link as a missing chunk (the fill value), as a missing file", async () => {
		const store = await storeWith("dangling.zarr", (chunk) => fs.symlinkSync(path.join(work, "nowhere"), chunk));
		const out = path.join(work, "dangling.arrow");
		await exportToFile(store, out);
		expect(readArrow(out).numRows).toBe(4);
	});
});

describe("keys that are not regular files", () => {
	it("refuses a chunk that is a named pipe at once, read small (this thread) or not (the pool)", async () => {
		// "At once" is not measured: a read of a FIFO without a writer never ends, which the test's timeout would end.
		const store = await storeWith("fifo-chunk.zarr", mkfifo);
		await expect(exportToFile(store, path.join(work, "fifo.arrow"))).rejects.toMatchObject({ code: "READ_FAILED", key: "c/0", message: expect.stringContaining("named pipe (FIFO), not a regular file") });
		const directory = new DirectoryStore(store);
		await expect(directory.get("/c/0", { small: true })).rejects.toMatchObject({ code: "READ_FAILED" });
		await expect(directory.get("/c/0")).rejects.toMatchObject({ code: "READ_FAILED" });
		await expect(directory.getRange("/c/0", { offset: 0, length: 4 })).rejects.toMatchObject({ code: "READ_FAILED" });
	});

	it("refuses a zarr.json that is a named pipe, in inspect and in the CLI, which ends", async () => {
		const store = path.join(work, "fifo-meta.zarr");
		fs.mkdirSync(store);
		mkfifo(path.join(store, "zarr.json"));
		await expect(inspectStore(store)).rejects.toMatchObject({ code: "READ_FAILED", key: "zarr.json" });
		const cli = await runCliAsync([store, "-o", path.join(work, "fifo-meta.arrow")]);
		expect(cli.status).toBe(1);
		expect(cli.stderr).toMatch(/zarr\.json: it is a named pipe \(FIFO\), not a regular file \[READ_FAILED\]\n$/);
	}, 20_000);

	it("refuses a chunk key that is a folder in the store's words, not EISDIR", async () => {
		const store = await storeWith("folder-chunk.zarr", (chunk) => fs.mkdirSync(chunk));
		await expect(exportToFile(store, path.join(work, "folder.arrow"))).rejects.toMatchObject({ code: "READ_FAILED", key: "c/0", message: expect.stringMatching(/c\/0: it is a folder, not a regular file$/) });
	});
});
