/**
 * An export of a local store never loads Node's fetch implementation (its bundled undici, about 3 MiB of peak memory):
 * Node loads it on the first use of `fetch` or `Headers`, which only a remote store needs. The request options'
 * checks, which every export runs, build no Headers when there are none to check.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, tempDir } from "./support/cli.js";

const work = tempDir("dt64-no-fetch-");

describe("a local export leaves Node's fetch unloaded", () => {
	it("through the library, and through the CLI", () => {
		const store = path.join(REPO, "data/weather-station.zarr");
		const library = `
			const { exportToFile } = await import(${JSON.stringify(path.join(REPO, "dist/index.js"))});
			await exportToFile(${JSON.stringify(store)}, ${JSON.stringify(path.join(work, "lib.arrow"))}, { retries: 2, timeoutMs: 1000 });
			console.log(JSON.stringify(process.moduleLoadList.filter((name) => name.includes("undici"))));`;
		const run = spawnSync(process.execPath, ["--input-type=module", "-e", library], { encoding: "utf8" });
		expect(run.stderr).toBe("");
		expect(JSON.parse(run.stdout)).toEqual([]);
		// The CLI: the same list printed as the process exits.
		const hook = `process.on("exit", () => process.stderr.write("undici:" + JSON.stringify(process.moduleLoadList.filter((name) => name.includes("undici")))));`;
		const cli = spawnSync(process.execPath, ["--import", `data:text/javascript,${encodeURIComponent(hook)}`, path.join(REPO, "bin", "dt64-export.js"), store, "-q", "-o", path.join(work, "cli.arrow")], { encoding: "utf8" });
		expect(cli.status, cli.stderr).toBe(0);
		expect(cli.stderr).toBe("undici:[]");
	});
});
