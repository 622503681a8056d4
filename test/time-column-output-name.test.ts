/**
 * `--time-column` (`timeColumn`) names the time column as the output names it too: after `--rename` or `--column`
 * the new name selects it, and a refusal lists each renamed column with its array's name.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { REPO, runCli, tempDir } from "./support/cli.js";

const work = tempDir("dt64-time-column-name-");
const store = path.join(REPO, "data/weather-station.zarr");

describe("--time-column by the output's name", () => {
	it("takes the name given by --column or --rename, as well as the array's", () => {
		const outputs = [
			["--column", "t", "--time-column", "t"],
			["--rename", "weather-station=t", "--time-column", "t"],
			["--rename", "weather-station=t", "--time-column", "weather-station"],
		].map((args, k) => {
			const out = path.join(work, `named-${k}.arrow`);
			const run = runCli([store, ...args, "--start", "2024-01-01", "--end", "2024-02-01", "-q", "-o", out]);
			expect(run.status, run.stderr).toBe(0);
			return tableFromIPC(fs.readFileSync(out));
		});
		const rows = outputs.map((table) => [...table.getChildAt(0)!].map(String));
		for (const table of outputs) expect(table.schema.fields.map((field) => field.name)).toEqual(["t"]);
		expect(rows[0].length).toBeGreaterThan(600);
		expect(rows[1]).toEqual(rows[0]);
		expect(rows[2]).toEqual(rows[0]);
	});

	it("a name that is no column is refused, listing the output's names with their arrays'", () => {
		const run = runCli([store, "--column", "t", "--start", "2024", "--time-column", "x", "-o", path.join(work, "x.arrow")]);
		expect(run.status).toBe(2);
		expect(run.stderr).toBe("dt64-export: --time-column x: no such column among t (array weather-station) [USAGE]\n");
	});
});
