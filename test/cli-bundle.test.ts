/**
 * The CLI bundle (scripts/bundle-cli.mjs) starts without the Unicode tables of yargs' help layout: string-width's
 * Intl.Segmenter and /^\p{RGI_Emoji}$/v are built on first use (scripts/lib/lazy-unicode-tables.mjs), which took
 * 50 ms off every run. Checked here: the bundle holds no such thing built at load, and the rewritten string-width
 * measures every kind of text exactly as the original does. And no module of apache-arrow is among the modules the
 * CLI starts with: the export's stages load it while the first chunks are read and decoded (35 ms of module
 * evaluation that was on the way to the first chunk when a CF module imported an Arrow field type).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a build script in JavaScript, without types
import { deferUnicodeTables, isStringWidth } from "../scripts/lib/lazy-unicode-tables.mjs";
import { tempDir } from "./support/cli.js";

const REPO = path.resolve(import.meta.dirname, "..");
const BUNDLE = path.join(REPO, "dist", "bundle", "dt64-export.cjs");

/** Every copy of string-width that yargs, cliui and wrap-ansi import. */
function stringWidthCopies(): string[] {
	const copies: string[] = [];
	const visit = (dir: string) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			if (!entry.isDirectory()) continue;
			const inner = path.join(dir, entry.name);
			if (entry.name === "string-width" && fs.existsSync(path.join(inner, "index.js"))) copies.push(path.join(inner, "index.js"));
			else if (entry.name === "node_modules" || dir.endsWith("node_modules")) visit(inner);
		}
	};
	visit(path.join(REPO, "node_modules"));
	return copies;
}

/** Text of each kind string-width treats apart: ASCII, ANSI colours, wide CJK, emoji of each form, marks, jamo. */
const SAMPLES = [
	"",
	"plain ASCII text",
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~ #0 *9",
	"\u001b[31mred\u001b[39m and \u001b[1mbold\u001b[22m",
	"古池や蛙飛び込む水の音",
	"ｈａｌｆ／ｆｕｌｌ ﾊﾝｶｸ",
	"👍",
	"👍🏽",
	"🇫🇷🇯🇵",
	"👨‍👩‍👧‍👦",
	"❤️ vs ❤",
	"1\u20e3 #\u20e3",
	"e\u0301 a\u0308 \u0915\u093f",
	"한국어 \u1100\u1161\u11a8 \u1100\u1100\u1161",
	"zero\u200bwidth\u00ad soft",
	"tab\tand\u0007bell",
];

describe("the CLI bundle's start-up", () => {
	it("builds no Intl.Segmenter and no RGI_Emoji expression when it loads", () => {
		const bundle = fs.readFileSync(BUNDLE, "utf8");
		expect(bundle).not.toMatch(/\/\^\\p\{RGI_Emoji\}\$\/v/);
		expect(bundle.match(/new RegExp\("\^\\\\p\{RGI_Emoji\}\$", "v"\)/g)).toHaveLength(1);
		const segmenters = bundle.match(/.{0,20}new Intl\.Segmenter\(\)/g) ?? [];
		expect(segmenters.length).toBeGreaterThan(0);
		for (const built of segmenters) expect(built).toMatch(/\?\?= new Intl\.Segmenter\(\)$/);
	});

	it("builds no Intl.Segmenter for --help, whose text is ASCII (string-width 7 segmented every text)", () => {
		const work = tempDir("dt64-help-segmenter-");
		const watch = path.join(work, "watch-segmenter.mjs");
		fs.writeFileSync(watch, 'const Built = Intl.Segmenter;\nIntl.Segmenter = class extends Built { constructor(...args) { super(...args); process.stderr.write("Intl.Segmenter built\\n"); } };\n');
		for (const args of [["--help"], ["inspect", "--help"], ["commit", "--help"], ["--no-such-option"]]) {
			const run = spawnSync(process.execPath, ["--import", pathToFileURL(watch).href, path.join(REPO, "bin", "dt64-export.js"), ...args], { encoding: "utf8" });
			expect([args, run.stdout.length + run.stderr.length]).not.toEqual([args, 0]);
			expect([args, run.stderr]).not.toEqual([args, expect.stringContaining("Intl.Segmenter built")]);
		}
	});

	it("finds every copy of string-width as the bundler names it", () => {
		const copies = stringWidthCopies();
		expect(copies.length).toBeGreaterThan(0);
		for (const copy of copies) expect(isStringWidth(copy)).toBe(true);
		expect(isStringWidth(path.join(REPO, "node_modules", "string-width-cjs", "index.js"))).toBe(false);
	});

	it("measures text exactly as string-width does, each copy", async () => {
		const work = tempDir("dt64-lazy-width-");
		for (const [k, copy] of stringWidthCopies().entries()) {
			const original = (await import(pathToFileURL(copy).href)).default as (text: string) => number;
			// The rewritten module, its imports resolved from where the original lies.
			const require = createRequire(copy);
			const source = deferUnicodeTables(fs.readFileSync(copy, "utf8"), copy).replace(/from '([^'.][^']*)'/g, (_: string, spec: string) => `from '${pathToFileURL(require.resolve(spec)).href}'`);
			const file = path.join(work, `string-width-${k}.mjs`);
			fs.writeFileSync(file, source);
			const rewritten = (await import(pathToFileURL(file).href)).default as (text: string) => number;
			for (const text of SAMPLES) expect([copy, text, rewritten(text)]).toEqual([copy, text, original(text)]);
		}
	});

	it("refuses a string-width whose load-time tables it does not recognise", () => {
		expect(() => deferUnicodeTables("const segmenter = new Intl.Segmenter({granularity: 'grapheme'});", "x/string-width/index.js")).toThrow(
			/expected 1 of `const segmenter = new Intl.Segmenter\(\);`, found 0/,
		);
	});
});

