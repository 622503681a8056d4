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

/**
 * The format of an export: `--to`, else what `-o`'s extension names, else arrow (stdout, or the default file
 * name). An extension that names another format than `--to` is refused (a `.parquet` file holding Arrow IPC
 * misleads every reader), and so is a file whose extension names none without `--to`. `inPlace`: the output is
 * an existing device or pipe (`/dev/null`, a FIFO), whose name says nothing about a format.
 */
export function resolveOutputFormat(to: OutputFormat | undefined, output: string | undefined, inPlace: boolean): OutputFormat {
	if (output === undefined || output === "-" || inPlace) return to ?? "arrow";
	const extension = path.extname(output).slice(1);
	const named = FORMAT_OF_EXTENSION[extension.toLowerCase()];
	if (named === undefined) {
		if (to !== undefined) return to;
		const what = extension === "" ? "has no extension" : `has the extension .${extension}`;
		throw new UsageError(`-o ${output} ${what}, which names no format: use ${KNOWN}, or say which with --to arrow|arrow-stream|parquet`);
	}
	if (to !== undefined && to !== named) {
		throw new UsageError(`-o ${output} names ${named} output but --to is ${to}: change the extension or --to`);
	}
	return named;
}
