/**
 * `npm run lint` (Biome with biome.json, then scripts/check-whitespace.mjs and scripts/check-exports.mjs) as a test: `npm test` runs it, and so
 * does every landing, which runs the suite.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { REPO, tempDir } from "./support/cli.js";

it("the sources, tests and scripts pass the linter, the whitespace rules and the exports check", () => {
	const result = spawnSync("npm", ["run", "--silent", "lint"], { cwd: REPO, encoding: "utf8" });
	// The message on failure is the linter's report: each finding with its file and line.
	expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
});

it("the exports check names an export used only in its own file, and one used nowhere", () => {
	const repo = tempDir("dt64-exports-");
	fs.mkdirSync(path.join(repo, "src"));
	fs.mkdirSync(path.join(repo, "test"));
	fs.writeFileSync(path.join(repo, "src/rule.ts"), "export function usedHere(): number {\n\treturn 1;\n}\nexport const dead = 2;\nexport function rule(): number {\n\treturn usedHere();\n}\nexport type Kept = number;\n");
	fs.writeFileSync(path.join(repo, "test/rule.test.ts"), 'import { rule } from "../src/rule.js";\nrule();\n');
	const result = spawnSync(process.execPath, [path.join(REPO, "scripts/check-exports.mjs"), repo], { encoding: "utf8" });
	expect(result.status).toBe(1);
	expect(result.stderr).toBe("src/rule.ts:1: usedHere is exported but used only in this file: drop `export`\nsrc/rule.ts:4: dead is exported but used nowhere: delete it\n");
});
