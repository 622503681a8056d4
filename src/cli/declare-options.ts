import type { Argv, Options } from "yargs";
import { UsageError } from "../errors.js";
import { checkInteger } from "./check-integer.js";
import { didYouMean } from "./did-you-mean.js";
import { flag, optionsOf, type CommandName, type OptionSpec } from "./options.js";

/** A choice matched case-insensitively (DuckDB and ogr2ogr take `Parquet` too), given back in the table's spelling. */
function choiceOf(option: OptionSpec & { choices: readonly string[] }, value: unknown): string {
	const text = String(value);
	const match = option.choices.find((choice) => choice.toLowerCase() === text.toLowerCase());
	if (match !== undefined) return match;
	throw new UsageError(`${flag(option.name)} ${JSON.stringify(text)}: choose ${option.choices.join(", ")}${didYouMean(text, option.choices)}`);
}

function yargsOption(option: OptionSpec): Options {
	const { choices, min } = option;
	return {
		alias: option.alias,
		type: option.kind === "strings" ? "string" : option.kind,
		array: option.kind === "strings" ? true : undefined,
		requiresArg: option.kind !== "boolean" && option.optionalValues === undefined,
		choices,
		default: option.default,
		defaultDescription: option.defaultText,
		describe: option.describe,
		// yargs hands a coerce failure to `fail` as a YError with this message: a usage error, exit 2.
		coerce:
			choices !== undefined
				? (value: unknown) => (value === undefined ? value : choiceOf({ ...option, choices }, value))
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
		if (option.name !== "help" && option.name !== "version") y.option(option.name, yargsOption(option));
	}
	return y;
}
