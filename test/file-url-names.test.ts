/**
 * A `file:` URL is another spelling of a local path: the column and the default output file are named after the
 * folder it names, its percent-escapes decoded (trial 25, finding 01: `file:///…/with%20space.zarr` named the column
 * and the file `with%20space`, where the path `…/with space.zarr` names them `with space`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { REPO, readArrow, runCli, tempDir } from "./support/cli.js";

describe("a store named by a file: URL", () => {
	it("names the column and the default output as its path does (spaces, non-ASCII letters)", () => {
		const work = tempDir("dt64-fileurl-");
		for (const name of ["with space", "café"]) {
			const store = path.join(work, `${name}.zarr`);
			fs.cpSync(path.join(REPO, "data/weather-station.zarr"), store, { recursive: true });
			const url = pathToFileURL(store).href;
			expect(url).toContain("%");
			const result = runCli([url, "--to", "arrow", "-q"], { cwd: work });
			expect(result.stderr).toBe("");
			expect(result.status).toBe(0);
			expect(readArrow(path.join(work, `${name}.arrow`)).schema.fields[0].name).toBe(name);
		}
		expect(fs.readdirSync(work).filter((file) => file.endsWith(".arrow")).sort()).toEqual(["café.arrow", "with space.arrow"]);
	});
});
