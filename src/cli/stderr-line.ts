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

/**
 * stderr's write errors are ignored, for the whole run: progress, notices and the summary are told to whoever reads
 * stderr, and a reader that went away (`2>&1 | head`, `| true`, a log shipper that died: EPIPE) or a log on a full disk
 * must not decide the fate of the data. Without this, the failed write was an uncaught error: an export whose file
 * was written reported failure (INTERNAL, exit 1), and one whose last progress line failed removed its finished file.
 * What cannot be written is lost; the export goes on, and its exit status is the export's.
 */
export function ignoreStderrFailures(): void {
	process.stderr.on("error", () => undefined);
}
