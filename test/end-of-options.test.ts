/**
 * `--` ends the options (POSIX Utility Syntax Guideline 10): a store named `-dash.zarr` after it is the store
 * (trial 25, finding 02: `-o d.arrow -- -dash.zarr` said "1 argument(s) missing"), and one written without it is
 * refused with the two ways to name it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";

describe("a store whose name starts with -", () => {
	it("is exported after --, and refused before it with the ways to name it", () => {
		const work = tempDir("dt64-dash-");
		fs.cpSync(path.join(REPO, "data/weather-station.zarr"), path.join(work, "-dash.zarr"), { recursive: true });
		expect(runCli(["-o", "d.arrow", "-q", "--", "-dash.zarr"], { cwd: work })).toMatchObject({ status: 0, stderr: "" });
		expect(readArrow(path.join(work, "d.arrow")).schema.fields.map((field) => field.name)).toEqual(["-dash"]);
		expect(runCli(["inspect", "--", "-dash.zarr"], { cwd: work })).toMatchObject({ status: 0, stderr: "" });
		expect(runCli(["-dash.zarr", "-o", "e.arrow"], { cwd: work })).toMatchObject({
			status: 2,
			stderr: "dt64-export: unknown option -d: to name the store -dash.zarr, write ./-dash.zarr, or put it after -- (see --help) [USAGE]\n",
		});
	});
});
