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
 * The format of an export: `to` (`--to`, the library's `format`), else what the output's extension names, else
 * arrow (stdout, or the default file name). An extension that names another format than `to` is refused (a
 * `.parquet` file holding Arrow IPC misleads every reader), and so is a file whose extension names none without
 * `to`. `inPlace`: the output is an existing device or pipe (`/dev/null`, a FIFO), whose name says nothing about a
 * format.
 */
export function resolveOutputFormat(to: OutputFormat | undefined, output: string | undefined, inPlace: boolean, spelling: FormatSpelling): OutputFormat {
	if (output === undefined || output === "-" || inPlace) return to ?? "arrow";
	const extension = path.extname(output).slice(1);
	const named = FORMAT_OF_EXTENSION[extension.toLowerCase()];
	if (named === undefined) {
		if (to !== undefined) return to;
		const what = extension === "" ? "has no extension" : `has the extension .${extension}`;
		throw new UsageError(`${spelling.output} ${output} ${what}, which names no format: use ${KNOWN}, or say which with ${spelling.format} arrow|arrow-stream|parquet`, { option: "format" });
	}
	if (to !== undefined && to !== named) {
		throw new UsageError(`${spelling.output} ${output} names ${named} output but ${spelling.format} is ${to}: change the extension or ${spelling.format}`, { option: "format", value: to });
	}
	return named;
}
