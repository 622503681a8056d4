import * as path from "node:path";
import type { OutputFormat } from "../export-plan.js";
import { UsageError } from "../errors.js";

/** The output extensions that name a format, as pyarrow, DuckDB and polars spell them (lower case). */
export const FORMAT_OF_EXTENSION: Readonly<Record<string, OutputFormat>> = {
	arrow: "arrow",
	feather: "arrow",
	ipc: "arrow",
	arrows: "arrow-stream",
	parquet: "parquet",
	pq: "parquet",
};

const KNOWN = Object.keys(FORMAT_OF_EXTENSION)
	.map((extension) => `.${extension}`)
	.join(" ");

/** How the output's name and the format are spelled in messages: the CLI's flags, or the library's names. */
export interface FormatSpelling {
	readonly output: string;
	readonly format: string;
}

/** The library's names (the CLI has its flags, see src/cli/options.ts). */
export const LIBRARY_SPELLING: FormatSpelling = { output: "path", format: "format" };

/**
 * The format an output's extension names (`.parquet`, any case), or undefined when it names none; an extension that
 * names another format than `to` is refused (a `.parquet` file, or a folder of that name, holding Arrow IPC misleads
 * every reader and every glob).
 */
function formatOfName(to: OutputFormat | undefined, output: string, spelling: FormatSpelling): OutputFormat | undefined {
	const named = FORMAT_OF_EXTENSION[path.extname(output).slice(1).toLowerCase()];
	if (named !== undefined && to !== undefined && to !== named) {
		throw new UsageError(`${spelling.output} ${output} names ${named} output but ${spelling.format} is ${to}: change the extension or ${spelling.format}`, { option: "format", value: to });
	}
	return named;
}

/**
 * The format of an export: `to` (`--to`, the library's `format`), else what the output's extension names, else
 * arrow (stdout, or the default file name). An extension that names another format than `to` is refused, and so is
 * a file whose extension names none without `to`. `inPlace`: the output is an existing device or pipe (`/dev/null`,
 * a FIFO), whose name says nothing about a format.
 */
export function resolveOutputFormat(to: OutputFormat | undefined, output: string | undefined, inPlace: boolean, spelling: FormatSpelling): OutputFormat {
	if (output === undefined || output === "-" || inPlace) return to ?? "arrow";
	const named = formatOfName(to, output, spelling);
	if (named !== undefined) return named;
	if (to !== undefined) return to;
	const extension = path.extname(output).slice(1);
	const what = extension === "" ? "has no extension" : `has the extension .${extension}`;
	throw new UsageError(`${spelling.output} ${output} ${what}, which names no format: use ${KNOWN}, or say which with ${spelling.format} arrow|arrow-stream|parquet`, { option: "format" });
}

/**
 * The format of a dataset folder's files, by the rule of a single file (`t2m.arrow/` holds Arrow IPC files, and
 * `t2m.parquet/` with `to` arrow is refused), except that a folder's name need not name a format (`march/`): its
 * files are Parquet then, what the engines that read datasets read.
 */
export function resolveDatasetFormat(to: OutputFormat | undefined, folder: string | undefined, spelling: FormatSpelling): OutputFormat {
	return (folder === undefined ? undefined : formatOfName(to, folder, spelling)) ?? to ?? "parquet";
}
