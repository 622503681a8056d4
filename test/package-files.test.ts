/**
 * An app that uses the library, bundled with its dependencies into one file, as esbuild `--bundle --platform=node`
 * does: the package's run-time files (the decoders' WebAssembly, the decode threads' module, parquet-wasm's
 * WebAssembly) are left behind, and a CommonJS bundle has no import.meta.url. Every export that needs one of them
 * fails with PACKAGE_FILE_MISSING saying which file and what to do, whatever the store's codec or size: never a
 * corrupt chunk, a failed write or a raw TypeError (README "Bundling"). And the CLI, installed without one of the
 * files of its own bundle, says so in its one error line; so does the library installed with a damaged decoders'
 * file or without the decoders' module.
 *
 * The bundler is rolldown, which builds the CLI (esbuild is not a dependency). Its CommonJS output would give
 * import.meta.url a value where esbuild leaves it undefined: the CommonJS bundle is made with import.meta.url
 * defined as undefined, as esbuild's is. The bundled library is dist/ (`npm test` builds it first).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { build } from "rolldown";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { REPO, tempDir } from "./support/cli.js";

const work = tempDir("dt64-bundled-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 1, checksum: false } };
const STORES = {
	/** No codec past `bytes`: an export of it to Arrow needs none of the package's files. */
	plain: path.join(work, "plain.zarr"),
	/** 1,000 values: decoded on the calling thread (see small-array.ts). */
	smallZstd: path.join(work, "small-zstd.zarr"),
	/** Past 4 MiB: decoded on the decode threads. */
	bigZstd: path.join(work, "big-zstd.zarr"),
};

/** The app: one export, and what it ended with on stdout as JSON; `dist`: the library it imports. */
const app = (dist: string) => `import { Dt64ExportError, exportToFile } from ${JSON.stringify(path.join(dist, "index.js"))};
const [store, out] = process.argv.slice(2);
exportToFile(store, out, { overwrite: true }).then(
	() => console.log(JSON.stringify({ ok: true })),
	(error) => console.log(JSON.stringify({ dt64ExportError: error instanceof Dt64ExportError, name: error.name, code: error.code, path: error.path, message: error.message })),
);
`;

const ESM = path.join(work, "esm", "app.mjs");
const CJS = path.join(work, "cjs", "app.cjs");

