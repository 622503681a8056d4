import * as fs from "node:fs";
import * as path from "node:path";
import { absolutePath } from "../absolute-path.js";
import { Dt64ExportError, systemErrorReason } from "../errors.js";
import { checkStoreLocation, localStorePath } from "../store/store-location.js";

/**
 * Refuses an output (or dataset folder) named by a URL: stores are read from s3://, gs://, http(s)://..., but output
 * is written to a local or mounted path only. Taken as a path, `s3://bucket/x` is the folder `s3:/bucket/x` beside
 * the process, written there while every message named the bucket (a batch job's container then lost it); an empty
 * name is refused too, before anything is read (it failed only once the whole export was written).
 */
export function checkLocalOutput(target: string): void {
	if (target === "") throw new Dt64ExportError("OUTPUT_INVALID", "the output path is empty", { path: target });
	const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(target)?.[1];
	if (scheme !== undefined) {
		throw new Dt64ExportError(
			"OUTPUT_INVALID",
			`${target} is a URL: output is written to a local or mounted path only (write it there, then copy it to ${scheme}:// with that store's own tool)`,
			{ path: target },
		);
	}
}

/**
 * The output a library call names, as an absolute path resolved when the call is made (after checkLocalOutput's
 * refusals): a relative path names the file or folder in the working folder of that moment, as fs.createWriteStream
 * resolves its path once, whatever a program embedding the library makes its working folder (`process.chdir`) while
 * the export runs (see absolutePath).
 */
export function absoluteOutput(target: string): string {
	checkLocalOutput(target);
	return absolutePath(target);
}

/**
 * What is at an output path (a file, a folder, a device), or undefined when nothing is. A path no output can be
 * created at is refused with OUTPUT_INVALID and the reason: a file where the path needs a folder
 * (`notes.txt/out.arrow`), a name too long, a loop of links, a folder it may not look into.
 */
export function statOutput(target: string): fs.Stats | undefined {
	checkLocalOutput(target);
	try {
		return fs.statSync(target, { throwIfNoEntry: false });
	} catch (error) {
		const reason = (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "a part of the path before it is a file, not a folder" : systemErrorReason(error as Error);
		throw new Dt64ExportError("OUTPUT_INVALID", `no output can be created at ${target}: ${reason}`, { path: target, cause: error });
	}
}

/**
 * The folder a new output file at `target` is created in, as the system resolves the path (its links followed),
 * or OUTPUT_INVALID when it does not exist. The path is read as the system reads it, not as path.resolve does:
 * `sub/../x.arrow` needs `sub` (resolved away, it seemed to name the current folder, and the export ran to fail at
 * the end), and `new.arrow/` names a folder, not a file in the current one.
 */
export function outputFolder(target: string): string {
	if (/[\\/]$/.test(target)) {
		throw new Dt64ExportError("OUTPUT_INVALID", `output folder does not exist: ${path.resolve(target)} (${target} ends in ${target.at(-1)}: it names a folder, not a file)`, { path: target });
	}
	const folder = path.dirname(target);
	try {
		return fs.realpathSync.native(folder);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw new Dt64ExportError("OUTPUT_INVALID", `no output can be created at ${target}: ${systemErrorReason(error as Error)}`, { path: target, cause: error });
		const missing = firstMissing(folder);
		return missingFolder(missing, missing === path.resolve(folder) ? undefined : target);
	}
}

/** The first folder of `folder`'s path, from its start, that does not exist (absolute). */
function firstMissing(folder: string): string {
	const names = folder.split(/[\\/]+/);
	for (let count = 1; count <= names.length; count++) {
		const prefix = names.slice(0, count).join(path.sep) || path.sep;
		if (!fs.existsSync(prefix)) return path.resolve(prefix);
	}
	return path.resolve(folder);
}

function missingFolder(folder: string, within: string | undefined): never {
	throw new Dt64ExportError("OUTPUT_INVALID", `output folder does not exist: ${folder}${within === undefined ? "" : ` (in ${within})`}`, { path: folder });
}

/** How many symbolic links are followed from an output path before the chain is said to be a loop (Linux's 40). */
const MAX_LINK_HOPS = 40;

/**
 * Where a symbolic link at `target` that leads to no file points in the end (following links to links), or
 * undefined when `target` is no symbolic link or leads to an existing file. An output named by such a link is the
 * file it points to, which does not exist yet.
 */
export function danglingLinkTarget(target: string): string | undefined {
	let current = path.resolve(target);
	for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
		const stat = fs.lstatSync(current, { throwIfNoEntry: false });
		if (stat === undefined) return hop === 0 ? undefined : current;
		if (!stat.isSymbolicLink()) return undefined;
		current = path.resolve(path.dirname(current), fs.readlinkSync(current));
	}
	throw new Dt64ExportError("OUTPUT_INVALID", `${target} is a loop of symbolic links`, { path: target });
}

/** `location` with every symbolic link of its existing part resolved; the rest (names not made yet) as given. */
function realLocation(location: string): string {
	const absolute = path.resolve(location);
	const missing: string[] = [];
	let existing = absolute;
	for (;;) {
		try {
			return path.join(fs.realpathSync(existing), ...missing);
		} catch {
			const parent = path.dirname(existing);
			if (parent === existing) return absolute;
			missing.unshift(path.basename(existing));
			existing = parent;
		}
	}
}

/**
 * Refuses an output (a file or a dataset folder) that is the local store being read or inside it: written there it
 * would replace the store's own files (`-o store.zarr/.zarray` with overwriting replaced the store's metadata), or
 * be read as part of the store by the next export. Remote stores and stdout cannot be such outputs.
 */
export function checkOutputOutsideStore(store: string, output: string): void {
	// The store's own refusals first (an empty store, -, a bad file: URL), as opening it would make them.
	checkStoreLocation(store);
	const storeLocation = localStorePath(store);
	if (storeLocation === undefined || output === "" || output === "-") return;
	const from = realLocation(storeLocation);
	const to = realLocation(output);
	if (to === from || to.startsWith(from + path.sep)) {
		throw new Dt64ExportError("OUTPUT_INVALID", `${output} is ${to === from ? "the store being read" : `inside the store being read (${storeLocation})`}: write the output elsewhere`, { path: output });
	}
}

