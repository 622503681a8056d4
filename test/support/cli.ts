import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { tableFromIPC, type Table } from "apache-arrow";
import { afterAll } from "vitest";

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(REPO, "bin/dt64-export.js");
/**
 * The stores written by zarr-python: the folder `DT64_FIXTURES` names, else `../shared/fixtures/zarr-python` beside
 * the repository, whichever exists first. When neither does, the tests that read them say so and skip.
 */
const FIXTURE_FOLDERS = [process.env.DT64_FIXTURES, "../shared/fixtures/zarr-python"].filter((folder) => folder !== undefined && folder !== "").map((folder) => path.resolve(REPO, folder as string));
export const FIXTURES = FIXTURE_FOLDERS.find((folder) => fs.existsSync(folder)) ?? FIXTURE_FOLDERS[0];

/**
 * What each zarr-python `timedelta64[...]` fixture holds (its README): [8760h, 2W, 3D, 4h, 5m, 6s, 7000ms, 8000000us,
 * 9000000000ns, 0] in ns, then NaT.
 */
export const TIMEDELTA_FIXTURE_NS = [31_536_000n, 1_209_600n, 259_200n, 14_400n, 300n, 6n, 7n, 8n, 9n, 0n].map((s) => s * 1_000_000_000n);
/** The fixtures exported exactly with `--unit auto`: file, the unit it gives, and ns per count of that unit. */
export const TIMEDELTA_FIXTURE_CASES: readonly (readonly [name: string, unit: "ms" | "us" | "ns", nsPerCount: bigint])[] = [
	["timedelta64[ms].zarr", "ms", 1_000_000n],
	["timedelta64[10ms].zarr", "ms", 1_000_000n],
	["timedelta64[us].zarr", "us", 1_000n],
	["timedelta64[10us].zarr", "us", 1_000n],
	["timedelta64[ns].zarr", "ns", 1n],
];
/** The first value of `timedelta64[ps].zarr` floored to ns: 8760 h does not fit int64 ps, so numpy wrapped it when writing. */
export const TIMEDELTA_PS_FIRST_NS = (() => {
	const stored = BigInt.asIntN(64, 31_536_000n * 10n ** 12n);
	return stored / 1000n - (stored % 1000n < 0n ? 1n : 0n);
})();

export interface CliResult {
	status: number | null;
	stdout: Buffer;
	stderr: string;
}

/**
 * A CLI hung (a thread or a handle kept alive) would block this thread, and with it the test's timeout: it is killed
 * after a while shorter than that timeout (status null, which no test expects), so that the test fails rather than
 * the suite hanging. A hang detector only: nothing a test checks depends on it.
 */
const CLI_HANG_MS = 150_000;

export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliResult {
	const result = spawnSync(process.execPath, [BIN, ...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, maxBuffer: 1 << 30, timeout: CLI_HANG_MS, killSignal: "SIGKILL" });
	return { status: result.status, stdout: result.stdout, stderr: result.stderr.toString() };
}

/**
 * Folders made by `tempDir` in the current test file. Each test file loads this module afresh (vitest isolates
 * files), so the hook below is registered once per file and removes that file's folders when it ends.
 */
const made: string[] = [];
afterAll(() => {
	for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});

/** A new folder under the system's temporary folder, removed when the test file ends. */
export function tempDir(prefix = "dt64-"): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	made.push(dir);
	return dir;
}

export function readArrow(file: string): Table {
	return tableFromIPC(fs.readFileSync(file));
}

/** The raw int64 of each row of the first column of an IPC file, null for a null, whatever batches it holds. */
export function readRawInt64(file: string): (bigint | null)[] {
	const out: (bigint | null)[] = [];
	for (const batch of readArrow(file).batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}
