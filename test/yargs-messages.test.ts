/**
 * Every error message of the yargs and yargs-parser in use is rewritten in the CLI's voice: the English locale's
 * strings and the parser's own (which the locale does not list), each filled in, must match a rewrite. A yargs
 * upgrade with a new message fails here instead of leaking its wording to users.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { rewriteYargsMessage } from "../src/cli/yargs-messages.js";
import { REPO } from "./support/cli.js";

/** The help screen's words (headings, types, the built-in options' descriptions): not errors. */
const HELP_WORDS = new Set(["Commands:", "Options:", "Examples:", "Positionals:", "boolean", "count", "string", "number", "array", "required", "default", "default:", "choices:", "aliases:", "generated-value", "Path to JSON config file", "Show help", "Show version number", "command", "deprecated", "deprecated: %s"]);

const yargsFolder = path.dirname(createRequire(path.join(REPO, "package.json")).resolve("yargs/package.json"));
const parserFile = path.join(REPO, "node_modules/yargs-parser/build/lib/yargs-parser.js");

/** The locale's strings (keys, and the English text where it differs, singular and plural). */
function localeMessages(): string[] {
	const english = JSON.parse(fs.readFileSync(path.join(yargsFolder, "locales/en.json"), "utf8")) as Record<string, string | { one: string; other: string }>;
	return Object.entries(english).flatMap(([key, text]) => (HELP_WORDS.has(key) ? [] : [key, ...(typeof text === "string" ? [text] : [text.one, text.other])]));
}

/** The strings the code passes to the translator (`__("...")`, `__n("...")`). */
const translated = (file: string) => [...fs.readFileSync(file, "utf8").matchAll(/__n?\(\s*['"]([^'"]+)['"]/g)].map((match) => match[1]).filter((text) => !HELP_WORDS.has(text));

/** A message as yargs fills it in: option names where it names options, numbers where it counts. */
const filledIn = (template: string) => template.replace(/(got|least|of) %s/g, "$1 1").replace(/%s/g, "to");

describe("yargs' messages in the CLI's voice", () => {
	it("rewrites every error message of yargs and yargs-parser", () => {
		const templates = new Set([...localeMessages(), ...fs.readdirSync(path.join(yargsFolder, "build/lib")).filter((file) => file.endsWith(".js")).flatMap((file) => translated(path.join(yargsFolder, "build/lib", file))), ...translated(parserFile)]);
		// Headings of the lines that follow them: each value refused, each option missing the one it implies.
		const followedBy: Record<string, string> = { "Invalid values:": "\n  Argument: to, Given: \"csv\", Choices: \"arrow\"", "Implications failed:": "\n to -> output", "Missing dependent arguments:": "\n to -> output" };
		expect(templates.size).toBeGreaterThan(10);
		for (const template of templates) {
			const rewritten = rewriteYargsMessage(`${filledIn(template)}${followedBy[template] ?? ""}`);
			expect(rewritten, template).toBeDefined();
			expect(rewritten, template).not.toMatch(/^[A-Z]/);
		}
	});

	it("names options as they are typed", () => {
		expect(rewriteYargsMessage("Not enough arguments following: o")).toBe("-o needs a value (see --help)");
		expect(rewriteYargsMessage('Invalid values:\n  Argument: to, Given: "csv", Choices: "arrow", "arrow-stream", "parquet"')).toBe('--to "csv": choose arrow, arrow-stream, parquet');
		expect(rewriteYargsMessage("Missing required argument: store")).toBe("name the store (see --help)");
		expect(rewriteYargsMessage("Unknown arguments: uint, x")).toBe("unknown option --uint, -x (see --help)");
		expect(rewriteYargsMessage("Unknown command: inspct\nDid you mean inspect?")).toBe("unknown command inspct (did you mean inspect?)");
		expect(rewriteYargsMessage('--to "csv": choose arrow, arrow-stream, parquet')).toBeUndefined();
	});
});
