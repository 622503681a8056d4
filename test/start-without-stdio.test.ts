/**
 * The CLI starts an export without making the process's stdout stream, and without loading node:assert (whose
 * loading makes the stderr stream): a stream is made on the first use of `process.stdout` or `process.stderr`, 1-3 ms
 * of the start when it is a pipe, before the first chunk is read (issue 15). yargs' platform shim read stdout's
 * columns when it loaded and imported node:assert (scripts/lib/yargs-shim-without-stdio.mjs rewrites it at bundling),
 * and the help's width was read from stdout. (A decode thread's start still makes both: Node pipes the thread's
 * stdout and stderr to the process's.)
 */
import { spawnSync } from "node:child_process";
import { notStrictEqual, strictEqual } from "node:assert";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in JavaScript, without types
import { isYargsShim, leaveStdioAlone } from "../scripts/lib/yargs-shim-without-stdio.mjs";
import { BIN, REPO, tempDir } from "./support/cli.js";

const work = tempDir("dt64-stdio-");

/**
 * A v3 array of 1M datetime64[s] values with no chunk written (the fill value), compressed with `codec`: zstd's
 * export starts a decode thread early, gzip's decodes on the main thread.
 */
function store(codec: "zstd" | "gzip"): string {
	const folder = path.join(work, `${codec}.zarr`);
	fs.mkdirSync(folder, { recursive: true });
	const codecs = [{ name: "bytes", configuration: { endian: "little" } }, codec === "zstd" ? { name: "zstd", configuration: { level: 0, checksum: false } } : { name: "gzip", configuration: { level: 1 } }];
	const metadata = { zarr_format: 3, node_type: "array", shape: [1_000_000], data_type: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, chunk_grid: { name: "regular", configuration: { chunk_shape: [1_000_000] } }, chunk_key_encoding: { name: "default", configuration: { separator: "/" } }, fill_value: 0, codecs };
	fs.writeFileSync(path.join(folder, "zarr.json"), JSON.stringify(metadata));
	return folder;
}

/**
 * Preloaded into the CLI: says on stderr (by its file descriptor) when the process's stdout is first asked for, and
 * at exit how many decode threads were started and whether node:assert was loaded.
 */
const WATCH = `
import * as fs from "node:fs";
import { createRequire } from "node:module";
const threads = createRequire(import.meta.url)("node:worker_threads");
const stdout = Object.getOwnPropertyDescriptor(process, "stdout");
Object.defineProperty(process, "stdout", { configurable: true, enumerable: stdout.enumerable, get() { fs.writeSync(2, "stdout made\\n"); Object.defineProperty(process, "stdout", stdout); return process.stdout; } });
let started = 0;
const Worker = threads.Worker;
threads.Worker = class extends Worker { constructor(...args) { super(...args); started++; } };
process.on("exit", () => fs.writeSync(2, "threads " + started + ", assert " + process.moduleLoadList.includes("NativeModule assert") + "\\n"));
`;

describe("the CLI's start", () => {
	it("makes no stdout stream and loads no node:assert in an export to a file that decodes on the main thread", () => {
		const watch = path.join(work, "watch-stdio.mjs");
		fs.writeFileSync(watch, WATCH);
		for (const [codec, expected] of [
			["gzip", "threads 0, assert false\n"],
			// A decode thread's start makes the stdout stream (Node pipes the thread's to it), but no node:assert.
			["zstd", "stdout made\nthreads 1, assert false\n"],
		] as const) {
			const output = path.join(work, `${codec}.arrow`);
			// stdout and stderr are pipes, as they are for a script running the CLI. Run from a folder with a
			// package.json: from one without (up to the root), yargs' version guess (made when it is created, the
			// CLI's version set after) fails an assertion that it catches, which loads node:assert.
			const run = spawnSync(process.execPath, ["--import", pathToFileURL(watch).href, BIN, store(codec), "-o", output, "-q"], { cwd: REPO, encoding: "utf8" });
			expect([codec, run.status, run.stdout, run.stderr]).toEqual([codec, 0, "", expected]);
			expect(fs.statSync(output).size).toBeGreaterThan(8_000_000);
		}
	});

	it("still writes to stdout where there is something to write: inspect, and --help at the terminal's width or 110", () => {
		const inspect = spawnSync(process.execPath, [BIN, "inspect", store("zstd")], { encoding: "utf8" });
		expect(inspect.status).toBe(0);
		expect(inspect.stdout).toContain("zstd");
		const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
		expect(help.status).toBe(0);
		const widest = Math.max(...help.stdout.split("\n").map((line) => line.length));
		expect(widest).toBeLessThanOrEqual(110);
		expect(widest).toBeGreaterThan(100);
	});
});

describe("yargs' platform shim as bundled (scripts/lib/yargs-shim-without-stdio.mjs)", () => {
	const shimFile = path.join(REPO, "node_modules", "yargs", "lib", "platform-shims", "esm.mjs");
	const rewritten: string = leaveStdioAlone(fs.readFileSync(shimFile, "utf8"), shimFile);

	it("is the module the bundler names, and its rewrite is in the bundle", () => {
		expect(isYargsShim(shimFile)).toBe(true);
		expect(isYargsShim(path.join(REPO, "node_modules", "yargs", "lib", "platform-shims", "browser.mjs"))).toBe(false);
		const bundle = fs.readFileSync(path.join(REPO, "dist", "bundle", "dt64-export.cjs"), "utf8");
		expect(bundle).not.toMatch(/require\("(?:node:)?assert"\)[;,]$/m);
		expect(bundle).toMatch(/stdColumns: \(0, [\w$]+\.isatty\)\(1\) && typeof process\.stdout\.columns/);
	});

	it("keeps the lines of the shim (its source map holds)", () => {
		expect(rewritten.split("\n")).toHaveLength(fs.readFileSync(shimFile, "utf8").split("\n").length);
	});

	it("asserts as node:assert does: the same error where it throws, nothing where it does not", () => {
		const lines = rewritten.split("\n").filter((line) => /^ {4}(?:notStrictEqual|strictEqual): /.test(line));
		expect(lines).toHaveLength(2);
		const shim = new Function("require", `return {\n${lines.join("\n")}\n};`)(createRequire(import.meta.url)) as Record<"notStrictEqual" | "strictEqual", (...args: unknown[]) => void>;
		const outcome = (call: () => void) => {
			try {
				call();
				return "passed";
			} catch (error) {
				return `${(error as Error).name} ${(error as { code?: string }).code} ${(error as Error).message}`;
			}
		};
		const object = {};
		const cases: unknown[][] = [[1, 1], [1, 2], [NaN, NaN], [0, -0], ["a", "a", "same"], ["a", "b", "differ"], [object, object], [object, {}], [undefined, undefined], [null, undefined], [1], []];
		for (const name of ["notStrictEqual", "strictEqual"] as const) {
			for (const args of cases) expect([name, args, outcome(() => shim[name](...args))]).toEqual([name, args, outcome(() => (({ notStrictEqual, strictEqual })[name] as (...a: unknown[]) => void)(...args))]);
		}
	});

	it("refuses a shim whose text it does not recognise", () => {
		expect(() => leaveStdioAlone("import { strictEqual } from 'assert'", "x/yargs/lib/platform-shims/esm.mjs")).toThrow(/expected 1 of `import \{ notStrictEqual, strictEqual \} from 'assert'`, found 0/);
	});
});
