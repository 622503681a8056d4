/**
 * Options from the environment: DT64_EXPORT_<NAME> (DT64_EXPORT_CONCURRENCY=2, DT64_EXPORT_TO=parquet), for
 * settings a user or a job wants on every run. The command line wins over the environment, which wins over the
 * defaults. A DT64_EXPORT_ variable that names no option is named in a warning rather than ignored silently; one
 * with a value the option does not take is refused by its own name (unless the command line gives that option),
 * and an empty one is unset.
 */
import { UsageError } from "../errors.js";
import { BOOLEAN_WORDS, booleanWord } from "./boolean-word.js";
import { checkChoice } from "./check-choice.js";
import { parseIntegerOption } from "./check-integer.js";
import { didYouMean } from "../did-you-mean.js";
import { environmentName, optionsOf, OPTIONS, type CommandName } from "./options.js";

const PREFIX = "DT64_EXPORT_";

export interface EnvironmentOptions {
	/** Values by long option name, for yargs' `config` (below the command line, above the defaults). */
	readonly values: Record<string, string | boolean | string[]>;
	readonly warnings: string[];
}

export function optionsFromEnvironment(command: CommandName, env: NodeJS.ProcessEnv = process.env, given: ReadonlySet<string> = new Set()): EnvironmentOptions {
	const values: Record<string, string | boolean | string[]> = {};
	const warnings: string[] = [];
	const known = new Map(OPTIONS.map((option) => [environmentName(option), option]));
	const taken = new Set(optionsOf(command));
	for (const [variable, text] of Object.entries(env)) {
		if (!variable.startsWith(PREFIX) || text === undefined) continue;
		const option = known.get(variable);
		if (option === undefined) {
			// `--no-cf` is the negation of the switch `--cf`: its variable is DT64_EXPORT_CF=false.
			const negated = variable.startsWith(`${PREFIX}NO_`) ? known.get(`${PREFIX}${variable.slice(PREFIX.length + 3)}`) : undefined;
			const hint = negated?.kind === "boolean" ? ` (--no-${negated.name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is ${environmentName(negated)}=false)` : didYouMean(variable, known.keys());
			warnings.push(`${variable} names no option, ignored${hint}`);
			continue;
		}
		// DT64_EXPORT_FORCE means nothing to inspect: set for exports, it stays quiet for the others.
		if (!taken.has(option) || given.has(option.name)) continue;
		if (option.kind === "boolean") {
			const value = booleanWord(text);
			if (value === undefined) throw new UsageError(`${variable}=${text}: expected one of ${BOOLEAN_WORDS}`);
			values[option.name] = value;
		} else if (option.kind === "strings") {
			// Several values (HTTP headers) one per line: a header value may hold any other separator.
			values[option.name] = text.split("\n").filter((line) => line.trim() !== "");
		} else if (text.trim() !== "") {
			if (option.choices !== undefined) checkChoice(variable, option.choices, text);
			if (option.kind === "number") parseIntegerOption(variable, text, option.min ?? Number.MIN_SAFE_INTEGER, option.max);
			values[option.name] = text;
		}
	}
	return { values, warnings };
}
