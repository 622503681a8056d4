/**
 * Ctrl-C pressed twice while a dataset export undoes itself (new-user trial: the second one ended the process at
 * once, leaving 592 finished files that DuckDB read as the export's rows). The first signal says so at once and
 * the next ones are caught while the files written so far are removed.
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
