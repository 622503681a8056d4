/**
 * A signal while the CLI is still loading ends it as one later does: exit 143 (130, 129) and the line saying so, not
 * killed by the signal with nothing said (trial 25, finding 11: a supervisor saw `-15` or `143` by timing alone).
 * The signal is sent once the bundle's first chunk is loaded (the code cache report says so), before its main chunk.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, REPO, tempDir } from "./support/cli.js";

describe("a signal during start-up", () => {
	it.each([
		["SIGTERM", 143],
		["SIGHUP", 129],
		["SIGINT", 130],
	] as const)("%s: exit %i and its line", async (signal, status) => {
		const work = tempDir("dt64-early-signal-");
		const report = path.join(work, "report.txt");
		const child = spawn(process.execPath, [BIN, path.join(REPO, "data/weather-station.zarr"), "-q", "-o", path.join(work, "t.arrow")], {
			// Compiled without caches, the main chunk takes a while to load: the signal comes meanwhile.
			env: { ...process.env, DT64_CODE_CACHE: "0", DT64_CODE_CACHE_REPORT: report },
			stdio: ["ignore", "ignore", "pipe"],
		});
		let stderr = "";
		child.stderr.on("data", (data: Buffer) => {
			stderr += data.toString();
		});
		const stderrClosed = new Promise((resolve) => child.stderr.on("close", resolve));
		const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on("exit", (code, killedBy) => resolve([code, killedBy])));
		while (!(fs.existsSync(report) && fs.readFileSync(report, "utf8").includes("early-decode-threads.cjs"))) await new Promise((resolve) => setTimeout(resolve, 2));
		child.kill(signal);
		expect(await exited).toEqual([status, null]);
		await stderrClosed;
		expect(stderr).toBe(`dt64-export: interrupted by ${signal}\n`);
		expect(fs.readdirSync(work)).toEqual(["report.txt"]);
	});
});
