/**
 * Every option of the command line, declared once: its help text, default, the commands that take it, when it
 * does nothing, and its environment variable (DT64_EXPORT_<NAME>). The parser (yargs), the checks of the raw
 * arguments, the help, the warnings, shell completion and the flags that the CLI's messages name for the library's
 * option names are all built from this table. Adding an option is adding one entry here, then carrying its value
 * to the library: the Args of src/cli/main.ts and the ExportOptions it builds, and the library's own option where
 * the export plan (src/export-plan.ts) or its part (src/select/selection-options.ts) checks it.
 */
import { CALENDAR_ALIGNMENTS } from "../cf/calendar-alignment.js";
import { TARGET_UNIT_CHOICES, OVERFLOW_CHOICES } from "../convert/options.js";
import { MAX_CONCURRENCY, OUTPUT_FORMATS, type OutputFormat } from "../export-plan.js";
import { COMPRESSIONS, DEFAULT_COMPRESSION, DEFAULT_ROW_GROUP_ROWS, ROW_GROUP_BYTES } from "../stream/parquet/options.js";
import { DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, REDIRECT_POLICIES } from "../store/http-store.js";
import type { RowOrder } from "../stream/table-reader.js";
import { PARTITION_LEVELS } from "../output/hive-partition.js";
import { MAX_PARTS } from "../select/part.js";
import { FORMAT_OF_EXTENSION, type FormatSpelling } from "../output/output-format.js";

/** The subcommands; `export` is the default one (`dt64-export <store>`). */
export const COMMANDS = ["export", "inspect", "commit", "completion"] as const;
export type CommandName = (typeof COMMANDS)[number];

/** What an option's applicability can depend on: known once the arguments are parsed. */
export interface RunFacts {
	/** The output's format; undefined for the commands that write none. */
	readonly format?: OutputFormat;
	/** The store is a URL (http(s)://, s3://, ...), not a local folder or zip file. */
	readonly remote: boolean;
	/** The store is an s3:// URL. */
	readonly s3?: boolean;
	/** The export selects rows by time (--start, --end) or partitions them (--partition-by). */
	readonly selects?: boolean;
	/** The export keeps a time range (--start, --end). */
	readonly ranged?: boolean;
	/** The export writes a dataset folder (--partition-by, or --part with -o <folder>). */
	readonly dataset?: boolean;
	/** The dataset folder is in Hive partitions (--partition-by). */
	readonly partitioned?: boolean;
	/** A column of the output holds timestamps; undefined until the columns are planned. */
	readonly timestamps?: boolean;
	/** A column of the output holds floats (stored or unpacked); undefined until the columns are planned. */
	readonly floats?: boolean;
	/** A column of the output is CF time of a model calendar (noleap...); undefined until the columns are planned. */
	readonly modelCalendar?: boolean;
	/** A column of the output is CF time of the 360_day calendar; undefined until the columns are planned. */
	readonly yearAlignable?: boolean;
	/** --part is given (K/N or auto). */
	readonly parted?: boolean;
	/** --quiet is given. */
	readonly quiet?: boolean;
}

export interface OptionSpec {
	/** The long name, kebab-case: `--row-group-rows`; yargs gives its value as `rowGroupRows` too. */
	readonly name: string;
	readonly alias?: string;
	/** `strings`: repeatable, a list of strings. Every kind but `boolean` needs a value. */
	readonly kind: "string" | "number" | "boolean" | "strings";
	/** A `string` option that may also be given alone (`--index`): the values it may take (`--index positions`). */
	readonly optionalValues?: readonly string[];
	/** The accepted values, matched case-insensitively (`--to Parquet`) and given to the program in these spellings. */
	readonly choices?: readonly string[];
	/** The smallest value of a `number` option, which must be an integer. */
	readonly min?: number;
	/** The largest value of a `number` option; 2^53 - 1 (the largest integer a number holds exactly) unless given. */
	readonly max?: number;
	/** The default the parser fills in. */
	readonly default?: string | number | boolean | readonly string[];
	/** The help's `[default: ...]` of an option without `default`, whose default the program works out at run time. */
	readonly defaultText?: string;
	/** Its help text; an option of several commands that means something else in each has one per command. */
	readonly describe: string | Partial<Readonly<Record<CommandName, string>>>;
	readonly commands: readonly CommandName[];
	/** Why the option does nothing in this run (a warning names it), or undefined when it applies. */
	readonly inapplicable?: (facts: RunFacts) => string | undefined;
	/**
	 * The library options this flag sets, when they are not its name in camelCase (`--tz` sets `timezone`): a
	 * library error naming one of them is printed with the flag (src/cli/error-advice.ts).
	 */
	readonly library?: readonly string[];
}

