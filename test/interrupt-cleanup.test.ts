/**
 * Ctrl-C pressed twice while a dataset export undoes itself (new-user trial: the second one ended the process at
 * once, leaving 592 finished files that DuckDB read as the export's rows). The first signal says so at once and
 * the next ones are caught while the files written so far are removed. An export through chunks that cost no I/O
 * (missing ones) ends at the signal too (trial 24 finding 06: it ran on to the end, 16 s for a million chunks).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BIN, tempDir } from "./support/cli.js";

/** Every .parquet file below `folder`. */
function dataFiles(folder: string): string[] {
	if (!fs.existsSync(folder)) return [];
	return (fs.readdirSync(folder, { recursive: true }) as string[]).filter((name) => name.endsWith(".parquet"));
}

describe("interrupting a dataset export", () => {
	it("a second SIGINT while the first one's undoing runs is caught: exit 130, one line, no file left", async () => {
		const work = tempDir("dt64-interrupt-");
		const store = path.join(work, "hourly.zarr");
		const hours = 6000;
		const values = BigInt64Array.from({ length: hours }, (_, i) => BigInt(Date.UTC(2021, 0, 1) / 1000) + BigInt(i) * 3600n);
		await writeArray(store, "", { shape: [hours], chunks: [24], values });
		const folder = path.join(work, "by-hour");
		const child = spawn(process.execPath, [BIN, store, "--partition-by", "hour", "-o", folder, "-q"], { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (data) => (stderr += data));
		const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
		// Once many files are written (their removal then takes a while), Ctrl-C twice, a moment apart.
		while (dataFiles(folder).length < 800) {
			if (child.exitCode !== null) throw new Error(`the export ended before it was interrupted: ${stderr}`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		child.kill("SIGINT");
		await new Promise((resolve) => setTimeout(resolve, 5));
		child.kill("SIGINT");
		expect(await exited).toBe(130);
		expect(stderr).toBe("dt64-export: interrupted by SIGINT\n");
		expect(dataFiles(folder)).toEqual([]);
	}, 120_000);
});

describe("interrupting an export of missing chunks", () => {
	it("SIGTERM ends it at once (exit 143, its line, no temporary file), though no chunk read waits for I/O", async () => {
		const work = tempDir("dt64-interrupt-");
		const store = path.join(work, "empty.zarr");
		// Four million chunks of one value, none written (zarr-python 3 writes no chunk of fill values): a minute's work.
		fs.mkdirSync(store);
		fs.writeFileSync(
			path.join(store, "zarr.json"),
			JSON.stringify({
				zarr_format: 3,
				node_type: "array",
				shape: [4_000_000],
				data_type: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
				chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
				chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
				fill_value: "NaT",
				codecs: [{ name: "bytes", configuration: { endian: "little" } }],
				attributes: {},
			}),
		);
		const output = path.join(work, "out");
		fs.mkdirSync(output);
		const child = spawn(process.execPath, [BIN, store, "-o", path.join(output, "t.parquet"), "--progress"], { stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
		// Its first progress line: the chunks are being read.
		await new Promise<void>((resolve) => child.stderr.on("data", (data) => ((stderr += data), /chunks /.test(stderr) && resolve())));
		const sent = performance.now();
		child.kill("SIGTERM");
		const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still running 10 s after SIGTERM"), 10_000));
		const status = await Promise.race([exited, timeout]);
		child.kill("SIGKILL");
		expect(status).toBe(143);
		expect(performance.now() - sent).toBeLessThan(10_000);
		expect(stderr).toMatch(/dt64-export: interrupted by SIGTERM\n$/);
		expect(fs.readdirSync(output)).toEqual([]);
	}, 60_000);
});
