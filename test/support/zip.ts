/**
 * Zip files of test stores: with the `zip` program when it is installed (deflated entries, as people make them),
 * and always with `writeStoredZip` (scripts/lib/stored-zip.mjs, which the bench scripts share), a minimal writer of STORED
 * (uncompressed) entries, so that the tests run on a machine with only Node.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

export const HAS_ZIP_PROGRAM = spawnSync("zip", ["-v"], { stdio: "ignore" }).status === 0;

export { writeStoredZip } from "../../scripts/lib/stored-zip.mjs";

/**
 * Zips `folder` with the `zip` program (deflate): from inside the folder, so the store is at the top, or from
 * its parent (`zip -r store.zip store.zarr`), so everything is under the folder's name.
 */
export function zipWithProgram(folder: string, zipFile: string, options: { fromParent?: boolean } = {}): void {
	const cwd = options.fromParent ? path.dirname(folder) : folder;
	const result = spawnSync("zip", ["-q", "-r", "-X", path.resolve(zipFile), options.fromParent ? path.basename(folder) : "."], { cwd, encoding: "utf8" });
	if (result.status !== 0) throw new Error(`zip failed: ${result.stderr}`);
}