/** The bundle's files that `entry` requires when it loads (a top-level require), itself included, transitively. */
function staticImports(entry: string): string[] {
	const seen = new Set<string>();
	const pending = [entry];
	while (pending.length > 0) {
		const file = pending.pop() as string;
		if (seen.has(file)) continue;
		seen.add(file);
		const text = fs.readFileSync(path.join(path.dirname(BUNDLE), file), "utf8");
		for (const match of text.matchAll(/^(?:const|let|var) [\w$]+ = require\("\.\/([^"]+)"\);$|^require\("\.\/([^"]+)"\);$/gm)) pending.push(match[1] ?? match[2]);
	}
	return [...seen];
}

describe("the CLI bundle's modules", () => {
	it("loads apache-arrow only with the export's stages, not at start", () => {
		// Any module of apache-arrow (the bundler names each in a comment): its data types too, which a module the CLI
		// starts with once imported for a field metadata key (31 ms of --version, --help and inspect: loaded, run).
		const holdsArrow = (file: string) => /^\/\/ node_modules\/apache-arrow\//m.test(fs.readFileSync(path.join(path.dirname(BUNDLE), file), "utf8"));
		const atStart = [...new Set([...staticImports("early-decode-threads.cjs"), ...staticImports(path.basename(BUNDLE))])];
		expect(atStart.length).toBeGreaterThan(3);
		expect(atStart.filter(holdsArrow)).toEqual([]);
		// The marker is apache-arrow's: some file of the bundle holds it, RecordBatchWriter's among them.
		const withArrow = fs.readdirSync(path.dirname(BUNDLE)).filter((file) => file.endsWith(".cjs") && holdsArrow(file));
		expect(withArrow.some((file) => fs.readFileSync(path.join(path.dirname(BUNDLE), file), "utf8").includes("RecordBatchWriter = class"))).toBe(true);
	});
});

describe("what the CLI loads at start", () => {
	const bundleFile = (file: string) => fs.readFileSync(path.join(path.dirname(BUNDLE), file), "utf8");
	const atStart = [...new Set([...staticImports("early-decode-threads.cjs"), ...staticImports(path.basename(BUNDLE))])];

	it("imports neither node:http, node:crypto nor node:zlib: each is loaded where it is first needed", () => {
		const builtins = new Set(atStart.flatMap((file) => [...bundleFile(file).matchAll(/^(?:const|let|var) [\w$]+ = require\("(node:[^"]+)"\);$/gm)].map((match) => match[1])));
		expect(builtins).toContain("node:worker_threads");
		for (const late of ["node:http", "node:https", "node:crypto", "node:zlib"]) expect(builtins).not.toContain(late);
	});

	it("starts the decode threads from a module of their own, whose threads are the CLI's", () => {
		const bin = fs.readFileSync(path.join(REPO, "bin", "dt64-export.js"), "utf8");
		expect(bin.indexOf('bundle.require("early-decode-threads.cjs")')).toBeGreaterThan(0);
		expect(bin.indexOf('bundle.require("early-decode-threads.cjs")')).toBeLessThan(bin.indexOf('bundle.require("dt64-export.cjs")'));
		// One DecoderPool in the whole bundle, in a chunk both entries import: one pool of threads per process.
		const pools = fs.readdirSync(path.dirname(BUNDLE)).filter((file) => /\.c?js$/.test(file) && /\bDecoderPool = class\b/.test(bundleFile(file)));
		expect(pools).toHaveLength(1);
		expect(staticImports("early-decode-threads.cjs")).toContain(pools[0]);
		expect(staticImports(path.basename(BUNDLE))).toContain(pools[0]);
		// Small: neither yargs nor the export's modules come with it.
		const early = staticImports("early-decode-threads.cjs");
		expect(early.reduce((bytes, file) => bytes + bundleFile(file).length, 0)).toBeLessThan(64 * 1024);
		expect(early).not.toContain(path.basename(BUNDLE));
	});
});

describe("the bundle's text", () => {
	it("is ASCII only, every file: Node then reads each as a one-byte string", () => {
		const files = fs.readdirSync(path.dirname(BUNDLE)).filter((file) => /\.c?js$/.test(file));
		expect(files.length).toBeGreaterThan(5);
		for (const file of files) expect([file, /[^\x00-\x7f]/.test(fs.readFileSync(path.join(path.dirname(BUNDLE), file), "utf8"))]).toEqual([file, false]);
	});
});
