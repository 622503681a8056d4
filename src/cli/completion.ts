/**
 * Shell completion (`dt64-export completion >> ~/.bashrc`): yargs prints the script and calls back with the words
 * typed so far; the answers come from the option table. An empty answer lets the shell complete file names (the
 * store, -o's file).
 */
import { COMMANDS, optionsOf, type CommandName } from "./options.js";

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
	if (current.startsWith("-")) return options.map((option) => `--${option.name}`);
	// The first word may be a subcommand; any other is a store or a value: file names.
	return words.length === 1 ? COMMANDS.filter((name) => name !== "export") : [];
}
