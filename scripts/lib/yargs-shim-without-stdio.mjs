// The CLI bundle's start without yargs making the process's stdout and stderr streams. yargs' platform shim reads
// `process.stdout.columns` when its module is evaluated (the help's default width, which the CLI sets itself) and
// imports node:assert, whose loading reads `process.stderr` (for its colours): each stream is made on that first use,
// 1-3 ms of the CLI's start when it is a pipe, as the bench's and most scripts' are (issue 15), before an export has
// read its first chunk. Neither stream is needed unless something is written to it.
//
// The rewrite keeps the shim's behaviour: stdout's columns are read only when stdout is a terminal (a stream that is
// not one has no columns, so the value is the same), and its two assertions check first and load node:assert only to
// throw its own error, which they then throw as before (notStrictEqual fails when Object.is holds, strictEqual when
// it does not; fewer than two arguments are node:assert's error, as before). Each expected text must be found exactly
// once, so that another version of yargs fails the build instead of silently starting slower (test/cli-bundle.test.ts
// checks the bundle). Each replacement is one line, as the text it replaces, so the source map holds.

const REWRITES = [
	{
		text: "import { notStrictEqual, strictEqual } from 'assert'",
		lazy: "import { isatty } from 'node:tty'",
	},
	{
		text: "    notStrictEqual,\n    strictEqual\n",
		lazy:
			"    notStrictEqual: (...args) => { if (args.length < 2 || Object.is(args[0], args[1])) require('node:assert').notStrictEqual(...args) },\n" +
			"    strictEqual: (...args) => { if (args.length < 2 || !Object.is(args[0], args[1])) require('node:assert').strictEqual(...args) }\n",
	},
	{
		text: "    stdColumns: typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
		lazy: "    stdColumns: isatty(1) && typeof process.stdout.columns !== 'undefined' ? process.stdout.columns : null",
	},
];

/** Whether a module id is yargs' platform shim for Node. */
export function isYargsShim(id) {
	return /[\\/]node_modules[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/.test(id);
}

/** The shim's source with stdout and stderr left alone until something is written to them (see REWRITES). */
export function leaveStdioAlone(code, id) {
	let out = code;
	for (const { text, lazy } of REWRITES) {
		const count = out.split(text).length - 1;
		if (count !== 1) throw new Error(`yargs-shim-without-stdio: ${id}: expected 1 of \`${text}\`, found ${count}`);
		out = out.replace(text, lazy);
	}
	return out;
}

/** The rolldown plugin. */
export const yargsShimWithoutStdio = {
	name: "yargs-shim-without-stdio",
	transform(code, id) {
		// map null: the code keeps its lines (see above), so the module's own source map still holds.
		return isYargsShim(id) ? { code: leaveStdioAlone(code, id), map: null } : null;
	},
};
