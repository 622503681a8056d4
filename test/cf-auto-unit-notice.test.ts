/**
 * The notice of `--unit auto`'s unit for float CF counts before 1678 (cli/cf-auto-unit-notice.ts) is said when the
 * export is planned, before anything is written (leftovers 11, from trial 32): it said "wrote us" even when the export
 * then failed (a 360_day date of 2300-02-30 without --drop-invalid-dates, VALUE_INVALID) and wrote nothing. It says
 * what the export takes; the summary line alone says what was written.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { runCli, tempDir } from "./support/cli.js";

const work = tempDir("dt64-auto-unit-notice-");

/** Float days since 1600 of the 360_day calendar (fractions finer than a ns, so auto's unit is us): 1600-01-01 and `last`. */
async function store(name: string, last: number): Promise<string> {
	const at = path.join(work, `${name}.zarr`);
	await writeArray(at, "", { shape: [2], chunks: [2], values: Float64Array.from([0.1, last]), dataType: "float64", fillValue: 0, attributes: { units: "days since 1600-01-01", calendar: "360_day" } });
	return at;
}

const notice = (column: string, how: string) =>
	`dt64-export: ${column}: --unit auto takes us, the finest unit that holds every value's date (ns, which its values' fractions ask for, does not: ns spans 1677-09-21 to 2262-04-11); values that are not a whole number of us are ${how}\n`;

describe("--unit auto's notice before a float CF export before 1678", () => {
	it("a refusal met after the notice (2300-02-30 of 360_day) leaves no word of anything written, and no file", async () => {
		// 700 years of 360 days, then 59 days and a fraction: 2300-02-30.
		const at = await store("invalid", 252_059.1);
		const output = path.join(work, "never.arrow");
		const result = runCli([at, "--convert-calendar", "--allow-truncate", "-o", output]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: invalid: --unit auto takes us, .*\n.*is the date 2300-02-30 of the 360_day calendar.*\[VALUE_INVALID\]\n$/);
		expect(result.stderr).not.toContain("wrote");
		expect(fs.existsSync(output)).toBe(false);
	});

	it("an export that succeeds says the same notice, then what it wrote", async () => {
		const at = await store("valid", 252_057.1);
		const output = path.join(work, "valid.arrow");
		const result = runCli([at, "--convert-calendar", "--allow-truncate", "-o", output]);
		expect(result.stderr).toBe(`${notice("valid", "floored (--allow-truncate)")}wrote 2 rows to ${output}\n`);
		expect(result.status).toBe(0);
	});
});
