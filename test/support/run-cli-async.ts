import { spawn } from "node:child_process";
import { BIN, type CliResult } from "./cli.js";

/**
 * `runCli` without blocking the event loop: needed whenever the CLI talks to a server running in the test's own
 * process (test/support/http-server.ts), which `spawnSync` would starve.
 */
export function runCliAsync(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
		child.once("error", reject);
		child.once("close", (status) => resolve({ status, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString() }));
	});
}
