/**
 * A yes/no written as a word, for a boolean option given a value: `--force=yes`, DT64_EXPORT_FORCE=1. yargs reads
 * every such value but `true` as false (`--allow-truncate=yes` would fail, `--force=1` would not overwrite), so the
 * words are read here, and any other is refused rather than guessed.
 */
const TRUE = ["true", "1", "yes", "on"];
const FALSE = ["false", "0", "no", "off", ""];

/** The boolean a word means, or undefined for a word that means neither. */
export function booleanWord(text: string): boolean | undefined {
	const word = text.trim().toLowerCase();
	return TRUE.includes(word) ? true : FALSE.includes(word) ? false : undefined;
}
