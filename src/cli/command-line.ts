/**
 * The raw arguments checked against the option table before yargs parses them: yargs in strict mode says
 * `Unknown argument: uint` and takes a mistyped subcommand (`inspct store`) for the store. Here each mistake is
 * one line naming what was meant, and the options given on the command line are known by name (for the warnings
 * about options that do nothing, which must not fire on defaults).
 */
import * as fs from "node:fs";
import { UsageError } from "../errors.js";
import { checkStoreLocation } from "../store/store-location.js";
import { BOOLEAN_WORDS, booleanWord } from "./boolean-word.js";
import { parseIntegerOption } from "./check-integer.js";
import { didYouMean } from "../did-you-mean.js";
import { COMMANDS, flag, optionsOf, type CommandName, type OptionSpec } from "./options.js";

export interface CommandLine {
	readonly command: CommandName;
	/** The options given on the command line, by long name. */
	readonly given: ReadonlySet<string>;
	/** How each given option was written, for messages about it: `--no-sign-request`, `-q`. */
	readonly spelled?: ReadonlyMap<string, string>;
	/** The arguments for yargs: an option with optional values written `--index=` or `--index=positions`. */
	readonly argv?: readonly string[];
}

/** Positionals each command takes, in order (for the message when one is missing or extra). */
const POSITIONALS: Readonly<Record<CommandName, readonly string[]>> = {
	export: ["store"],
	inspect: ["store"],
	commit: ["folder"],
	completion: [],
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
/** A value that starts with "-" but is no option: stdout (`-o -`), a negative number, an offset (`--tz -05:00`). */
const isValue = (token: string) => token === "-" || /^-\d/.test(token) || !token.startsWith("-");

function lookup(options: readonly OptionSpec[], name: string): { option: OptionSpec; negated: boolean } | undefined {
	const long = kebab(name);
	const option = options.find((candidate) => candidate.name === long || candidate.alias === name);
	if (option !== undefined) return { option, negated: false };
	const positive = long.startsWith("no-") ? options.find((candidate) => candidate.name === long.slice(3) && candidate.kind === "boolean") : undefined;
	return positive === undefined ? undefined : { option: positive, negated: true };
}

function unknownOption(name: string, options: readonly OptionSpec[]): UsageError {
	const names = options.flatMap((option) => (option.alias === undefined ? [option.name] : [option.name, option.alias]));
	const hint = didYouMean(kebab(name), names.filter((candidate) => (name.length === 1) === (candidate.length === 1)), flag);
	return new UsageError(`unknown option ${flag(name)}${hint || " (see --help)"}`);
}

/** The command a first positional names, refusing one that looks like a mistyped command rather than a store. */
function commandOf(first: string | undefined): CommandName {
	if (first === undefined) return "export";
	const named = COMMANDS.find((command) => command !== "export" && command === first);
	if (named !== undefined) return named;
	// A store is a path or a URL: a bare word that exists nowhere and is one typo from a command is that command.
	if (/^[a-z]+$/i.test(first) && !fs.existsSync(first)) {
		const hint = didYouMean(first, COMMANDS.filter((command) => command !== "export"));
		if (hint !== "") throw new UsageError(`unknown command ${first}${hint}`);
	}
	return "export";
}

const splitInline = (body: string): [string, string | undefined] => {
	const equals = body.indexOf("=");
	return equals === -1 ? [body, undefined] : [body.slice(0, equals), body.slice(equals + 1)];
};

/** What the command line holds, checked: the command, known options each with its value, the right positionals. */
export function checkCommandLine(argv: readonly string[]): CommandLine {
	const everyOption = [...new Set(COMMANDS.flatMap(optionsOf))];
	const positionals: string[] = [];
	const named: string[] = [];
	const spelled = new Map<string, string>();
	const forYargs: string[] = [];
	for (let i = 0; i < argv.length; i++) {
		const token = argv[i];
		forYargs.push(token);
		if (token === "--") {
			// POSIX's end of options: what follows is operands, even `-dash.zarr`. yargs fills no positional from past
			// `--` ("1 argument(s) missing"), so it is handed them as operands it cannot take for options: a name
			// starting with "-" as the same path from the working folder (trial 25, finding 02).
			const operands = argv.slice(i + 1);
			positionals.push(...operands);
			forYargs.pop();
			forYargs.push(...operands.map((operand) => (operand.startsWith("-") && operand !== "-" ? `./${operand}` : operand)));
			break;
		}
		if (isValue(token)) {
			positionals.push(token);
			continue;
		}
		const long = token.startsWith("--");
		const [body, inline] = long ? splitInline(token.slice(2)) : [token.slice(1), undefined];
		// `-qf`: several short flags at once; the last may take a value (`-qo out.arrow`, `-oout.arrow`).
		const names = long ? [body] : [...body];
		for (const [k, name] of names.entries()) {
			const found = lookup(everyOption, name);
			if (found === undefined && fs.existsSync(token)) {
				throw new UsageError(`unknown option ${flag(name)}: to name the store ${token}, write ./${token}, or put it after -- (see --help)`);
			}
			if (found === undefined) throw unknownOption(name, everyOption);
			// One value per option, unless it is repeatable: yargs would make a list of them (`--to arrow --to parquet`).
			if (named.includes(found.option.name) && found.option.kind !== "boolean" && found.option.kind !== "strings") {
				throw new UsageError(`${flag(found.option.name)} is given twice: give it once (see --help)`);
			}
			named.push(found.option.name);
			spelled.set(found.option.name, long ? `--${body}` : `-${name}`);
			if (found.option.kind === "boolean" && inline !== undefined) {
				const value = booleanWord(inline);
				if (value === undefined) throw new UsageError(`${flag(body)}=${inline}: a switch takes no value, or one of ${BOOLEAN_WORDS} (see --help)`);
				forYargs[forYargs.length - 1] = value !== found.negated ? `--${found.option.name}` : `--no-${found.option.name}`;
			}
			// A number is read from its text here, exactly, and handed on as the number it is (see parseIntegerOption).
			const integer = (text: string) => String(parseIntegerOption(flag(found.option.name), text, found.option.min ?? Number.MIN_SAFE_INTEGER, found.option.max));
			if (found.option.kind === "number" && inline !== undefined) forYargs[forYargs.length - 1] = `--${found.option.name}=${integer(inline)}`;
			if (found.option.kind === "boolean" || inline !== undefined) continue;
			const { optionalValues } = found.option;
			if (optionalValues !== undefined) {
				// yargs would take whatever follows (the store) as the value: it is given one either way.
				const value = k === names.length - 1 && optionalValues.includes(argv[i + 1]) ? argv[++i] : "";
				forYargs[forYargs.length - 1] = `--${found.option.name}=${value}`;
				continue;
			}
			if (k < names.length - 1) break;
			const next = argv[i + 1];
			if (next === undefined || !isValue(next)) throw new UsageError(`${flag(name)} needs a value (see --help)`);
			forYargs.push(found.option.kind === "number" ? integer(argv[++i]) : argv[++i]);
		}
	}
	const command = commandOf(positionals[0]);
	if (command !== "export") positionals.shift();
	const options = optionsOf(command);
	for (const name of named) {
		if (!options.some((option) => option.name === name)) throw new UsageError(`${flag(name)} is not an option of ${command === "export" ? "an export" : command} (see --help)`);
	}
	const expected = POSITIONALS[command];
	const asksForHelp = named.includes("help") || named.includes("version");
	if (!asksForHelp && positionals.length < expected.length) {
		throw new UsageError(`name the ${expected[positionals.length]}: dt64-export ${command === "export" ? "" : `${command} `}<${expected.join("> <")}> [options] (see --help)`);
	}
	if (!asksForHelp && positionals.length > expected.length) {
		const extra = positionals[expected.length];
		throw new UsageError(`unexpected argument ${JSON.stringify(extra)}: ${command === "export" ? "an export" : command} takes ${expected.length === 1 ? `one ${expected[0]}` : "no argument"} (quote a name with spaces)`);
	}
	// yargs reads a lone "-" as an empty positional: the store's own refusal is made here, with the token given.
	if (!asksForHelp && expected[0] === "store" && positionals[0] === "-") checkStoreLocation("-");
	return { command, given: new Set(named), spelled, argv: forYargs };
}
