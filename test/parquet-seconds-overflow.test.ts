/**
 * Seconds past int64 in milliseconds, exported to Parquet (which has no seconds unit and writes them as ms): the
 * refusal says so and advises Arrow IPC, which keeps them in seconds, not "a coarser --unit, s" that the data was
 * already in (trial 28, finding 03); a value no unit holds gets no such advice.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { runCli, tempDir } from "./support/cli.js";

const ADVICE = " (Arrow IPC keeps seconds: --to arrow; or --on-overflow null writes null instead) [OVERFLOW]\n";

describe("seconds past int64 in ms, to Parquet", () => {
	it("datetime64[s] (converted straight to ms) and CF seconds (converted to s, then scaled): --to arrow advised, and it keeps them", async () => {
		const work = tempDir();
		const seconds = path.join(work, "seconds.zarr");
		await writeArray(seconds, "", { shape: [2], chunks: [2], values: BigInt64Array.of(0n, 2n ** 62n) });
		const cf = path.join(work, "cf.zarr");
		await writeArray(cf, "", { shape: [2], chunks: [2], values: BigInt64Array.of(0n, 2n ** 62n), dataType: "int64", fillValue: 0, attributes: { units: "seconds since 2000-01-01", calendar: "proleptic_gregorian" } });
		for (const [store, unit] of [[seconds, "s"], [seconds, "auto"], [cf, "s"]] as const) {
			const result = runCli([store, "--unit", unit, "-o", path.join(work, "out.parquet")]);
			expect(result.stderr, `${store} ${unit}`).toMatch(/^dt64-export: value \d+ .* is outside the int64 range in unit ms \(Parquet has no seconds unit: seconds are written as milliseconds\)/);
			expect(result.stderr.endsWith(ADVICE), result.stderr).toBe(true);
			expect(result.status).toBe(1);
			expect(runCli([store, "--unit", unit, "-q", "-o", path.join(work, "out.arrow"), "-f"]).status).toBe(0);
		}
	});

	it("days no unit holds: only --on-overflow null", async () => {
		const work = tempDir();
		const days = path.join(work, "days.zarr");
		await writeArray(days, "", { shape: [1], chunks: [1], values: BigInt64Array.of(10n ** 15n), dataType: { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } } });
		const result = runCli([days, "--unit", "s", "-o", path.join(work, "out.parquet")]);
		expect(result.stderr).toMatch(/ \(use --on-overflow null to write null instead\) \[OVERFLOW\]\n$/);
	});
});
