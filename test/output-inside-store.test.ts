/**
 * An output is never written into the local store being read (new-user trial: `-o store.zarr/.zarray --force`
 * replaced the store's metadata with the Arrow file, and the store could not be read again). Refused before
 * anything is read, from the CLI and the library, through links too; outputs beside the store are fine.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { exportDataset, exportToFile } from "../src/index.js";
import { REPO, runCli, tempDir } from "./support/cli.js";

function copyOfStore(): { work: string; store: string; metadata: string } {
	const work = tempDir("dt64-inside-");
	const store = path.join(work, "weather.zarr");
	fs.cpSync(path.join(REPO, "data/weather-station.zarr"), store, { recursive: true });
	return { work, store, metadata: fs.readFileSync(path.join(store, "zarr.json"), "utf8") };
}

describe("an output inside the store being read", () => {
	it("CLI: a file of the store, a new file or dataset inside it, the store itself, through a link: refused, the store intact", () => {
		const { work, store, metadata } = copyOfStore();
		fs.symlinkSync(store, path.join(work, "link"));
		for (const [output, extra, said] of [
			["weather.zarr/zarr.json", ["--to", "arrow", "--force"], "weather.zarr/zarr.json is inside the store being read (weather.zarr)"],
			["weather.zarr/new/t.arrow", [], "weather.zarr/new/t.arrow is inside the store being read (weather.zarr)"],
			["link/t.arrow", [], "link/t.arrow is inside the store being read (weather.zarr)"],
			["weather.zarr", ["--to", "arrow", "--force"], "weather.zarr is the store being read"],
			["weather.zarr/ds", ["--partition-by", "year"], "weather.zarr/ds is inside the store being read (weather.zarr)"],
		] as const) {
			const result = runCli(["weather.zarr", "-o", output, "-q", ...extra], { cwd: work });
			expect(result.stderr, output).toBe(`dt64-export: ${said}: write the output elsewhere [OUTPUT_INVALID]\n`);
			expect(result.status).toBe(1);
		}
		expect(fs.readFileSync(path.join(store, "zarr.json"), "utf8")).toBe(metadata);
		expect(fs.existsSync(path.join(store, "new"))).toBe(false);
		expect(fs.existsSync(path.join(store, "ds"))).toBe(false);
		// Beside it, and a name that only starts like it: written.
		expect(runCli(["weather.zarr", "-o", "weather.zarr.arrow", "-q"], { cwd: work }).status).toBe(0);
	});

	it("library: exportToFile and exportDataset refuse it, for a path and a file: URL of the store", async () => {
		const { store, metadata } = copyOfStore();
		for (const location of [store, pathToFileURL(store).href]) {
			await expect(exportToFile(location, path.join(store, "zarr.json"), { overwrite: true, format: "arrow" })).rejects.toMatchObject({ code: "OUTPUT_INVALID", path: path.join(store, "zarr.json") });
			await expect(exportDataset(location, path.join(store, "ds"), { partitionBy: "year" })).rejects.toMatchObject({ code: "OUTPUT_INVALID" });
		}
		expect(fs.readFileSync(path.join(store, "zarr.json"), "utf8")).toBe(metadata);
		expect(fs.existsSync(path.join(store, "ds"))).toBe(false);
	});
});
