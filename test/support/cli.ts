import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { tableFromIPC, type Table } from "apache-arrow";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(REPO, "bin/dt64-export.js");
export const FIXTURES = path.resolve(REPO, "../shared/fixtures/zarr-python");

export interface CliResult {
	status: number | null;
	stdout: Buffer;
	stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
	const result = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 1 << 30 });
	return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

export function tempDir(prefix = "dt64-"): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function readArrow(file: string): Table {
	return tableFromIPC(fs.readFileSync(file));
}
