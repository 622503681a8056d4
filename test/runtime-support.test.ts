/**
 * A Node that lacks what an export needs is told so, with what to change (trial 25, findings 05 and 06): without
 * WebAssembly (`--jitless`) or the address space its memories reserve (`ulimit -v`) the package said it had been
 * moved by a bundler (PACKAGE_FILE_MISSING) or failed with INTERNAL; without the global fetch
 * (`--no-experimental-fetch`) every remote store failed with `Headers is not defined [INTERNAL]`.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO, tempDir } from "./support/cli.js";

function run(args: string[], nodeOptions: string, limitKiB?: number): { status: number | null; stderr: string } {
	const command = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(" ");
	const script = `${limitKiB === undefined ? "" : `ulimit -v ${limitKiB}; `}exec ${command}`;
	const result = spawnSync("/bin/sh", ["-c", script], { env: { ...process.env, NODE_OPTIONS: nodeOptions } });
	return { status: result.status, stderr: result.stderr.toString() };
}

const data = (name: string) => path.join(REPO, "data", name);

describe("what this Node lacks", () => {
	it("no global fetch: a remote store is RUNTIME_UNSUPPORTED naming the flag, before any request", () => {
		for (const args of [["http://127.0.0.1:9/x.zarr", "-o", "x.arrow"], ["inspect", "s3://bucket/x.zarr"]]) {
			const result = run(args, "--no-experimental-fetch");
			expect(result.stderr, args[0]).toMatch(/^dt64-export: .*this Node has no global fetch \(started with --no-experimental-fetch\?\).* \[RUNTIME_UNSUPPORTED\]\n$/);
			expect(result.status).toBe(1);
		}
	});

	it("no WebAssembly (--jitless): the decoders and the Parquet writer are RUNTIME_UNSUPPORTED, not a missing file", () => {
		const work = tempDir("dt64-runtime-");
		for (const [store, output] of [["sharded-2d.zarr", "a.arrow"], ["weather-station.zarr", "b.parquet"]]) {
			const result = run([data(store), "-q", "-o", path.join(work, output)], "--jitless");
			expect(result.stderr, store).toMatch(/this Node runs without WebAssembly \(started with --jitless\?\); run it without that flag \[RUNTIME_UNSUPPORTED\]\n$/);
			expect(result.status).toBe(1);
		}
	});

	it.skipIf(process.platform !== "linux")("under ulimit -v: RUNTIME_UNSUPPORTED naming the limit and the way out, which works", () => {
		const work = tempDir("dt64-runtime-");
		for (const [store, output] of [["sharded-2d.zarr", "a.arrow"], ["weather-station.zarr", "b.parquet"]]) {
			const result = run([data(store), "-q", "-o", path.join(work, output)], "", 8_000_000);
			expect(result.stderr, store).toMatch(/the address space this process may reserve is limited \(ulimit -v 8000000\); raise that limit, or run Node with --disable-wasm-trap-handler .* \[RUNTIME_UNSUPPORTED\]\n$/);
			expect(result.status).toBe(1);
			expect(run([data(store), "-q", "-o", path.join(work, output)], "--disable-wasm-trap-handler", 8_000_000)).toEqual({ status: 0, stderr: "" });
		}
	});

	it.skipIf(process.platform !== "linux")("under ulimit -v, a chunk's buffer that cannot be had: RUNTIME_UNSUPPORTED naming the limit, not `Array buffer allocation failed [INTERNAL]` (trial 28, finding 02)", () => {
		// Two chunks of 2^27 int64 (1 GiB each), never written: their fill values need buffers 2 GB of address space cannot hold.
		const store = path.join(tempDir("dt64-runtime-"), "huge.zarr");
		fs.mkdirSync(store);
		fs.writeFileSync(path.join(store, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [2 ** 28], chunks: [2 ** 27], dtype: "<M8[s]", compressor: null, fill_value: 0, filters: null, order: "C" }));
		const output = path.join(path.dirname(store), "huge.arrow");
		const result = run([store, "-q", "-o", output], "--disable-wasm-trap-handler", 2_000_000);
		expect(result.stderr).toMatch(
			/^dt64-export: memory for the export's buffers could not be allocated \(Array buffer allocation failed\): the address space this process may reserve is limited \(ulimit -v 2000000\); raise that limit, or read fewer chunks at once \(--concurrency; .*\) \[RUNTIME_UNSUPPORTED\]\n$/,
		);
		expect(result.status).toBe(1);
		expect(fs.readdirSync(path.dirname(store)).sort()).toEqual(["huge.zarr"]);
	});
});
