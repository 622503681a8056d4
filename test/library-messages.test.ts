/**
 * The library's messages describe the data; which flag to use is the CLI's advice (src/cli/error-advice.ts, by
 * error code). Every string and template in src/ outside src/cli/ is read with the TypeScript parser and must not
 * name an option of the command line (`--force`, `--no-cf`, `-o`): a library user has no flags.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { GLOBAL_OPTIONS, OPTIONS } from "../src/cli/options.js";
import { REPO } from "./support/cli.js";

const SOURCE = path.join(REPO, "src");
const CLI = path.join(SOURCE, "cli");

function* libraryFiles(folder: string): Generator<string> {
	for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
		const file = path.join(folder, entry.name);
		if (entry.isDirectory() && file !== CLI) yield* libraryFiles(file);
		else if (entry.isFile() && entry.name.endsWith(".ts")) yield file;
	}
}

/** Each string literal and piece of template text of a file, with its line. */
function textsOf(file: string): { line: number; text: string }[] {
	const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
	const texts: { line: number; text: string }[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
			texts.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return texts;
}

const options = [...OPTIONS, ...GLOBAL_OPTIONS];
const longNames = options.flatMap((option) => [option.name, `no-${option.name}`]).sort((a, b) => b.length - a.length);
const shortNames = options.flatMap((option) => (option.alias === undefined ? [] : [option.alias]));
/** `--force`, `--no-cf`, `-o` as words (not `--profile`, another program's option, nor `-05:00`). */
const FLAG = new RegExp(`(?:^|[^\\w-])(?:--(?:${longNames.join("|")})|-(?:${shortNames.join("|")}))(?![\\w-])`);
/** A command line of another program, quoted as advice (`sbatch --array=0-7`: Slurm's option, not this CLI's). */
const OTHER_PROGRAM = /\b(?:aws|sbatch|kubectl|gcloud|az)\s[^)]*/g;
const namesFlag = (text: string) => FLAG.test(text.replace(OTHER_PROGRAM, ""));

describe("the library's messages", () => {
	it("name no option of the command line (src/ outside src/cli/)", () => {
		const files = [...libraryFiles(SOURCE)];
		expect(files.length).toBeGreaterThan(50);
		const found = files.flatMap((file) => textsOf(file).filter(({ text }) => namesFlag(text)).map(({ line, text }) => `${path.relative(REPO, file)}:${line}: ${text}`));
		expect(found).toEqual([]);
	});

	it("the check finds a flag where one is written", () => {
		expect(namesFlag("exists (use --force to overwrite)")).toBe(true);
		expect(namesFlag("write to a file (-o out.arrow)")).toBe(true);
		expect(namesFlag("pass --no-sign-request")).toBe(true);
		expect(namesFlag("choose one with --array")).toBe(true);
		expect(namesFlag("(aws configure export-credentials --profile p --format env)")).toBe(false);
		expect(namesFlag("use a contiguous range (sbatch --array=0-7) or `part` K/N")).toBe(false);
		expect(namesFlag("2021-03-01T06:00-05:00")).toBe(false);
	});
});
