/**
 * An export whose output cannot be written is refused before its store is opened (leftovers 9, from trial 28): an
 * existing file without --force / `overwrite` (OUTPUT_EXISTS), checked after the decoders were compiled and their
 * threads started, peaked at 55-75 MiB for nothing (a zstd store, DT64_DECODE_THREADS 0 and 1; 51 MiB now, as
 * `--version`). The CLI's early thread start (cli/early-decode-threads.ts) starts none for it either.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { chunksDecoded, decodeThreadsRunning } from "../src/zarr/codecs/off-thread.js";
import { runNode } from "./support/spawned-node.js";
import { BIN, REPO, tempDir } from "./support/cli.js";

// The default threads: the refusal must start none.
delete process.env.DT64_DECODE_THREADS;

const COUNT_SETUP = path.join(import.meta.dirname, "support/count-decoder-setup.mjs");
const DECODERS_BYTES = fs.statSync(path.join(REPO, "dist/zarr/codecs/wasm/decoders.wasm")).size;
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };

const work = tempDir("dt64-output-first-");
const store = path.join(work, "zstd.zarr");
const existing = path.join(work, "exists.arrow");

/** A zstd array large enough to decode on the decode threads (not a small array), and a file where its output goes. */
async function prepare(): Promise<void> {
	if (fs.existsSync(store)) return;
	const values = BigInt64Array.from({ length: 600_000 }, (_, i) => 1_700_000_000n + BigInt(i));
	await writeArray(store, "", { shape: [values.length], chunks: [100_000], values, codecs: [LE, ZSTD] });
	fs.writeFileSync(existing, "not an export");
}

/** The CLI's setup line (count-decoder-setup.mjs): the threads it started and the modules it compiled. */
function setupOf(stderr: string): { threads: number; modules: number[] } {
	const line = /^setup: (.*)$/m.exec(stderr);
	if (line === null) throw new Error(`no setup line in ${stderr}`);
	return JSON.parse(line[1]);
}

