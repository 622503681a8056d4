import type { Argv, Options } from "yargs";
import { checkChoice } from "./check-choice.js";
import { flag, optionsOf, type CommandName, type OptionSpec } from "./options.js";

function yargsOption(option: OptionSpec, command: CommandName): Options {
	const { choices } = option;
	return {
		alias: option.alias,
		type: option.kind === "strings" ? "string" : option.kind,
		array: option.kind === "strings" ? true : undefined,
		requiresArg: option.kind !== "boolean" && option.optionalValues === undefined,
		choices,
		default: option.default,
		defaultDescription: option.defaultText,
		describe: typeof option.describe === "string" ? option.describe : option.describe[command],
		// yargs hands a coerce failure to `fail` as a YError with this message: a usage error, exit 2.
		// A number's text is checked before yargs reads it (checkCommandLine, optionsFromEnvironment): as a double,
		// its digits past 2^53 are lost.
		coerce: choices !== undefined ? (value: unknown) => (value === undefined ? value : checkChoice(flag(option.name), choices, value)) : undefined,
	};
}

/** Declares the command's options of the table (OPTIONS) to yargs, in the table's order. */
export function declareOptions<T>(y: Argv<T>, command: CommandName): Argv<T> {
	for (const option of optionsOf(command)) {
		if (option.name !== "help" && option.name !== "version") y.option(option.name, yargsOption(option, command));
	}
	return y;
}
