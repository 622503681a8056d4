/**
 * `--unit s` means the same values whatever the output format: Parquet has no seconds unit and writes seconds as
 * milliseconds, but only after the values are whole seconds (a finer value is refused, with the message the Arrow
 * output gives, unless --allow-truncate floors it to the second). Golden stores: CF time written by xarray
 * (test/fixtures/cf) and numpy datetime64/timedelta64 arrays (test/fixtures/v2), with the values xarray and numpy
 * give; Parquet read back by DuckDB.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { secondsAsMillis } from "../src/convert/seconds-as-millis.js";
import { readRawInt64, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const work = tempDir("dt64-seconds-");
const query = useDuckDB();
const CF = JSON.parse(fs.readFileSync(path.join(REPO, "test/fixtures/cf/expected.json"), "utf8"));
const V2 = JSON.parse(fs.readFileSync(path.join(REPO, "test/fixtures/v2/expected.json"), "utf8")).arrays;
const msToNs = (values: (string | null)[]) => values.map((ms) => (ms === null ? null : String(BigInt(ms) * 1_000_000n)));
const floorDiv = (a: bigint, b: bigint) => a / b - (a % b < 0n ? 1n : 0n);

/** Stores with values finer than a second: the exact nanoseconds their producer gives, and how DuckDB reads the column. */
const CASES = [
	{ name: "CF time, xarray (float seconds since)", store: "test/fixtures/cf/float-seconds-quarters.zarr", args: ["--array", "time"], ns: CF["float-seconds-quarters"].instants, sql: (c: string) => `epoch_ms(${c})` },
	{ name: "CF time, xarray (int64 microseconds since)", store: "test/fixtures/cf/irregular-us.zarr", args: ["--array", "time"], ns: CF["irregular-us"].instants, sql: (c: string) => `epoch_ms(${c})` },
	{ name: "datetime64[ms]", store: "test/fixtures/v2/null-fill-complete.zarr", args: [], ns: msToNs(V2["null-fill-complete.zarr"].values), sql: (c: string) => `epoch_ms(${c})` },
	{ name: "timedelta64[ms], negative values", store: "test/fixtures/v2/timedelta-ms.zarr", args: [], ns: msToNs(V2["timedelta-ms.zarr"].values), sql: (c: string) => c },
] as const;

let counter = 0;
function run(store: string, args: string[], extension: "arrow" | "parquet") {
	const output = path.join(work, `${counter++}.${extension}`);
	return { output, ...runCli([path.join(REPO, store), ...args, "--column", "t", "--unit", "s", "-q", "-o", output]) };
}

describe("--unit s with Parquet output keeps the seconds' truncation rule", () => {
	it.each(CASES)("$name: refused as with Arrow output, floored to the second with --allow-truncate", async ({ store, args, ns, sql }) => {
		const arrow = run(store, args, "arrow");
		const parquet = run(store, args, "parquet");
		expect(arrow.status).toBe(1);
		expect(arrow.stderr).toMatch(/^dt64-export: value .* is not a whole number of s (: .*)?\(it would be floored to .*--round .*--allow-truncate/);
		expect(parquet.status).toBe(1);
		expect(parquet.stderr).toBe(arrow.stderr);
		expect(fs.existsSync(parquet.output)).toBe(false);

		const seconds = ns.map((v: string | null) => (v === null ? null : floorDiv(BigInt(v), 1_000_000_000n)));
		const floored = run(store, [...args, "--allow-truncate"], "arrow");
		expect(floored.status).toBe(0);
		expect(readRawInt64(floored.output)).toEqual(seconds);
		const flooredParquet = run(store, [...args, "--allow-truncate"], "parquet");
		expect(flooredParquet.status).toBe(0);
		const rows = await query(`SELECT (${sql("t")})::VARCHAR FROM read_parquet('${flooredParquet.output}')`);
		expect(rows.map(([v]) => v)).toEqual(seconds.map((s: bigint | null) => (s === null ? null : String(s * 1000n))));
	});
});

describe("secondsAsMillis", () => {
	const MAX_SECONDS = 9_223_372_036_854_775n;
	const converted = () => ({ unit: "s" as const, values: BigInt64Array.of(-1n, MAX_SECONDS, MAX_SECONDS + 1n, -MAX_SECONDS - 1n), validity: null, nullCount: 0 });

	it("multiplies exactly up to the int64 limit and refuses the first value past it, naming it", () => {
		expect(() => secondsAsMillis(converted(), { onOverflow: "error", describePosition: (i) => `row ${i + 10}` })).toThrow(
			expect.objectContaining({ code: "OVERFLOW", index: 2, message: expect.stringMatching(/^value 9223372036854776 s at row 12 is outside the int64 range in unit ms/) }),
		);
	});

	it("makes overflows null with onOverflow null, leaving nulls as they are", () => {
		const result = secondsAsMillis(converted(), { onOverflow: "null" });
		expect(result.unit).toBe("ms");
		expect(result.nullCount).toBe(2);
		expect(Array.from(result.validity!)).toEqual([0b0011]);
		expect(Array.from(result.values.subarray(0, 2))).toEqual([-1000n, MAX_SECONDS * 1000n]);
		const withNull = { unit: "s" as const, values: BigInt64Array.of(2n ** 62n, 3n), validity: Uint8Array.of(0b10), nullCount: 1 };
		const kept = secondsAsMillis(withNull, { onOverflow: "error" });
		expect(kept.nullCount).toBe(1);
		expect(kept.values[1]).toBe(3000n);
	});
});