const onlyParquet = ({ format }: RunFacts) => (format === undefined || format === "parquet" ? undefined : `it applies to --to parquet, not --to ${format}`);
const notSelecting = ({ selects }: RunFacts) => (selects === false ? "it applies with --start, --end or --partition-by" : undefined);
const notRanged = ({ ranged }: RunFacts) => (ranged === false ? "it applies with --start or --end" : undefined);
const onlyRemote = ({ remote }: RunFacts) => (remote ? undefined : "it applies to stores read over the network, not to a local one");
// Google Cloud Storage and Azure answer 404 for an object that does not exist, whatever the caller may list.
const onlyS3 = ({ s3 }: RunFacts) => (s3 === false ? "it applies to s3:// stores (other stores answer 404 for a missing chunk)" : undefined);
const onlyLocal = ({ remote }: RunFacts) => (remote ? "it applies to a local folder store, not to one read over the network" : undefined);
const onlyTimestamps = ({ timestamps }: RunFacts) =>
	timestamps === false ? "no column holds timestamps (a timedelta64 array is a Duration, which has no zone)" : undefined;
const onlyFloats = ({ floats }: RunFacts) => (floats === false ? "no column holds floats" : undefined);
const onlyModelCalendars = ({ modelCalendar }: RunFacts) =>
	modelCalendar === false ? "no column is CF time of a model calendar (noleap, 365_day, all_leap, 366_day, 360_day)" : undefined;
const only360Day = ({ yearAlignable }: RunFacts) => (yearAlignable === false ? "no column is CF time of the 360_day calendar" : undefined);
// With --part K/N it is refused (the library's check): only its absence is a mere warning.
const onlyPartAuto = ({ parted }: RunFacts) => (parted === false ? "it applies with --part auto" : undefined);
const progressShown = ({ quiet }: RunFacts) => (quiet === true ? "--quiet shows no progress" : undefined);

/** `--order`'s values: the library's row orders, every one of them (the record's keys are checked against the type). */
const ROW_ORDERS = Object.keys({ c: true, chunk: true } satisfies Record<RowOrder, true>);

const EXTENSIONS_HELP = Object.entries(FORMAT_OF_EXTENSION)
	.map(([extension, format]) => `.${extension} ${format}`)
	.join(", ");

