// Bundles the CLI (dist/cli/main.js and everything it imports but parquet-wasm and undici) into dist/bundle/, run by
// `npm run build` after tsc. Node 20 has no compile cache, and resolving, reading and linking the ~400 ES modules
// of apache-arrow, yargs and zarrita one by one costs more start-up than loading one file.
// The library entry (dist/index.js) stays unbundled, so that its apache-arrow classes are the caller's.
//
// The CLI's chunks are CommonJS (.cjs), each with a V8 code cache made here (<chunk>.v8cache), which
// bundle-loader.js (src/cli/bundle-loader.ts), the loader bin/ runs them with, gives V8 instead of compiling the
// chunk again: an ES module cannot be given a code cache on Node 20, a script can. The decode threads' module stays
// an ES module of its own (decode-worker.js), which the threads load by its file.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { codeCacheFile, compileChunk } from "../dist/cli/bundle-loader.js";
import { encodeCodeCache } from "../dist/cli/code-cache.js";
import { lazyUnicodeTables } from "./lib/lazy-unicode-tables.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outDir = path.join(root, "dist", "bundle");
fs.rmSync(outDir, { recursive: true, force: true });

/**
 * The bundle's source map leads back to src/*.ts, not to tsc's output: each module of dist/ is loaded with its
 * own map (which holds its TypeScript source, tsconfig `inlineSources`), and rolldown chains the two. Stacks
 * under DT64_DEBUG=1 then name src/ files and lines, which the maps carry even where src/ is not installed.
 */
const withTscSourceMaps = {
	name: "tsc-source-maps",
	load(id) {
		if (!id.startsWith(path.join(root, "dist") + path.sep) || !id.endsWith(".js") || !fs.existsSync(`${id}.map`)) return null;
		return { code: fs.readFileSync(id, "utf8"), map: fs.readFileSync(`${id}.map`, "utf8") };
	},
};

/**
 * A CommonJS chunk has no import.meta: each module's `import.meta.url` becomes the chunk's file URL, which the chunk
 * defines once (MODULE_URL, as long as the text it replaces, so that the line's columns and the source map hold).
 * yargs' `import.meta.resolve` (for a config's `extends`, which the CLI never gives it) becomes require.resolve.
 */
const MODULE_URL = "__dt64moduleURL";
const askingModuleUrl = new Set();
const withModuleUrl = {
	name: "module-url",
	transform(code, id) {
		if (!code.includes("import.meta")) return null;
		if (code.includes("import.meta.url")) askingModuleUrl.add(id);
		const out = code.replaceAll("import.meta.url", MODULE_URL).replaceAll("import.meta.resolve(", "require.resolve(");
		if (out.includes("import.meta")) throw new Error(`bundle-cli: a module uses import.meta otherwise than .url or .resolve(: ${out.slice(out.indexOf("import.meta"), out.indexOf("import.meta") + 40)}`);
		return { code: out, map: null };
	},
};

const output = {
	dir: outDir,
	// ASCII only, without doc comments (the source maps hold the sources, comments included): Node decodes an
	// ASCII file on its fast path into a one-byte string, which V8 parses faster, where one character past ASCII
	// in a comment made the whole file a two-byte string. Loading the CLI 66 -> 62 ms, apache-arrow 28.5 -> 25.5.
	charset: "ascii",
	comments: { legal: true, annotation: false, jsdoc: false },
	sourcemap: true,
};

await build({
	// The early start of the decode threads, which bin/ loads before the CLI, is an entry of its own: the modules
	// both import are chunks they share, so that the threads it starts are the ones the CLI's export uses.
	input: {
		"dt64-export": path.join(root, "dist", "cli", "main.js"),
		"early-decode-threads": path.join(root, "dist", "cli", "early-decode-threads.js"),
	},
	platform: "node",
	// parquet-wasm finds its .wasm file beside its own module: it stays a package, loaded on first use (by require,
	// as every dynamic import of the chunks: bundle-loader.js runs them as scripts, which have no import()). undici
	// too: loaded only when a proxy variable is set (src/store/proxy-fetch.ts), and its text is not ASCII.
	external: [/^parquet-wasm(\/|$)/, /^undici(\/|$)/],
	logLevel: "warn",
	plugins: [withTscSourceMaps, lazyUnicodeTables, withModuleUrl],
	output: {
		...output,
		format: "cjs",
		dynamicImportInCjs: false,
		entryFileNames: "[name].cjs",
		chunkFileNames: "[name]-[hash].cjs",
		// Strict as the ES modules it is made of; and the chunk's URL where one of its modules asks for it.
		banner: '"use strict";',
		intro: (chunk) => (chunk.moduleIds.some((id) => askingModuleUrl.has(id)) ? `const ${MODULE_URL} = require("node:url").pathToFileURL(__filename).href;` : ""),
	},
});

// ES modules: the decode threads' module, an entry of its own, beside the bundle, where off-thread.js looks for
// it; and the loader of the CommonJS chunks, which bin/ imports, so that the CLI is bin/ and dist/bundle/.
await build({
	input: {
		"decode-worker": path.join(root, "dist", "zarr", "codecs", "decode-worker.js"),
		"bundle-loader": path.join(root, "dist", "cli", "bundle-loader.js"),
	},
	platform: "node",
	logLevel: "warn",
	plugins: [withTscSourceMaps],
	output: { ...output, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
});

// Files the bundled modules read beside themselves (`new URL("./name", import.meta.url)`), such as the decoders'
// WebAssembly, are copied from where tsc's output reads them; the build fails on one that cannot be found, rather
// than a CLI failing when it first needs it.
const dist = fs.readdirSync(path.join(root, "dist"), { recursive: true }).filter((file) => !file.startsWith(`bundle${path.sep}`));
const assets = dist.filter((file) => !file.endsWith(".js") && !file.endsWith(".map") && !file.endsWith(".d.ts"));
for (const chunk of fs.readdirSync(outDir).filter((file) => file.endsWith(".js") || file.endsWith(".cjs"))) {
	for (const [, name] of fs.readFileSync(path.join(outDir, chunk), "utf8").matchAll(/new URL\("\.\/([^"]+)", (?:import\.meta\.url|__dt64moduleURL)\)/g)) {
		if (name.endsWith(".js")) continue;
		const found = assets.filter((file) => path.basename(file) === name);
		if (found.length !== 1) throw new Error(`bundle-cli: ${chunk} reads ${name} beside itself; dist/ holds ${found.length} files of that name`);
		fs.copyFileSync(path.join(root, "dist", found[0]), path.join(outDir, name));
	}
}

// The code cache of each CommonJS chunk, compiled as bundle-loader.js compiles it, by the Node that builds (a run on
// another Node, or another V8's flags, compiles the chunk from its source and writes its cache again, see there).
for (const chunk of fs.readdirSync(outDir).filter((file) => file.endsWith(".cjs"))) {
	const file = path.join(outDir, chunk);
	const bytes = fs.readFileSync(file);
	fs.writeFileSync(codeCacheFile(file), encodeCodeCache(bytes, compileChunk(file, bytes).createCachedData()));
}
