/**
 * Every line the CLI writes to stderr (its warnings, notices and summaries) quotes what a store
 * holds: array and attribute names, chunk keys, a folder or URL given by someone else. Each goes through the escaping
 * of error messages (safeMessageText: control characters, Unicode line separators and bidirectional overrides as
 * JSON escapes, cut in the middle past 1,000 characters), and a line break in it becomes a space: a name holding
 * `\ndt64-export: ...` or an escape sequence can neither forge a line nor drive the terminal: as the error line does
 * (main.ts), written otherwise only because it is written synchronously, and the progress line, which holds counts
 * alone (test/hostile-messages.test.ts checks that nothing else writes to stderr).
 */
import { oneLine } from "../errors.js";
import { safeMessageText } from "../message-text.js";

/** `text` (one line, its trailing line break optional) as written to stderr: escaped, on one line, ended. */
function stderrLine(text: string): string {
	return `${oneLine(safeMessageText(text.endsWith("\n") ? text.slice(0, -1) : text))}\n`;
}

/** Writes `text` as one line of stderr (see stderrLine). */
export function writeStderrLine(text: string): void {
	process.stderr.write(stderrLine(text));
}
