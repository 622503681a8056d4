import { UNHELD_COUNT_NOTE } from "../cf/decode-cf-times.js";
import { PARQUET_SECONDS_NOTE } from "../convert/seconds-as-millis.js";
import { Dt64ExportError, type ErrorCode } from "../errors.js";
import { OPTIONS, flag } from "./options.js";

/**
 * The library names options as its API spells them (`timezone`, `group`); the CLI's user knows them as flags. The
 * flag of each library option, from the table of options (its name in camelCase, or the names it lists as
 * `library`). Options the CLI does not have (`maxChunks`, `bufferPool`) keep their library name. A message names the
 * option at fault first (`option`), and any other option in backticks (`end`): both are given as flags.
 */
const FLAG_OF_OPTION: ReadonlyMap<string, string> = new Map(
	OPTIONS.flatMap((spec) => (spec.library ?? [camelCase(spec.name)]).map((name): [string, string] => [name, flag(spec.name)])),
);

/** `row-group-rows` -> `rowGroupRows`, as yargs names an option's value. */
function camelCase(name: string): string {
	return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The flag that sets a library option, if the CLI has one. */
export function flagOfOption(name: string): string | undefined {
	return FLAG_OF_OPTION.get(name);
}

/** A refusal of the 360_day calendar, as inspect reports it (without the error's `value`). */
const THIRTY_DAY_REFUSAL = /calendar "360_day" is a model calendar/i;

/** What the CLI's user can do about an error of each code: the flag that changes the outcome, appended as is. */
const ADVICE: Partial<Record<ErrorCode, (error: Dt64ExportError) => string>> = {
	// Only for its refusal outside a dataset export, which has no value: a value out of range is another matter.
	USAGE: (error) =>
		error.option === "maxRowsPerFile" && error.value === undefined
			? " (a dataset folder is written with --partition-by, or --part with -o <folder>)"
			: error.option === "timeSorted" && typeof error.value === "number"
				? ", or read and filter every row with --no-range-search"
				: "",
	// ns is the finest Arrow unit: there is no finer --unit to suggest. Flooring moves a float count that is a hair
	// below a whole unit (01:59:59.999... for 02:00) one unit back: rounding is named first.
	// Auto's ns, for a count no unit holds, overflowed: with either flag auto takes the finest unit that holds every
	// date (cf/auto-unit-range.ts), so no --unit is needed.
	TRUNCATION: (error) =>
		error.message.includes(UNHELD_COUNT_NOTE)
			? "; use --round to round to the nearest (as xarray decodes floats), or --allow-truncate to floor (--unit auto then takes the finest unit that holds every date)"
			: `; use --round to round to the nearest (as xarray decodes floats), --allow-truncate to floor${error.unit === undefined || error.unit === "ns" ? "" : ", or a finer --unit"}`,
	// Only a value refused by a conversion (it has a position) becomes null with --on-overflow null; a writer's own
	// limit does not.
	// A coarser unit first: it keeps the value, where null loses it (ns, what auto falls back to, ends in 2262).
	// A value no unit holds (±Infinity, 10^15 days) gets no coarser unit suggested (ConversionError.coarserUnitHolds).
	OVERFLOW: (error) => {
		if (error.index === undefined) return "";
		const holds = (error as { coarserUnitHolds?: boolean }).coarserUnitHolds !== false;
		// Seconds past int64 in the ms Parquet writes them as: Arrow IPC keeps them in seconds (trial 28, finding 03).
		if (holds && error.unit === "ms" && error.message.includes(PARQUET_SECONDS_NOTE)) return " (Arrow IPC keeps seconds: --to arrow; or --on-overflow null writes null instead)";
		const coarser = holds ? { ns: "us, ms or s", us: "ms or s", ms: "s" }[error.unit ?? ""] : undefined;
		return coarser === undefined ? " (use --on-overflow null to write null instead)" : ` (a coarser --unit, ${coarser}, holds a wider range: ns ends in 2262, us in year 294,246; or --on-overflow null writes null instead)`;
	},
	// A part of another export in a dataset folder: its message says what --force would replace.
	OUTPUT_EXISTS: (error) => (error.option === "overwrite" ? "" : " (use --force to overwrite)"),
	ARRAY_AMBIGUOUS: () => "; choose one with --array",
	ARRAY_UNNAMED: () => " with --array",
	BAND_TOO_LARGE: () => "; --index --order chunk streams chunk by chunk without assembling rows",
	CALENDAR_UNSUPPORTED: (error) =>
		error.option !== "convertCalendar"
			? ""
			: error.value === "360_day" || THIRTY_DAY_REFUSAL.test(error.message)
				? "; --convert-calendar exports each date label as the same label in the proleptic Gregorian calendar (monthly data; a 29 or 30 February is refused, or its rows left out with --drop-invalid-dates), --convert-calendar --align-on year each date at the same day of the year (daily or finer data), --no-cf the stored counts"
				: "; --convert-calendar exports each date label as the same label in the proleptic Gregorian calendar",
	// A model calendar's date that the proleptic Gregorian calendar lacks: the stored counts are what is left.
	VALUE_INVALID: (error) => (error.message.includes("without CF decoding the stored counts are exported") ? " (--no-cf)" : ""),
	TIME_NOT_SORTED: () => "; without --time-sorted the time column is checked whole before the search, and --no-range-search reads and filters every row, whatever the order",
	// An unsigned request was refused, or no credentials were found: say how the choice is made on the command line.
	ACCESS_DENIED: (error) => (error.option === "signRequests" ? " (--no-sign-request)" : ""),
	// The library's message says already that a public bucket needs none when requests are sent unsigned: the flag alone.
	CREDENTIALS_MISSING: (error) => (error.option === "signRequests" ? " (--no-sign-request)" : ""),
	COLUMNS_INCOMPATIBLE: (error) =>
		// A name clash (index or value column) is solved by --rename, for a table as for a single array.
		error.option === "order"
			? ": use --order c"
			: error.option === "rename"
				? `: rename one with --rename ${String(error.value)}=<new name>`
				: error.option === "columns" && error.value === undefined
					? "; export them separately, or choose --columns whose dimensions agree"
					: "",
};

/** The one line the CLI prints for a library error: the option named by its flag, and the flag that helps. */
export function describeForCli(error: Dt64ExportError): string {
	let message = error.message;
	const flag = error.option === undefined ? undefined : FLAG_OF_OPTION.get(error.option);
	if (flag !== undefined) {
		const option = error.option as string;
		if (message.startsWith(`${option} `) || message.startsWith(`${option}:`)) message = flag + message.slice(option.length);
		else if (message.startsWith(`invalid ${option} `)) message = `invalid ${flag}${message.slice(`invalid ${option}`.length)}`;
	}
	message = message.replace(/`(\w+)`/g, (quoted, name: string) => FLAG_OF_OPTION.get(name) ?? quoted);
	return message + (ADVICE[error.code]?.(error) ?? "");
}

/** The advice alone, for a refusal reported as data: inspect's reason an array cannot be exported, with its code, option and text. */
export function adviceFor(code: ErrorCode, option: string | undefined, reason = ""): string {
	return ADVICE[code]?.(new Dt64ExportError(code, reason, option === undefined ? {} : { option })) ?? "";
}
