/**
 * The suite refuses a dist/ older than src/ (test/support/fresh-build.ts, vitest's globalSetup): the CLI tests run the
 * build, and would otherwise test the previous one after an edit without `npm run build`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/cli.js";
import { BUILD_STAMP, staleBuildReason } from "./support/fresh-build.js";

/** A repository of one source file and a build, each at its time (seconds). */
function repository(sourceAt: number, builtAt: number | undefined): string {
	const repo = tempDir("dt64-fresh-build-");
	fs.mkdirSync(path.join(repo, "src/cf"), { recursive: true });
	fs.writeFileSync(path.join(repo, "src/cf/packing.ts"), "");
	fs.writeFileSync(path.join(repo, "tsconfig.json"), "{}");
	for (const file of ["src/cf/packing.ts", "tsconfig.json"]) fs.utimesSync(path.join(repo, file), 1_000, 1_000);
	fs.utimesSync(path.join(repo, "src/cf/packing.ts"), sourceAt, sourceAt);
	if (builtAt !== undefined) {
		fs.mkdirSync(path.dirname(path.join(repo, BUILD_STAMP)), { recursive: true });
		fs.writeFileSync(path.join(repo, BUILD_STAMP), "");
		fs.utimesSync(path.join(repo, BUILD_STAMP), builtAt, builtAt);
	}
	return repo;
}

describe("the build the tests run", () => {
	it("is current when built after every source", () => {
		expect(staleBuildReason(repository(2_000, 3_000))).toBeUndefined();
	});

	it("is refused naming the newest source when a source was edited since, and when there is none", () => {
		expect(staleBuildReason(repository(4_000, 3_000))).toBe("dist/ is older than src/cf/packing.ts: the CLI tests and the decode threads would run the previous build; run `npm run build` (`npm test` builds, then tests)");
		expect(staleBuildReason(repository(2_000, undefined))).toMatch(/^dist\/bundle\/dt64-export\.cjs does not exist: run `npm run build`/);
	});
});