/** What the app (bundled, or not) ended with, exporting `store` to `output` (its extension says the format). */
function runApp(bundle: string, store: string, output: string, threads?: string): Record<string, unknown> {
	const env: NodeJS.ProcessEnv = { ...process.env, DT64_DECODE_THREADS: threads };
	if (threads === undefined) delete env.DT64_DECODE_THREADS;
	const run = spawnSync(process.execPath, [bundle, store, path.join(work, output)], { encoding: "utf8", env });
	expect(run.stderr).toBe("");
	return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** What follows every message of PACKAGE_FILE_MISSING. */
const ADVICE =
	"dt64-export's modules were moved without the files they load, as a bundler does; mark dt64-export external in the bundler (esbuild --external:dt64-export or --packages=external, webpack externals) and ship node_modules/dt64-export with the app, or reinstall it if it was not bundled";
const DECODERS = "dt64-export's decoders.wasm (its zstd, lz4 and blosc decoders' WebAssembly)";
const WORKER = "dt64-export's decode-worker.js (the module of its zstd, lz4 and blosc decode threads)";
const PARQUET_WASM = "parquet-wasm's parquet_wasm_bg.wasm (the WebAssembly of dt64-export's Parquet writer)";

/** The refusal of a file not beside the bundle in `folder`. */
function notBeside(subject: string, folder: string, file: string) {
	const where = path.join(folder, file);
	return { dt64ExportError: true, name: "Dt64ExportError", code: "PACKAGE_FILE_MISSING", path: where, message: `${subject} is not beside its code at ${where}: ${ADVICE}` };
}

beforeAll(async () => {
	const values = (length: number) => BigInt64Array.from({ length }, (_, i) => 1_700_000_000n + BigInt(i));
	await writeArray(STORES.plain, "", { shape: [1000], chunks: [500], values: values(1000), codecs: [LE] });
	await writeArray(STORES.smallZstd, "", { shape: [1000], chunks: [500], values: values(1000), codecs: [LE, ZSTD] });
	await writeArray(STORES.bigZstd, "", { shape: [600_000], chunks: [100_000], values: values(600_000), codecs: [LE, ZSTD] });
	const entry = path.join(work, "app.mjs");
	fs.writeFileSync(entry, app(path.join(REPO, "dist")));
	await build({ input: entry, platform: "node", logLevel: "silent", output: { file: ESM, format: "esm", codeSplitting: false } });
	await build({ input: entry, platform: "node", logLevel: "silent", transform: { define: { "import.meta.url": "undefined" } }, output: { file: CJS, format: "cjs", codeSplitting: false } });
});

describe("the library bundled into an app as an ES module", () => {
	const folder = path.dirname(ESM);

	it("refuses Parquet: parquet-wasm cannot find its WebAssembly (no __dirname in an ES module); Arrow needs none", () => {
		expect(runApp(ESM, STORES.plain, "plain.arrow")).toEqual({ ok: true });
		const message = `${PARQUET_WASM} cannot be loaded beside parquet-wasm's code (__dirname is not defined): ${ADVICE}`;
		expect(runApp(ESM, STORES.plain, "plain.parquet")).toEqual({ dt64ExportError: true, name: "Dt64ExportError", code: "PACKAGE_FILE_MISSING", message });
	});

	it("refuses a zstd store, small or large, on the calling thread or the decode threads: the decoders' WebAssembly is not beside the bundle", () => {
		const refusal = notBeside(DECODERS, folder, "decoders.wasm");
		expect(runApp(ESM, STORES.smallZstd, "small.arrow")).toEqual(refusal);
		expect(runApp(ESM, STORES.smallZstd, "small.arrow", "2")).toEqual(refusal);
		expect(runApp(ESM, STORES.bigZstd, "big.arrow")).toEqual(refusal);
		expect(runApp(ESM, STORES.bigZstd, "big.parquet")).toEqual(refusal);
	});

	it("with the WebAssembly copied beside it, names the decode threads' module beside the bundle (not a path above it)", () => {
		const copied = path.join(work, "esm-with-wasm");
		fs.mkdirSync(copied, { recursive: true });
		fs.copyFileSync(ESM, path.join(copied, "app.mjs"));
		fs.copyFileSync(path.join(REPO, "dist", "zarr", "codecs", "wasm", "decoders.wasm"), path.join(copied, "decoders.wasm"));
		const refusal = notBeside(WORKER, copied, "decode-worker.js");
		expect(runApp(path.join(copied, "app.mjs"), STORES.bigZstd, "big.arrow")).toEqual(refusal);
		expect(runApp(path.join(copied, "app.mjs"), STORES.smallZstd, "small.arrow", "2")).toEqual(refusal);
		// Without threads, the WebAssembly is all the decoders need.
		expect(runApp(path.join(copied, "app.mjs"), STORES.smallZstd, "small.arrow", "0")).toEqual({ ok: true });
	});
});

describe("the library bundled into an app as CommonJS (import.meta.url undefined)", () => {
	it("refuses Parquet: parquet-wasm's WebAssembly is not beside the bundle; Arrow needs none", () => {
		expect(runApp(CJS, STORES.plain, "plain.arrow")).toEqual({ ok: true });
		const where = path.join(path.dirname(CJS), "parquet_wasm_bg.wasm");
		const message = `${PARQUET_WASM} cannot be loaded beside parquet-wasm's code (ENOENT: no such file or directory, open '${where}'): ${ADVICE}`;
		expect(runApp(CJS, STORES.plain, "plain.parquet")).toEqual({ dt64ExportError: true, name: "Dt64ExportError", code: "PACKAGE_FILE_MISSING", message });
	});

	it("refuses a zstd store, small or large, on either path, as a package file that cannot be located: not a corrupt chunk, not a TypeError", () => {
		const message = `${DECODERS} cannot be located: its code runs without a file URL of its own (import.meta.url is undefined, as in a CommonJS bundle): ${ADVICE}`;
		const refusal = { dt64ExportError: true, name: "Dt64ExportError", code: "PACKAGE_FILE_MISSING", message };
		expect(runApp(CJS, STORES.smallZstd, "small.arrow")).toEqual(refusal);
		expect(runApp(CJS, STORES.smallZstd, "small.arrow", "0")).toEqual(refusal);
		expect(runApp(CJS, STORES.smallZstd, "small.arrow", "2")).toEqual(refusal);
		expect(runApp(CJS, STORES.bigZstd, "big.arrow")).toEqual(refusal);
		expect(runApp(CJS, STORES.bigZstd, "big.parquet")).toEqual(refusal);
	});
});

describe("the CLI installed without its decode threads' module", () => {
	it("refuses a zstd store in its error line, not with a stack trace from starting the threads early", () => {
		const installed = path.join(work, "installed");
		fs.mkdirSync(path.join(installed, "dist"), { recursive: true });
		fs.cpSync(path.join(REPO, "bin"), path.join(installed, "bin"), { recursive: true });
		fs.cpSync(path.join(REPO, "dist", "bundle"), path.join(installed, "dist", "bundle"), { recursive: true });
		fs.copyFileSync(path.join(REPO, "package.json"), path.join(installed, "package.json"));
		fs.symlinkSync(path.join(REPO, "node_modules"), path.join(installed, "node_modules"));
		fs.rmSync(path.join(installed, "dist", "bundle", "decode-worker.js"));
		const env: NodeJS.ProcessEnv = { ...process.env };
		delete env.DT64_DECODE_THREADS;
		const output = path.join(work, "cli.arrow");
		const run = spawnSync(process.execPath, [path.join(installed, "bin", "dt64-export.js"), STORES.bigZstd, "-o", output], { encoding: "utf8", env });
		const refusal = notBeside(WORKER, path.join(installed, "dist", "bundle"), "decode-worker.js");
		expect([run.status, run.stderr]).toEqual([1, `dt64-export: ${refusal.message} [PACKAGE_FILE_MISSING]\n`]);
		expect(fs.existsSync(output)).toBe(false);
	});
});

describe("the library installed with a damaged decoders' file", () => {
	/** A copy of dist/ (the library's modules, unbundled) beside the repository's node_modules, changed by `damage`. */
	function installed(name: string, damage: (dist: string) => void): string {
		const root = path.join(work, name);
		fs.cpSync(path.join(REPO, "dist"), path.join(root, "dist"), { recursive: true, filter: (source) => path.relative(path.join(REPO, "dist"), source) !== "bundle" });
		fs.symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"));
		damage(path.join(root, "dist"));
		fs.writeFileSync(path.join(root, "app.mjs"), app(path.join(root, "dist")));
		return path.join(root, "app.mjs");
	}

	it("a decoders.wasm that is not WebAssembly: refused as the package's file, on the calling thread and on the decode threads, not as a corrupt chunk", () => {
		const wasm = path.join("zarr", "codecs", "wasm", "decoders.wasm");
		const entry = installed("truncated-wasm", (dist) => fs.writeFileSync(path.join(dist, wasm), "not WebAssembly"));
		const where = path.join(path.dirname(entry), "dist", wasm);
		for (const threads of ["0", "2"]) {
			const refusal = runApp(entry, STORES.smallZstd, "small.arrow", threads);
			expect([threads, refusal]).toMatchObject([threads, { dt64ExportError: true, code: "PACKAGE_FILE_MISSING", path: where }]);
			expect(refusal.message).toMatch(new RegExp(`^${literally(DECODERS)} cannot be loaded \\(WebAssembly\\.Module\\(\\): .*\\): ${literally(ADVICE)}$`));
		}
	});

	it("without the decoders' module: refused as the package's file, not as a corrupt chunk", () => {
		const entry = installed("no-decoder-module", (dist) => fs.rmSync(path.join(dist, "zarr", "codecs", "wasm", "decoder-module.js")));
		const refusal = runApp(entry, STORES.smallZstd, "small.arrow", "0");
		expect(refusal).toMatchObject({ dt64ExportError: true, code: "PACKAGE_FILE_MISSING" });
		expect(refusal.message).toMatch(new RegExp(`^dt64-export's decoder-module\\.js \\(the module of its zstd, lz4 and blosc decoders\\) cannot be loaded \\(Cannot find module .*decoder-module\\.js.*\\): ${literally(ADVICE)}$`));
	});
});

/** `text` matched as it is in a regular expression. */
function literally(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
