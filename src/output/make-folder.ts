/**
 * `mkdir -p` that fails with the real reason. Node's recursive mkdir reports ENOENT when a folder cannot be created on
 * a read-only file system (it stats the folder after the failed mkdir and returns that error): an operator reading
 * "no such file or directory" for a folder that exists looks for a missing volume, not a read-only one (trial 19:
 * 04). The first folder that does not exist is then created alone, below the deepest one that does, which fails with
 * the system's own error (EROFS, EACCES).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** Creates `folder` and the folders above it that do not exist; the first one it created, as `fs.mkdirSync` says. */
export function makeFolder(folder: string): string | undefined {
	try {
		return fs.mkdirSync(folder, { recursive: true });
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
		throw realFailure(folder) ?? error;
	}
}

/** The error of creating the shallowest missing folder of `folder`'s path, if it fails otherwise than ENOENT. */
function realFailure(folder: string): Error | undefined {
	let missing = folder;
	for (let parent = path.dirname(missing); parent !== missing && !fs.existsSync(parent); parent = path.dirname(parent)) missing = parent;
	try {
		fs.mkdirSync(missing);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : (error as Error);
	}
	// Created after all (the cause went away meanwhile): put back as it was; the first error stands.
	try {
		fs.rmdirSync(missing);
	} catch {
		// Another run uses it now.
	}
	return undefined;
}
