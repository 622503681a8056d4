/**
 * Whether a repository's build (`dist/`) is older than its sources: vitest's globalSetup refuses to test such a build
 * (test/support/fresh-build.ts), and the differential campaign to pack it (scripts/differential/run.mjs). The CLI
 * runs the bundle in `dist/bundle/` and the decode threads load `dist/`: after an edit of `src/` without `npm run
 * build`, either would run the previous build, and pass or fail for the wrong reason.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** What the build is made from: every file under these (relative to the repository). */
export const BUILD_SOURCES = ["src", "tsconfig.json"];

/** The file `npm run build` writes last (the CLI bundle's entry): the build's time. */
export const BUILD_STAMP = "dist/bundle/dt64-export.cjs";

/**
 * The newest file under `entry` (a file or a folder), or undefined when there is none.
 * @param {string} entry
 * @returns {{ file: string, mtimeMs: number } | undefined}
 */
function newestFile(entry) {
	const stat = fs.statSync(entry, { throwIfNoEntry: false });
	if (stat === undefined) return undefined;
	if (!stat.isDirectory()) return { file: entry, mtimeMs: stat.mtimeMs };
	let newest;
	for (const name of fs.readdirSync(entry)) {
		const found = newestFile(path.join(entry, name));
		if (found !== undefined && (newest === undefined || found.mtimeMs > newest.mtimeMs)) newest = found;
	}
	return newest;
}

/**
 * Why the build of the repository at `repo` cannot be used (none, or older than a source), or undefined when it is current.
 * @param {string} repo
 * @returns {string | undefined}
 */
export function staleBuildReason(repo) {
	const built = fs.statSync(path.join(repo, BUILD_STAMP), { throwIfNoEntry: false });
	if (built === undefined) return `${BUILD_STAMP} does not exist: run \`npm run build\` (\`npm test\` builds, then tests)`;
	for (const source of BUILD_SOURCES) {
		const newest = newestFile(path.join(repo, source));
		if (newest !== undefined && newest.mtimeMs > built.mtimeMs) {
			return `dist/ is older than ${path.relative(repo, newest.file)}: the CLI tests and the decode threads would run the previous build; run \`npm run build\` (\`npm test\` builds, then tests)`;
		}
	}
	return undefined;
}
