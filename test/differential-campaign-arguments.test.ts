/**
 * The differential campaign (scripts/differential/run.mjs) refuses what it cannot run, in one line with exit status 2
 * and before it packs, generates or writes anything (trial 32): `--stores abc` reached the generator as 'NaN' (a
 * Python traceback once the package was packed), `--stores 0` printed an empty table and exit status 0, and a
 * dist/ older than src/ was packed as it was, so the campaign compared the previous build with the oracles. Runs no
 * Python: every case stops before the generator.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tempDir } from "./support/cli.js";

const RUN = path.join(REPO, "scripts/differential/run.mjs");

function campaign(script: string, argv: string[]): { status: number | null; stderr: string } {
	const run = spawnSync(process.execPath, [script, ...argv], { encoding: "utf8" });
	return { status: run.status, stderr: run.stderr };
}

describe("the differential campaign's refusals", () => {
	it.each([
		[["--stores", "abc"], "run.mjs: --stores abc: a whole number of at least 1"],
		[["--stores", "0"], "run.mjs: --stores 0: a whole number of at least 1"],
		[["--stores", "1.5"], "run.mjs: --stores 1.5: a whole number of at least 1"],
		[["--first", "1e3"], "run.mjs: --first 1e3: a whole number of at least 0"],
		[["--families", "xr,foo"], "run.mjs: unknown family foo (expected xr, raw, dt64, model, mix)"],
		[["--bogus"], "run.mjs: Unknown option '--bogus'"],
	])("%j: one line, exit status 2, nothing written", (argv, message) => {
		const work = path.join(tempDir("dt64-campaign-args-"), "work");
		const run = campaign(RUN, [...argv, "--work", work]);
		expect(run.stderr).toBe(`${message}\n`);
		expect(run.status).toBe(2);
		expect(fs.existsSync(work)).toBe(false);
	});

	it("refuses to pack a build older than the sources (not with --cli, which names the CLI to run)", () => {
		// A checkout of the campaign whose dist/ predates an edit of src/: its own scripts, the repository's packages.
		const repo = tempDir("dt64-campaign-stale-");
		for (const file of ["scripts/differential/run.mjs", "scripts/differential/oracle-columns.mjs", "scripts/lib/stale-build.mjs"]) {
			fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
			fs.copyFileSync(path.join(REPO, file), path.join(repo, file));
		}
		fs.symlinkSync(path.join(REPO, "node_modules"), path.join(repo, "node_modules"));
		fs.mkdirSync(path.join(repo, "dist/bundle"), { recursive: true });
		fs.writeFileSync(path.join(repo, "dist/bundle/dt64-export.cjs"), "");
		fs.utimesSync(path.join(repo, "dist/bundle/dt64-export.cjs"), 1_000, 1_000);
		fs.mkdirSync(path.join(repo, "src"));
		fs.writeFileSync(path.join(repo, "src/export.ts"), "");
		const work = path.join(repo, "work");
		const run = campaign(path.join(repo, "scripts/differential/run.mjs"), ["--stores", "1", "--work", work]);
		expect(run.stderr).toBe("run.mjs: not packing this checkout: dist/ is older than src/export.ts: the CLI tests and the decode threads would run the previous build; run `npm run build` (`npm test` builds, then tests)\n");
		expect(run.status).toBe(2);
		expect(fs.existsSync(work)).toBe(false);
	});
});
