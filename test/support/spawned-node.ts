/**
 * Node processes a test starts and watches: a CLI with a faulty decode thread (faulty-decode-threads.mjs), a library
 * script. Shared by the tests of the decode threads failing under an export, whole chunks and streamed rows alike.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { BIN } from "./cli.js";

/** The preload that makes the decode threads fail as `DT64_TEST_THREAD_FAULT` says (exit, throw, hang). */
export const FAULTY_THREADS_PRELOAD = path.join(import.meta.dirname, "faulty-decode-threads.mjs");

export interface NodeRun {
	status: number | null;
	signal: NodeJS.Signals | null;
	stderr: string;
	ms: number;
}

/** Runs node with `args` (in `cwd`, the test's own by default); `onStart` may signal it; killed (and reported as a hang) after 15 s. */
export function runNode(args: string[], env: Record<string, string>, onStart?: (child: ReturnType<typeof spawn>) => void, cwd?: string): Promise<NodeRun> {
	return new Promise((resolve) => {
		const started = Date.now();
		const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"], cwd });
		let stderr = "";
		child.stderr!.on("data", (data: Buffer) => (stderr += data));
		const hang = setTimeout(() => child.kill("SIGKILL"), 15_000);
		child.once("close", (status, signal) => {
			clearTimeout(hang);
			resolve({ status, signal, stderr, ms: Date.now() - started });
		});
		onStart?.(child);
	});
}

/**
 * For runNode's `onStart`: SIGINT once the export's temporary file exists in `outDir` (the export is then under way,
 * its signal handlers installed), 300 ms after.
 */
export function interruptOnceUnderWay(outDir: string): (child: ReturnType<typeof spawn>) => void {
	return (child) => {
		const poll = setInterval(() => {
			if (!fs.readdirSync(outDir).some((name) => name.endsWith(".tmp"))) return;
			clearInterval(poll);
			setTimeout(() => child.kill("SIGINT"), 300);
		}, 20);
		child.once("close", () => clearInterval(poll));
	};
}

/** Runs the CLI (`bin/`) with `args` and decode threads that fail as `fault` says (exit, throw, hang); see runNode. */
export function runCliWithFaultyThreads(args: string[], fault: string, onStart?: Parameters<typeof runNode>[2]): Promise<NodeRun> {
	return runNode(["--import", FAULTY_THREADS_PRELOAD, BIN, ...args], { DT64_TEST_THREAD_FAULT: fault }, onStart);
}
