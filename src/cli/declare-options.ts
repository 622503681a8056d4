import type { Argv, Options } from "yargs";
import { checkChoice } from "./check-choice.js";
import { checkInteger } from "./check-integer.js";
import { flag, optionsOf, type CommandName, type OptionSpec } from "./options.js";

function yargsOption(option: OptionSpec, command: CommandName): Options {
	const { choices, min } = option;
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
		coerce:
			choices !== undefined
				? (value: unknown) => (value === undefined ? value : checkChoice(flag(option.name), choices, value))
				: min !== undefined
					? (value: number | undefined) => {
							if (value !== undefined) checkInteger(flag(option.name), value, min);
							return value;
						}
					: undefined,
	};
}

/** Declares the command's options of the table (OPTIONS) to yargs, in the table's order. */
export function declareOptions<T>(y: Argv<T>, command: CommandName): Argv<T> {
	for (const option of optionsOf(command)) {
		if (option.name !== "help" && option.name !== "version") y.option(option.name, yargsOption(option, command));
	}
	return y;
}
