/**
 * stderr whose reader went away (`2>&1 | true`, a log shipper that died) decides nothing about the data (trial 25,
 * finding 10): the progress and summary lines that cannot be written are lost, the export finishes, keeps its file
 * and exits 0. Before, the failed write was an uncaught EPIPE: the summary's made a written file's run exit 1
 * (INTERNAL), the last progress line's removed the finished file.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO, tempDir } from "./support/cli.js";

/** Runs the CLI with its stderr a pipe whose reading end is closed at once; resolves to its exit status. */
function runWithStderrClosed(args: string[], cwd: string): Promise<number | null> {
	const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"] });
	child.stderr.destroy();
	return new Promise((resolve, reject) => {
		child.on("error", reject);
		child.on("exit", (status) => resolve(status));
	});
}

describe("stderr closed by its reader", () => {
	it("a file export with its summary and progress lines: written, exit 0", async () => {
		const work = tempDir("dt64-stderr-");
		const store = path.join(REPO, "data/weather-station.zarr");
		expect(await runWithStderrClosed([store, "-o", "a.parquet"], work)).toBe(0);
		expect(await runWithStderrClosed([store, "-o", "b.parquet", "--progress"], work)).toBe(0);
		const reference = path.join(work, "reference.parquet");
		expect(await runWithStderrClosed([store, "-o", reference, "-q"], work)).toBe(0);
		for (const file of ["a.parquet", "b.parquet"]) expect(fs.readFileSync(path.join(work, file)).equals(fs.readFileSync(reference)), file).toBe(true);
	});

	it("a dataset export with progress: committed, exit 0", async () => {
		const work = tempDir("dt64-stderr-");
		expect(await runWithStderrClosed([path.join(REPO, "data/weather-station.zarr"), "--partition-by", "month", "-o", "ds", "--progress"], work)).toBe(0);
		expect(fs.existsSync(path.join(work, "ds/_SUCCESS"))).toBe(true);
	});
});
