import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Dt64ExportError } from "./errors.js";
import { runtimeFailure } from "./runtime-support.js";

/**
 * The files this package loads at run time from beside its own modules: the decoders' WebAssembly and the decode
 * threads' module (and parquet-wasm's WebAssembly, beside parquet-wasm's glue). A bundler that copies the modules'
 * code into an app's bundle leaves these files behind, and in a CommonJS bundle `import.meta.url` is undefined, so
 * that nothing can be found beside the code at all. Each such file is located before it is first needed: a bundled
 * app then fails with one PACKAGE_FILE_MISSING error that says so, whatever its data (codec, size), instead of a
 * corrupt chunk, a failed write or a TypeError the first time a chunk needs the file.
 */

/** Why, and what to do about it: the package is to be loaded from its own folder, with its files. */
const MOVED_BY_A_BUNDLER =
	"dt64-export's modules were moved without the files they load, as a bundler does; mark dt64-export external in the bundler (esbuild --external:dt64-export or --packages=external, webpack externals) and ship node_modules/dt64-export with the app, or reinstall it if it was not bundled";

/**
 * The error for a run-time file that cannot be found or loaded: `subject` names it ("dt64-export's decoders.wasm
 * (...)"), `problem` says what is wrong, `where` is the path it was looked for at, when there is one. A `cause` that
 * says this Node cannot run WebAssembly (see runtimeFailure) is that error instead: the file is not missing.
 */
export function packageFileMissing(subject: string, problem: string, where?: string, cause?: unknown): Dt64ExportError {
	// The file is there, and this Node cannot run it (no WebAssembly, no address space for its memory): said so.
	const runtime = cause === undefined ? undefined : runtimeFailure(cause, subject);
	if (runtime !== undefined) return runtime;
	return new Dt64ExportError("PACKAGE_FILE_MISSING", `${subject} ${problem}: ${MOVED_BY_A_BUNDLER}`, { ...(where === undefined ? {} : { path: where }), ...(cause === undefined ? {} : { cause }) });
}

/**
 * The URL of a file beside a module of this package whose `import.meta.url` is `moduleUrl`, as `locate` resolves
 * it; refused when the module has no file URL (a CommonJS bundle) or nothing is there. `locate` is the module's
 * literal `() => new URL("./name", import.meta.url)`: the form scripts/bundle-cli.mjs (and webpack) find the file
 * by, to copy it beside a bundle.
 */
export function packageFile(subject: string, moduleUrl: string | undefined, locate: () => URL): URL {
	if (typeof moduleUrl !== "string" || !moduleUrl.startsWith("file:")) {
		throw packageFileMissing(subject, `cannot be located: its code runs without a file URL of its own (import.meta.url is ${String(moduleUrl)}, as in a CommonJS bundle)`);
	}
	const url = locate();
	const where = fileURLToPath(url);
	if (!existsSync(url)) throw packageFileMissing(subject, `is not beside its code at ${where}`, where);
	return url;
}
