import * as path from "node:path";

/**
 * `target` as an absolute path naming what it names from the working folder now, as the system reads it: the working
 * folder put before a relative path, nothing else changed. Not path.resolve, which removes `..` by the text: the
 * system needs `sub` to go up from `sub/..`, and `link/..` is the parent of the folder the link leads to. A program
 * embedding the library may change its working folder (`process.chdir`) while an export runs: paths made absolute
 * this way when the call is made still name what they named then.
 */
export function absolutePath(target: string): string {
	return path.isAbsolute(target) ? target : `${process.cwd()}${path.sep}${target}`;
}
