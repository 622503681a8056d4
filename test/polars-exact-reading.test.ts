/**
 * README (Quick start) tells an analyst how to read exported nanosecond times back from nodejs-polars (0.25) exactly:
 * a Datetime's toArray() gives JS Dates (milliseconds), an Int64's gives Numbers (rounded past 2^53, so every ns
 * time after 1970-04-15), and fillNull(0) on an Int64 column makes it Float64; cast to Int64 then Utf8 (or
 * toTypedArray() on a column without nulls) gives every digit. Checked here on an export of times one ns apart.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { runCli, tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
const work = tempDir("dt64-polars-exact-");

describe("nodejs-polars reading of exported ns times, as README says", () => {
	it("cast to Int64 then Utf8 is exact; toArray, toRecords and fillNull(0) are not", async () => {
		const first = 1_704_067_200_022_966_208n; // 2024-01-01T00:00:00.022966208
		const times = new BigInt64Array([first, first + 1n, NAT, first + 3n]);
		const store = path.join(work, "t.zarr");
		await writeArray(store, "", { shape: [4], chunks: [2], values: times, dataType: { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } } });
		const out = path.join(work, "t.arrow");
		const result = runCli([store, "--column", "t", "-o", out, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const df = pl.readIPC(fs.readFileSync(out));
		const exact = df.select(pl.col("t").cast(pl.Int64).cast(pl.Utf8)).getColumn("t").toArray();
		expect(exact).toEqual([String(first), String(first + 1n), null, String(first + 3n)]);
		const noNulls = df.filter(pl.col("t").isNotNull());
		expect(Array.from(noNulls.getColumn("t").cast(pl.Int64).toTypedArray() as BigInt64Array)).toEqual([first, first + 1n, first + 3n]);
		// The readings README warns of: milliseconds, rounded Numbers, a Float64 column.
		const dates = df.getColumn("t").toArray() as (Date | null)[];
		expect(dates[0]).toEqual(new Date("2024-01-01T00:00:00.022Z"));
		expect(dates[1]).toEqual(dates[0]);
		const numbers = df.getColumn("t").cast(pl.Int64).toArray() as (number | null)[];
		expect(typeof numbers[0]).toBe("number");
		expect(numbers[0]).toBe(numbers[1]);
		const filled = df.select(pl.col("t").cast(pl.Int64).fillNull(0)).getColumn("t");
		expect(String(filled.dtype)).toContain("Float64");
		expect((df.toRecords()[0] as Record<string, unknown>).t).toBeInstanceOf(Date);
	});
});
