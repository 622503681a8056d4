/**
 * A shell left in a folder that was removed (a CI step's temporary folder, a cleaned cron folder) still exports
 * with absolute paths, and a relative one is refused as such (trial 25, finding 17: every command failed with
 * `ENOENT: no such file or directory, uv_cwd [INTERNAL]`, yargs asking for the working folder before parsing).
 * The CLI runs as installed, from a node_modules folder (from elsewhere yargs' own start-up asks for it too).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tempDir } from "./support/cli.js";

describe("a working folder that was removed", () => {
	it("absolute paths export; a relative one is USAGE saying why", () => {
		const work = tempDir("dt64-gone-cwd-");
		const installed = path.join(work, "node_modules/dt64-export");
		fs.mkdirSync(installed, { recursive: true });
		for (const name of ["bin", "dist", "package.json"]) fs.cpSync(path.join(REPO, name), path.join(installed, name), { recursive: true });
		fs.symlinkSync(path.join(REPO, "node_modules"), path.join(installed, "node_modules"));
		const store = path.join(REPO, "data/weather-station.zarr");
		const run = (args: string[]) => {
			const gone = path.join(work, "gone");
			fs.mkdirSync(gone);
			const command = [process.execPath, path.join(installed, "bin/dt64-export.js"), ...args].map((word) => `'${word}'`).join(" ");
			const result = spawnSync("/bin/sh", ["-c", `cd '${gone}' && rmdir '${gone}' && exec ${command}`]);
			return { status: result.status, stderr: result.stderr.toString() };
		};
		expect(run([store, "-q", "-o", path.join(work, "a.arrow")])).toEqual({ status: 0, stderr: "" });
		expect(run([store, "-q", "--partition-by", "year", "-o", path.join(work, "ds")])).toEqual({ status: 0, stderr: "" });
		expect(fs.existsSync(path.join(work, "ds/_SUCCESS"))).toBe(true);
		for (const args of [[store, "-q", "-o", "rel.arrow"], ["rel.zarr", "-o", path.join(work, "b.arrow")]]) {
			expect(run(args)).toEqual({
				status: 2,
				stderr:
					"dt64-export: the working folder no longer exists (it was removed while this shell was in it), so a relative path names nothing: cd to a folder that exists, or give absolute paths [USAGE]\n",
			});
		}
	});
});
