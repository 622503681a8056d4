// Bundles the CLI (dist/cli/main.js and everything it imports but parquet-wasm) into dist/bundle/, run by
// `npm run build` after tsc. Node 20 has no compile cache, and resolving, reading and linking the ~400 ES modules
// of apache-arrow, yargs and zarrita one by one costs more start-up than loading one file.
// The library entry (dist/index.js) stays unbundled, so that its apache-arrow classes are the caller's.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
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

await build({
	// The decode threads' module is an entry of its own, beside the bundle, where off-thread.js looks for it. So is
	// the early start of those threads, which bin/ loads before the CLI: the modules both import are chunks they
	// share, so that the threads it starts are the ones the CLI's export uses.
	input: {
		"dt64-export": path.join(root, "dist", "cli", "main.js"),
		"decode-worker": path.join(root, "dist", "zarr", "codecs", "decode-worker.js"),
		"early-decode-threads": path.join(root, "dist", "cli", "early-decode-threads.js"),
	},
	platform: "node",
	// parquet-wasm finds its .wasm file beside its own module: it stays a package, loaded on first use.
	external: [/^parquet-wasm(\/|$)/],
	logLevel: "warn",
	plugins: [withTscSourceMaps, lazyUnicodeTables],
	output: {
		dir: outDir,
		format: "esm",
		entryFileNames: "[name].js",
		// ASCII only, without doc comments (the source maps hold the sources, comments included): Node decodes an
		// ASCII file on its fast path into a one-byte string, which V8 parses faster, where one character past ASCII
		// in a comment made the whole file a two-byte string. Loading the CLI 66 -> 62 ms, apache-arrow 28.5 -> 25.5.
		charset: "ascii",
		comments: { legal: true, annotation: false, jsdoc: false },
		sourcemap: true,
	},
});

// Files the bundled modules read beside themselves (`new URL("./name", import.meta.url)`), such as the decoders'
// WebAssembly, are copied from where tsc's output reads them; the build fails on one that cannot be found, rather
// than a CLI failing when it first needs it.
const dist = fs.readdirSync(path.join(root, "dist"), { recursive: true }).filter((file) => !file.startsWith(`bundle${path.sep}`));
const assets = dist.filter((file) => !file.endsWith(".js") && !file.endsWith(".map") && !file.endsWith(".d.ts"));
for (const chunk of fs.readdirSync(outDir).filter((file) => file.endsWith(".js"))) {
	for (const [, name] of fs.readFileSync(path.join(outDir, chunk), "utf8").matchAll(/new URL\("\.\/([^"]+)", import\.meta\.url\)/g)) {
		if (name.endsWith(".js")) continue;
		const found = assets.filter((file) => path.basename(file) === name);
		if (found.length !== 1) throw new Error(`bundle-cli: ${chunk} reads ${name} beside itself; dist/ holds ${found.length} files of that name`);
		fs.copyFileSync(path.join(root, "dist", found[0]), path.join(outDir, name));
	}
}
