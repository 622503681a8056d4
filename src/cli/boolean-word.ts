/**
 * A yes/no written as a word, for a boolean option given a value: `--force=yes`, DT64_EXPORT_FORCE=1. yargs reads
 * every such value but `true` as false (`--allow-truncate=yes` would fail, `--force=1` would not overwrite), so the
 * words are read here, and any other is refused rather than guessed.
 */
const TRUE = ["true", "yes", "on", "1"];
const FALSE = ["false", "no", "off", "0", ""];

/** The words accepted, for messages: `true, false, yes, no, on, off, 1, 0` (no value at all means false too). */
export const BOOLEAN_WORDS = TRUE.flatMap((word, i) => [word, FALSE[i]]).join(", ");

/** The boolean a word means, or undefined for a word that means neither. */
export function booleanWord(text: string): boolean | undefined {
	const word = text.trim().toLowerCase();
	return TRUE.includes(word) ? true : FALSE.includes(word) ? false : undefined;
}
