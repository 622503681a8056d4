/**
 * Error messages quote what a store holds (a data type, an array's name, a fill value, CF units), and a store may be
 * hostile: its text must neither forge lines nor drive a terminal (escape sequences), nor fill a log (a fill value of
 * 10 MB). Every Dt64ExportError's message goes through `safeMessageText`, so the library's messages are as bounded as
 * the CLI's line.
 */

/**
 * The longest message kept whole; a longer one keeps its start and its end (where the code's words and the advice
 * are) around a note of what was left out.
 */
export const MAX_MESSAGE_CHARS = 1000;
const KEPT_HEAD = 600;
const KEPT_TAIL = 300;

/**
 * Control characters but line breaks and tabs (C0, DEL, C1: ESC starts a terminal escape sequence, CR rewrites a
 * line), and the Unicode line separators and bidirectional overrides that reorder or break what is shown.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** UNSAFE and line breaks: for one line of a report (inspect's), where a name's line break would forge a line. */
const UNSAFE_IN_LINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escapeCharacter = (character: string) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** One line of a text report with its unsafe characters and line breaks written as JSON escapes (`\u000a`). */
export function safeLineText(text: string): string {
	return text.replace(UNSAFE_IN_LINE, escapeCharacter);
}

/** `text` with unsafe characters written as JSON escapes (`\u001b`), and cut in the middle past MAX_MESSAGE_CHARS. */
export function safeMessageText(text: string): string {
	const escaped = text.replace(UNSAFE, escapeCharacter);
	if (escaped.length <= MAX_MESSAGE_CHARS) return escaped;
	const left = escaped.length - KEPT_HEAD - KEPT_TAIL;
	return `${cutBefore(escaped, KEPT_HEAD)}… (${left} characters left out) …${escaped.slice(cutAfter(escaped, escaped.length - KEPT_TAIL))}`;
}

/** `text` up to `at`, not splitting a surrogate pair. */
function cutBefore(text: string, at: number): string {
	const code = text.charCodeAt(at - 1);
	return text.slice(0, code >= 0xd800 && code <= 0xdbff ? at - 1 : at);
}

/** Where to start keeping `text`'s end at `at`, not splitting a surrogate pair. */
function cutAfter(text: string, at: number): number {
	const code = text.charCodeAt(at);
	return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}