export const OPTIONS: readonly OptionSpec[] = [
	{ name: "array", kind: "string", describe: "path of the array inside the store", commands: ["export"], library: ["array", "group"] },
	{
		name: "to",
		library: ["format"],
		kind: "string",
		choices: OUTPUT_FORMATS,
		defaultText: "from -o's extension, else arrow",
		describe: `arrow = IPC file, arrow-stream = IPC stream, parquet (-o's extension names it: ${EXTENSIONS_HELP})`,
		commands: ["export"],
	},
	{ name: "output", alias: "o", kind: "string", defaultText: "<column>.<ext>", describe: "output file, or - for stdout", commands: ["export"] },
	{ name: "unit", kind: "string", choices: TARGET_UNIT_CHOICES, default: "auto", describe: "Arrow timestamp unit", commands: ["export"] },
	{ name: "tz", kind: "string", defaultText: "none, naive like numpy", describe: "timezone of the timestamps", commands: ["export"], inapplicable: onlyTimestamps, library: ["timezone"] },
	{ name: "allow-truncate", kind: "boolean", default: false, describe: "floor values finer than the unit instead of failing (not with --round)", commands: ["export"] },
	{
		name: "round",
		library: ["rounding"],
		kind: "boolean",
		default: false,
		describe: "round values finer than the unit to the nearest one, ties to even, instead of failing (as xarray decodes float CF time); with --unit auto, float CF time gets the coarsest unit its values are within one float ulp of",
		commands: ["export"],
	},
	{
		name: "on-overflow",
		kind: "string",
		choices: OVERFLOW_CHOICES,
		default: "error",
		describe: "values outside int64 in the unit: fail, or write null",
		commands: ["export"],
	},
	{ name: "column", kind: "string", defaultText: "the array's name", describe: "column name", commands: ["export"] },
	{
		name: "columns",
		kind: "string",
		describe: "export these arrays of the group (--array, default the root) as one table, broadcast by dimension names: a,b,c; all: every data variable (the whole to_dataframe() table)",
		commands: ["export"],
	},
	{
		name: "index",
		kind: "string",
		optionalValues: ["positions"],
		describe: "add one column per dimension before the values: its coordinate array (decoded) where the group has one, else int64 positions; --index positions: positions everywhere",
		commands: ["export"],
	},
	{ name: "rename", kind: "string", describe: "rename output columns: old=new[,old=new]", commands: ["export"] },
	{
		name: "cf",
		kind: "boolean",
		default: true,
		describe:
			"CF decoding: time arrays (numbers with units '<unit> since <date>', as xarray writes time) to timestamps; in companion columns _FillValue, missing_value and the valid range to null, then scale_factor/add_offset; --no-cf: the stored numbers",
		commands: ["export"],
	},
	{
		name: "nan-as-null",
		kind: "boolean",
		default: false,
		describe: "NaN in float columns becomes null (it stays NaN by default)",
		commands: ["export"],
		inapplicable: onlyFloats,
	},
	{
		name: "convert-calendar",
		kind: "boolean",
		default: false,
		describe: "export the dates of a CF model calendar (noleap, all_leap, 360_day) as the same dates of the proleptic Gregorian calendar",
		commands: ["export"],
		inapplicable: onlyModelCalendars,
	},
	{
		name: "align-on",
		kind: "string",
		choices: CALENDAR_ALIGNMENTS,
		defaultText: "date",
		describe:
			"with --convert-calendar, how 360_day dates become proleptic Gregorian ones (xarray's align_on): date keeps each date (a 29 or 30 February is refused, or left out with --drop-invalid-dates), year moves each to the same day of its year, round(365 or 366 x day / 360)",
		commands: ["export"],
		inapplicable: only360Day,
	},
	{
		name: "drop-invalid-dates",
		kind: "boolean",
		default: false,
		describe:
			"with --convert-calendar (--align-on date), leave out the rows whose time coordinate (an --index coordinate, or the array exported alone) is a date the proleptic Gregorian calendar lacks (a 360_day 29 or 30 February), as xarray's convert_calendar drops them, instead of refusing them; the rows left out are counted",
		commands: ["export"],
	},
	{
		name: "order",
		kind: "string",
		choices: ROW_ORDERS,
		default: "c",
		describe: "rows in C order (numpy ravel), or chunk by chunk (needs --index)",
		commands: ["export"],
	},
	{
		name: "concurrency",
		kind: "number",
		min: 1,
		max: MAX_CONCURRENCY,
		// The code's own (defaultConcurrency): a test holds the two together.
		defaultText: "one per core, 2 to 4, for a local folder or zip; 32 over the network, shared by the columns (8 each at least, fewer for chunks over 2 MiB)",
		describe: `chunks read and decoded at once, 1 to ${MAX_CONCURRENCY}`,
		commands: ["export"],
	},
	{
		name: "row-group-rows",
		kind: "number",
		min: 1,
		defaultText: `${DEFAULT_ROW_GROUP_ROWS}, fewer for rows over ${ROW_GROUP_BYTES / DEFAULT_ROW_GROUP_ROWS} bytes: ${ROW_GROUP_BYTES >> 20} MiB of values per row group`,
		describe: "Parquet rows per row group",
		commands: ["export"],
		inapplicable: onlyParquet,
	},
	{
		name: "compression",
		kind: "string",
		choices: COMPRESSIONS,
		default: DEFAULT_COMPRESSION,
		describe: "Parquet compression",
		commands: ["export"],
		inapplicable: onlyParquet,
	},
	{
		name: "json",
		kind: "boolean",
		default: false,
		describe: {
			inspect: "the report as JSON (int64 values as strings)",
			commit: "print the _SUCCESS summary on stdout",
			export: "print the export's summary as JSON on stdout, instead of its line on stderr (not with -o -)",
		},
		commands: ["inspect", "commit", "export"],
	},
	{
		name: "header",
		library: ["header", "headers"],
		kind: "strings",
		default: [],
		describe: "HTTP header 'Name: value', or @file of such lines, for every request (repeatable; never printed)",
		commands: ["export", "inspect"],
		inapplicable: onlyRemote,
	},
	{ name: "retries", kind: "number", min: 0, default: DEFAULT_RETRIES, describe: "retries of a failed HTTP request", commands: ["export", "inspect"], inapplicable: onlyRemote },
	{
		name: "timeout",
		library: ["timeoutMs"],
		kind: "number",
		min: 0,
		default: DEFAULT_TIMEOUT_MS / 1000,
		describe: "seconds an HTTP request may wait for the server's next bytes (its answer, then each piece of the body) before it is retried, 0 for no limit; never a limit on the whole download",
		commands: ["export", "inspect"],
		inapplicable: onlyRemote,
	},
	{
		name: "redirects",
		kind: "string",
		choices: REDIRECT_POLICIES,
		default: "follow",
		describe: "which redirects an http(s):// store follows: follow (any), same-origin (only to the URL's scheme, host and port), none; --header values go to the URL's origin only",
		commands: ["export", "inspect"],
		inapplicable: onlyRemote,
	},
	{
		name: "sign-request",
		library: ["signRequests"],
		kind: "boolean",
		default: true,
		describe: "send s3://, gs:// and az:// requests with credentials from the environment (off: anonymous requests, for public buckets)",
		commands: ["export", "inspect"],
		inapplicable: onlyRemote,
	},
	{
		name: "forbidden-as-missing",
		kind: "boolean",
		default: false,
		describe: "s3://: read a chunk answered 403 AccessDenied as missing (the fill value), as a bucket that the caller may not list (no s3:ListBucket) answers for chunks never written",
		commands: ["export", "inspect"],
		inapplicable: onlyS3,
	},
	{
		name: "follow-links-outside",
		kind: "boolean",
		default: false,
		describe: "a local folder store: follow symbolic links that lead out of the store's folder (refused by default: git-annex, DVC)",
		commands: ["export", "inspect"],
		inapplicable: onlyLocal,
	},
	{ name: "progress", kind: "boolean", defaultText: "when stderr is a terminal", describe: "show progress on stderr", commands: ["export"], inapplicable: progressShown },
	{ name: "quiet", alias: "q", kind: "boolean", default: false, describe: { export: "no progress, no summary and no notices (warnings are still printed)", commit: "no summary line (stale locks are still named)" }, commands: ["export", "commit"] },
	{ name: "force", alias: "f", kind: "boolean", default: false, describe: "overwrite an existing output file (or the dataset in an output folder)", commands: ["export"], library: ["overwrite"] },
	{ name: "start", kind: "string", describe: "keep rows whose time is at or after this ISO 8601 instant (2021-03-01, 2021-03-01T06:00+02:00)", commands: ["export"] },
	{ name: "end", kind: "string", describe: "keep rows whose time is before this ISO 8601 instant", commands: ["export"] },
	{
		name: "time-column",
		kind: "string",
		defaultText: "the only time column (datetime64 or CF time)",
		describe: "the column --start/--end and --partition-by use",
		commands: ["export"],
		inapplicable: notSelecting,
	},
	{
		name: "range-search",
		kind: "boolean",
		default: true,
		describe: "find the rows of --start/--end by searching the sorted time column's chunks (off: read every row and filter in one pass, whatever the order, without checking or searching the time column)",
		commands: ["export"],
		inapplicable: notRanged,
	},
	{
		name: "time-sorted",
		kind: "boolean",
		defaultText: "not said: the time column is read whole to check it sorted before the search, over the network only when that takes at most 256 requests (more is refused until this is given)",
		describe: "the time column is known sorted: search it without reading it whole first (the chunks the search reads and the rows exported are still checked; a time out of order in a chunk the search skips is not found); --no-time-sorted reads it whole however many requests it takes",
		commands: ["export"],
		inapplicable: notRanged,
	},
	{
		name: "partition-by",
		kind: "string",
		choices: PARTITION_LEVELS,
		describe: "write -o as a Hive-partitioned dataset folder (year=2021/month=1/day=5/...)",
		commands: ["export"],
	},
	{ name: "part", kind: "string", describe: "export part K of N (0-based: K/N) into the dataset folder -o (or to stdout with -o -), or auto: K and N from the batch engine", commands: ["export"] },
	{ name: "parts", kind: "number", min: 1, max: MAX_PARTS, describe: `N for --part auto in a Kubernetes Indexed Job (its completions), at most ${MAX_PARTS}`, commands: ["export"], inapplicable: onlyPartAuto },
	{ name: "max-rows-per-file", kind: "number", min: 1, defaultText: "no limit", describe: "rows per dataset file at most (then more files per partition)", commands: ["export"] },
	{
		name: "max-partitions",
		kind: "number",
		min: 1,
		defaultText: "no limit, as DuckDB and Spark",
		describe: "partitions of --partition-by one run writes at most: more is refused before the first one past it gets a file (before anything is read when --start and --end span more); Hive's bound is 1000",
		commands: ["export"],
		inapplicable: ({ partitioned }) => (partitioned === false ? "it applies with --partition-by" : undefined),
	},
	{
		name: "break-lock",
		kind: "boolean",
		default: false,
		describe: "take over the part's lock in the dataset folder held by a run on another host (or unreadable), once sure that run has ended; never one of a run still going on this host",
		commands: ["export"],
		inapplicable: ({ dataset }) => (dataset === false ? "it applies to a dataset folder (--partition-by, or --part with -o <folder>)" : undefined),
	},
];

/** Options every command takes, handled by yargs itself. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
	{ name: "help", alias: "h", kind: "boolean", describe: "show help", commands: COMMANDS },
	{ name: "version", kind: "boolean", describe: "show the version", commands: COMMANDS },
];

export function optionsOf(command: CommandName): OptionSpec[] {
	return [...OPTIONS, ...GLOBAL_OPTIONS].filter((option) => option.commands.includes(command));
}

/** `--row-group-rows` for `row-group-rows`, `-o` for `o`. */
export const flag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);

/** The environment variable of an option: `DT64_EXPORT_ROW_GROUP_ROWS` for `row-group-rows`. */
export const environmentName = (option: Pick<OptionSpec, "name">) => `DT64_EXPORT_${option.name.toUpperCase().replaceAll("-", "_")}`;

/** The output and its format as the command line names them, in resolveOutputFormat's messages. */
export const OUTPUT_FLAGS: FormatSpelling = { output: "-o", format: "--to" };
