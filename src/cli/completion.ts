/**
 * Shell completion (`dt64-export completion >> ~/.bashrc`): yargs prints the script and calls back with the words
 * typed so far; the answers come from the option table. An empty answer lets the shell complete file names (the
 * store, -o's file).
 */
import { COMMANDS, GLOBAL_OPTIONS, optionsOf, type CommandName, type OptionSpec } from "./options.js";

/**
 * How a user types an option: a switch on by default is typed to turn it off (`--no-cf`, as README and --help name
 * it), one off by default to turn it on (`--force`), one whose default depends on the run (`--progress`) either way.
 * The parser's own switches (--help, --version) are never negated.
 */
function typedSpellings(option: OptionSpec): string[] {
	const long = `--${option.name}`;
	if (option.kind !== "boolean" || GLOBAL_OPTIONS.includes(option)) return [long];
	if (option.default === true) return [`--no-${option.name}`];
	if (option.default === false) return [long];
	return [long, `--no-${option.name}`];
}

/** Completions of the last of `words` (the words after the program's name, the one being typed last). */
export function completeWords(words: readonly string[]): string[] {
	const current = words.at(-1) ?? "";
	const previous = words.at(-2);
	const command: CommandName = COMMANDS.find((name) => name !== "export" && words.slice(0, -1).includes(name)) ?? "export";
	const options = optionsOf(command);
	if (previous?.startsWith("-")) {
		const name = previous.replace(/^--?/, "");
		const option = options.find((candidate) => candidate.name === name || candidate.alias === name);
		if (option !== undefined && option.kind !== "boolean") return [...(option.choices ?? [])];
	}
	if (current.startsWith("-")) return options.flatMap(typedSpellings);
	// The first word may be a subcommand; any other is a store or a value: file names.
	return words.length === 1 ? COMMANDS.filter((name) => name !== "export") : [];
}
