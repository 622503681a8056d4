/**
 * vitest's globalSetup: refuses to run the tests on a build older than its sources. The CLI tests run `bin/`, which
 * runs the bundle in `dist/bundle/`, and the decode threads of library tests load `dist/`: after an edit of `src/`
 * without `npm run build`, they would test the previous build beside unit tests of the new code, and pass or fail
 * for the wrong reason. `npm test` builds first, so there the check only costs reading the sources' times.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** What the build is made from: every file under these (relative to the repository). */
export const BUILD_SOURCES: readonly string[] = ["src", "tsconfig.json"];

/** The file `npm run build` writes last (the CLI bundle's entry): the build's time. */
export const BUILD_STAMP = "dist/bundle/dt64-export.cjs";

/** The newest file under `entry` (a file or a folder), or undefined when there is none. */
function newestFile(entry: string): { file: string; mtimeMs: number } | undefined {
	const stat = fs.statSync(entry, { throwIfNoEntry: false });
	if (stat === undefined) return undefined;
	if (!stat.isDirectory()) return { file: entry, mtimeMs: stat.mtimeMs };
	let newest: { file: string; mtimeMs: number } | undefined;
	for (const name of fs.readdirSync(entry)) {
		const found = newestFile(path.join(entry, name));
		if (found !== undefined && (newest === undefined || found.mtimeMs > newest.mtimeMs)) newest = found;
	}
	return newest;
}

/** Why the build of the repository at `repo` cannot be tested (none, or older than a source), or undefined when it is current. */
export function staleBuildReason(repo: string): string | undefined {
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

export default function setup(): void {
	const reason = staleBuildReason(REPO);
	if (reason !== undefined) throw new Error(reason);
}
