import { UsageError } from "../errors.js";

/** Splits and checks `--columns a,b,c`. */
export function parseColumnList(text: string): string[] {
	const names = text.split(",").map((name) => name.trim());
	if (names.some((name) => name === "")) throw new UsageError(`columns ${JSON.stringify(text)}: empty column name (write them as a,b,c)`, { option: "columns", value: text });
	return names;
}
