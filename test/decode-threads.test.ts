/**
 * The decode threads (src/zarr/codecs/decoder-pool.ts) failing under an export: a thread that exits (as a crash
 * ends it), one that throws outside any handler, and Ctrl-C while a decode never finishes. The export fails cleanly
 * every time: one line, exit 1 (130 for the signal), nothing left at -o, no hang. And the threads never keep a
 * process alive: a library export, or one whose thread failed, ends without closing anything.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BIN, tempDir } from "./support/cli.js";
import { FAULTY_THREADS_PRELOAD as PRELOAD, interruptOnceUnderWay, runNode as run } from "./support/spawned-node.js";

// The stores here are small, whose chunks would otherwise decode on the calling thread: threads are asked for.
process.env.DT64_DECODE_THREADS ??= "2";

const REPO = path.resolve(import.meta.dirname, "..");
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const values = BigInt64Array.from({ length: 4000 }, (_, i) => BigInt(1_700_000_000 + i));

let store: string;
beforeAll(async () => {
	store = path.join(tempDir("dt64-threads-"), "zstd.zarr");
	await writeArray(store, "", { shape: [4000], chunks: [1000], dataType: seconds, values, codecs: [LE, { name: "zstd", configuration: { level: 1, checksum: false } }] });
});

const faulty = (fault: string) => ({ DT64_TEST_THREAD_FAULT: fault });

describe("a decode thread that fails", () => {
	for (const [fault, reason] of [
		["exit", /exited with code 3/],
		["throw", /decoder exploded/],
	] as const) {
		it(`(${fault}) fails the export with one line, exit 1, nothing at -o`, async () => {
			const outDir = tempDir("dt64-threads-out-");
			const result = await run(["--import", PRELOAD, BIN, store, "-o", path.join(outDir, "t.arrow")], faulty(fault));
			expect(result.signal).toBeNull();
			expect(result.stderr).toMatch(/^dt64-export: chunk c\/\d: cannot decode: zstd: the decode thread failed \(.*\) \[INTERNAL\]\n$/);
			expect(result.stderr).toMatch(reason);
			expect(result.status).toBe(1);
			expect(fs.readdirSync(outDir)).toEqual([]);
		}, 20_000);
	}

	it("Ctrl-C while a decode never finishes: exit 130, nothing at -o, no hang", async () => {
		const outDir = tempDir("dt64-threads-out-");
		const result = await run(["--import", PRELOAD, BIN, store, "-o", path.join(outDir, "t.arrow")], faulty("hang"), interruptOnceUnderWay(outDir));
		expect(result.stderr).toBe("dt64-export: interrupted by SIGINT\n");
		expect(result.status).toBe(130);
		expect(fs.readdirSync(outDir)).toEqual([]);
	}, 20_000);
});

describe("decode threads never keep a process alive", () => {
	const script = (file: string) => `
		import { Writable } from "node:stream";
		import { exportTable } from ${JSON.stringify(path.join(REPO, "dist", "index.js"))};
		const sink = new Writable({ write(_chunk, _encoding, done) { done(); } });
		try {
			await exportTable(${JSON.stringify(file)}, sink, { format: "arrow" });
			console.error("exported");
		} catch (error) {
			console.error(error.message);
		}`;

	it("a library export ends its process without closing anything", async () => {
		const result = await run(["--input-type=module", "-e", script(store)], {});
		expect(result.stderr).toBe("exported\n");
		expect(result.status).toBe(0);
	}, 20_000);

	it("nor threads started ahead of need (warm) that never got a chunk: inspect ends", async () => {
		// inspect opens the array (which warms the pool) and may decode fewer chunks than there are threads.
		const result = await run([BIN, "inspect", store], { DT64_DECODE_THREADS: "4" });
		expect(result.signal).toBeNull();
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
	}, 20_000);

	it("nor after its thread failed", async () => {
		const result = await run(["--import", PRELOAD, "--input-type=module", "-e", script(store)], faulty("throw"));
		expect(result.stderr).toMatch(/^chunk c\/\d: cannot decode: zstd: the decode thread failed \(.*decoder exploded.*\)\n$/);
		expect(result.status).toBe(0);
	}, 20_000);
});
