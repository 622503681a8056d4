/**
 * `npm run lint` (Biome with biome.json, then scripts/check-whitespace.mjs) as a test: `npm test` runs it, and so
 * does every landing, which runs the suite.
 */
import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { REPO } from "./support/cli.js";

it("the sources, tests and scripts pass the linter and the whitespace rules", () => {
	const result = spawnSync("npm", ["run", "--silent", "lint"], { cwd: REPO, encoding: "utf8" });
	// The message on failure is the linter's report: each finding with its file and line.
	expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
});
