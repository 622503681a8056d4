// The CLI bundle's start-up without the Unicode tables yargs' help layout would load: string-width (through cliui
// and wrap-ansi, three copies) builds an Intl.Segmenter and, in version 8, the regular expression /^\p{RGI_Emoji}$/v
// when its module is evaluated. V8 checks a regular expression literal's syntax when it parses the source, in an
// uncalled function too, and for \p{RGI_Emoji} that loads ICU's emoji sequences: 32 ms, and 4 to 12 ms for the first
// segmenter, on every run of the CLI (measured on Node 20, a 2-core VM; an export of 17,520 values took 0.21 s,
// 0.16 s without them). Neither is used unless help or an error is laid out with non-ASCII text.
//
// The rewrite keeps string-width's code and behaviour: each of the two is built on its first use instead, behind an
// object with the one method string-width calls (segment, test). Each expected text must be found exactly as many
// times as listed, so that another version of string-width fails the build instead of silently starting slower
// (and test/cli-bundle.test.ts checks the bundle). Each replacement is one line, as the text it replaces: the
// module's lines, and so its source map, stay as they were.

/**
 * What string-width's module evaluates at load, its lazy replacement, and how many times a copy may hold it: the
 * segmenter once in every version, the expression once or not at all (string-width 7 has none); and version 7's
 * width loop, which gets version 8's fast path for printable ASCII (version 8 has it already).
 */
const DEFERRED = [
	{
		occurs: [1],
		text: "const segmenter = new Intl.Segmenter();",
		lazy: "let segmenterBuilt; const segmenter = { segment: (text) => (segmenterBuilt ??= new Intl.Segmenter()).segment(text) };",
	},
	{
		occurs: [0, 1],
		text: "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;",
		lazy: 'let rgiEmojiBuilt; const rgiEmojiRegex = { test: (text) => (rgiEmojiBuilt ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(text) };',
	},
	{
		// string-width 7 segments every text, ASCII too, so that the segmenter was built (and ICU's break rules
		// loaded) by every --help: 30-40 ms. Version 8 returns the length of printable ASCII first (its own
		// "Fast path"), which is exact for version 7 as well: after stripAnsi, each character of U+0020-U+007E is a
		// grapheme of its own, neither control, zero-width, mark, emoji (a keycap needs U+20E3) nor wide: width 1.
		occurs: [0, 1],
		text: "\tlet width = 0;\n\tconst eastAsianWidthOptions = {ambiguousAsWide: !ambiguousIsNarrow};\n\n\tfor (const {segment: character} of segmenter.segment(string)) {",
		lazy: "\tif (/^[\\u0020-\\u007E]*$/.test(string)) return string.length; let width = 0;\n\tconst eastAsianWidthOptions = {ambiguousAsWide: !ambiguousIsNarrow};\n\n\tfor (const {segment: character} of segmenter.segment(string)) {",
	},
];

/** Whether a module id is a copy of string-width (the package's entry). */
export function isStringWidth(id) {
	return /[\\/]node_modules[\\/]string-width[\\/]index\.js$/.test(id);
}

/** string-width's source with its Intl.Segmenter and RGI_Emoji expression built on first use (see DEFERRED). */
export function deferUnicodeTables(code, id) {
	let out = code;
	for (const { occurs, text, lazy } of DEFERRED) {
		const count = out.split(text).length - 1;
		if (!occurs.includes(count)) throw new Error(`lazy-unicode-tables: ${id}: expected ${occurs.join(" or ")} of \`${text}\`, found ${count}`);
		out = out.replace(text, lazy);
	}
	return out;
}

/** The rolldown plugin. */
export const lazyUnicodeTables = {
	name: "lazy-unicode-tables",
	transform(code, id) {
		// map null: the code keeps its lines (see above), so the module's own source map still holds.
		return isStringWidth(id) ? { code: deferUnicodeTables(code, id), map: null } : null;
	},
};
