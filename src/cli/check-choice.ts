import { UsageError } from "../errors.js";
import { didYouMean } from "../did-you-mean.js";

/**
 * A choice matched case-insensitively (DuckDB and ogr2ogr take `Parquet` too), given back in the table's spelling;
 * `option` names where the value came from (`--to`, DT64_EXPORT_TO).
 */
export function checkChoice(option: string, choices: readonly string[], value: unknown): string {
	const text = String(value);
	const match = choices.find((choice) => choice.toLowerCase() === text.toLowerCase());
	if (match !== undefined) return match;
	throw new UsageError(`${option} ${JSON.stringify(text)}: choose ${choices.join(", ")}${didYouMean(text, choices)}`);
}
