/**
 * vitest's globalSetup: refuses to run the tests on a build older than its sources (scripts/lib/stale-build.mjs,
 * which the differential campaign uses too). The CLI tests run `bin/`, which runs the bundle in `dist/bundle/`, and
 * the decode threads of library tests load `dist/`: after an edit of `src/` without `npm run build`, they would test
 * the previous build beside unit tests of the new code. `npm test` builds first, so there the check only costs
 * reading the sources' times.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { staleBuildReason } from "../../scripts/lib/stale-build.mjs";

export { BUILD_SOURCES, BUILD_STAMP, staleBuildReason } from "../../scripts/lib/stale-build.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export default function setup(): void {
	const reason = staleBuildReason(REPO);
	if (reason !== undefined) throw new Error(reason);
}