describe("an output that exists is refused before the store is read", () => {
	it("the library: OUTPUT_EXISTS, no chunk decoded, no decode thread started", async () => {
		await prepare();
		await expect(exportToFile(store, existing)).rejects.toMatchObject({ code: "OUTPUT_EXISTS", path: existing });
		expect(chunksDecoded()).toEqual({ here: 0, onThreads: 0 });
		expect(decodeThreadsRunning()).toBe(0);
		expect(fs.readFileSync(existing, "utf8")).toBe("not an export");
		expect(fs.readdirSync(work).sort()).toEqual(["exists.arrow", "zstd.zarr"]);
	});

	it.each(["0", "1"])("the CLI with DT64_DECODE_THREADS=%s: OUTPUT_EXISTS before any decoder is compiled or thread started", async (threads) => {
		await prepare();
		const refused = await runNode(["--import", COUNT_SETUP, BIN, store, "-o", existing], { DT64_DECODE_THREADS: threads });
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain(`dt64-export: ${existing} already exists (use --force to overwrite) [OUTPUT_EXISTS]`);
		expect(setupOf(refused.stderr)).toMatchObject({ threads: 0 });
		expect(setupOf(refused.stderr).modules).not.toContain(DECODERS_BYTES);
		// Without -o, the name the schema gives (zstd.arrow in the working folder) is checked before anything is read.
		fs.writeFileSync(path.join(work, "zstd.arrow"), "");
		const unnamed = await runNode(["--import", COUNT_SETUP, BIN, store], { DT64_DECODE_THREADS: threads }, undefined, work);
		expect(unnamed.stderr).toContain("[OUTPUT_EXISTS]");
		expect(setupOf(unnamed.stderr).modules).not.toContain(DECODERS_BYTES);
		fs.rmSync(path.join(work, "zstd.arrow"));
		// With --force the same export compiles the decoders (or starts their thread): what the counts above would see.
		// Written elsewhere: the folder of the store and the existing file holds nothing else, whatever the tests' order.
		const forced = await runNode(["--import", COUNT_SETUP, BIN, store, "-o", path.join(tempDir("dt64-output-forced-"), "forced.arrow"), "--force"], { DT64_DECODE_THREADS: threads });
		expect(forced.status, forced.stderr).toBe(0);
		const setup = setupOf(forced.stderr);
		if (threads === "0") expect(setup.modules).toContain(DECODERS_BYTES);
		else expect(setup.threads).toBeGreaterThan(0);
	});

	// Trial 32: a folder as -o was refused only when the output was opened, after the store had been read (a float CF
	// time array read whole for --unit auto's unit, its notice printed); without -o, a folder with the schema's name too.
	it.each(["0", "1"])("the CLI with DT64_DECODE_THREADS=%s: a folder as -o is OUTPUT_INVALID before any decoder is compiled or thread started", async (threads) => {
		const folder = tempDir("dt64-output-folder-");
		const floatStore = path.join(tempDir("dt64-output-float-"), "float.zarr");
		// Float days since 1600 with fractions finer than us: --unit auto reads the array whole for its unit (us).
		const values = Float64Array.from({ length: 600_000 }, (_, i) => i / 7);
		await writeArray(floatStore, "", { shape: [values.length], chunks: [100_000], values, dataType: "float64", codecs: [LE, ZSTD], attributes: { units: "days since 1600-01-01" } });
		for (const force of [[], ["--force"]]) {
			const refused = await runNode(["--import", COUNT_SETUP, BIN, floatStore, "--allow-truncate", "-o", folder, ...force], { DT64_DECODE_THREADS: threads });
			expect(refused.status).toBe(1);
			expect(refused.stderr).toContain(`dt64-export: ${folder} is a folder: name the output file (-o <folder>/<file>) [OUTPUT_INVALID]`);
			expect(refused.stderr).not.toContain("--unit auto");
			expect(setupOf(refused.stderr)).toMatchObject({ threads: 0 });
			expect(setupOf(refused.stderr).modules).not.toContain(DECODERS_BYTES);
		}
		// Without -o, the schema's name is known once the store is open (the float array read for its unit): a folder of
		// that name is refused before the reader starts.
		await prepare();
		fs.mkdirSync(path.join(folder, "zstd.arrow"));
		const unnamed = await runNode(["--import", COUNT_SETUP, BIN, store], { DT64_DECODE_THREADS: threads }, undefined, folder);
		expect(unnamed.stderr).toContain("zstd.arrow is a folder: name the output file (-o <folder>/<file>) [OUTPUT_INVALID]");
		expect(setupOf(unnamed.stderr).modules).not.toContain(DECODERS_BYTES);
		expect(fs.readdirSync(folder)).toEqual(["zstd.arrow"]);
		expect(fs.readdirSync(path.join(folder, "zstd.arrow"))).toEqual([]);
	});

	// Leftovers 12 (from leftovers 9): without -o, --unit auto's pass over float CF counts and a time range's search
	// read (and decoded) chunks before the name the table gives was checked. Decoded on the main thread here
	// (DT64_DECODE_THREADS=0): a chunk decoded compiles the decoders, which the setup line shows.
	it("without -o: the default name is checked before --unit auto reads a float CF array and before a time range is searched", async () => {
		await prepare();
		const cwd = tempDir("dt64-output-default-");
		const floatStore = path.join(tempDir("dt64-output-float-"), "float.zarr");
		const values = Float64Array.from({ length: 600_000 }, (_, i) => i / 7);
		await writeArray(floatStore, "", { shape: [values.length], chunks: [100_000], values, dataType: "float64", codecs: [LE, ZSTD], attributes: { units: "days since 1600-01-01" } });
		const runs: [string, string[], string][] = [
			["a float CF array (--unit auto's pass)", [floatStore, "--allow-truncate"], "float.arrow"],
			["a time range (its search)", [store, "--start", "2023-11-17T12:00"], "zstd.arrow"],
			["a float CF array and a time range", [floatStore, "--allow-truncate", "--start", "1700-01-01"], "float.arrow"],
		];
		for (const [what, args, name] of runs) {
			fs.writeFileSync(path.join(cwd, name), "not an export");
			const refused = await runNode(["--import", COUNT_SETUP, BIN, ...args], { DT64_DECODE_THREADS: "0" }, undefined, cwd);
			expect(refused.status, what).toBe(1);
			expect(refused.stderr, what).toContain(`dt64-export: ${name} already exists (use --force to overwrite) [OUTPUT_EXISTS]`);
			expect(refused.stderr, what).not.toContain("--unit auto");
			expect(setupOf(refused.stderr).modules, what).not.toContain(DECODERS_BYTES);
			expect(fs.readFileSync(path.join(cwd, name), "utf8")).toBe("not an export");
			fs.rmSync(path.join(cwd, name));
			fs.mkdirSync(path.join(cwd, name));
			const folder = await runNode(["--import", COUNT_SETUP, BIN, ...args, "--force"], { DT64_DECODE_THREADS: "0" }, undefined, cwd);
			expect(folder.stderr, what).toContain(`dt64-export: ${name} is a folder: name the output file (-o <folder>/<file>) [OUTPUT_INVALID]`);
			expect(setupOf(folder.stderr).modules, what).not.toContain(DECODERS_BYTES);
			fs.rmdirSync(path.join(cwd, name));
			// Allowed, the same export reads and decodes its chunks: what the counts above would see.
			const written = await runNode(["--import", COUNT_SETUP, BIN, ...args, "-q"], { DT64_DECODE_THREADS: "0" }, undefined, cwd);
			expect(written.status, written.stderr).toBe(0);
			expect(setupOf(written.stderr).modules, what).toContain(DECODERS_BYTES);
			expect(fs.statSync(path.join(cwd, name)).size).toBeGreaterThan(0);
			fs.rmSync(path.join(cwd, name));
		}
	});
});
