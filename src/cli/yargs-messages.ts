/**
 * yargs' own error messages, said the way the rest of the CLI says things. The command line is checked before
 * yargs parses it (command-line.ts), so these are a safety net: a message that reaches `fail` in yargs' wording
 * (`Not enough arguments following: o`, `Invalid values: Argument: to, Given: "csv", Choices: ...`) is rewritten
 * here, with the option named as it is typed (`-o`, `--to`). A test holds this list to every error message of the
 * yargs and yargs-parser versions in use (their English strings, and English locale where it differs).
 */
import { oneLine } from "../errors.js";
import { flag } from "./options.js";

type Rewrite = readonly [pattern: RegExp, rewrite: (...groups: string[]) => string];

const flags = (keys: string) =>
	keys
		.split(/,\s*/)
		.map((key) => flag(key.trim()))
		.join(", ");
const unquoted = (values: string) => values.replace(/"([^"]*)"/g, "$1");

const REWRITES: readonly Rewrite[] = [
	[/^Not enough arguments following: (.+)$/, (key) => `${flag(key)} needs a value (see --help)`],
	[/^Argument unexpected for: (.+)$/, (key) => `${flag(key)} takes no value (see --help)`],
	[/^Missing (?:required )?arguments?: (.+)$/, (keys) => `name the ${keys.split(/,\s*/).join(" and ")} (see --help)`],
	[/^Missing argument values?: (.+)$/, (keys) => `${flags(keys)}: give a value (see --help)`],
	[/^(?:Invalid values:)?\s*Argument: (.+?), Given: (.+?), Choices: (.+)$/, (key, given, choices) => `${flag(key)} ${given}: choose ${unquoted(choices)}`],
	[/^Unknown arguments?: (.+)$/, (keys) => `unknown option ${flags(keys)} (see --help)`],
	[/^Unknown commands?: (.+?)(?:\s+Did you mean (.+)\?)?$/, (names, meant) => `unknown command ${names}${meant ? ` (did you mean ${meant}?)` : " (see --help)"}`],
	[/^Did you mean (.+)\?$/, (meant) => `did you mean ${meant}?`],
	[/^Arguments (.+) and (.+) are mutually exclusive$/, (a, b) => `${flag(a)} and ${flag(b)} cannot be given together (see --help)`],
	[/^(?:Implications failed|Missing dependent arguments):\s*(.+?) -> (.+)$/, (key, needed) => `${flag(key)} needs ${flag(needed)} (see --help)`],
	[/^Not enough non-option arguments: got (\d+), need at least (\d+)$/, (got, need) => `${Number(need) - Number(got)} argument(s) missing (see --help)`],
	[/^Too many non-option arguments: got (\d+), maximum of (\d+)$/, (got, most) => `${got} arguments where at most ${most} go (quote a name with spaces)`],
	[/^Argument check failed: (.+)$/, (check) => `the arguments fail a check (${check}) (see --help)`],
	[/^Invalid JSON config file: (.+)$/, (file) => `${file} is not valid JSON`],
	[/^Invalid configuration: (.+), opts\.count excludes opts\.(.+)\.$/, (key, other) => `${flag(key)} is declared as a count and ${other} at once`],
];

/** The message in the project's voice; undefined for one that is not yargs' (the option table's own checks). */
export function rewriteYargsMessage(message: string): string | undefined {
	// yargs joins the parts of some messages with new lines ("Invalid values:\n  Argument: ...").
	const text = oneLine(message);
	for (const [pattern, rewrite] of REWRITES) {
		const match = pattern.exec(text);
		if (match !== null) return rewrite(...match.slice(1));
	}
	return undefined;
}
