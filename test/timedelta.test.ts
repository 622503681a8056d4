/**
 * numpy.timedelta64 end to end: Arrow Duration in IPC (see export.test.ts) and in Parquet, where it is an INT64
 * without a logical type whose Arrow type lives in the embedded ARROW:schema. Read back by DuckDB (BIGINT counts)
 * and polars (Duration, restored from ARROW:schema), with the conversion rules datetime64 follows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Duration, Field, makeData, RecordBatch, Schema, Struct, TimeUnit } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { ConversionError, toArrowTimestamps } from "../src/convert/to-arrow-timestamps.js";
import { parseDatetime64Type } from "../src/dtype/datetime64.js";
import { createParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import { FIXTURES, REPO, runCli, tempDir, TIMEDELTA_FIXTURE_CASES, TIMEDELTA_FIXTURE_NS, TIMEDELTA_PS_FIRST_NS } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const NAT = -(2n ** 63n);
const work = tempDir("dt64-timedelta-");
const query = useDuckDB();

let counter = 0;
const timedelta = (unit: string, scale = 1) => ({ name: "numpy.timedelta64", configuration: { unit, scale_factor: scale } });

function toParquet(store: string, extra: string[] = []): string {
	const out = path.join(work, `out${counter++}.parquet`);
	const result = runCli([store, "--to", "parquet", "-o", out, "-q", "--column", "d", ...extra]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return out;
}

async function duckdb(file: string): Promise<{ schema: unknown[]; values: (string | null)[] }> {
	const [schema] = await query(`SELECT type, logical_type, converted_type, duckdb_type FROM parquet_schema('${file}') WHERE name = 'd'`);
	const rows = await query(`SELECT d::VARCHAR FROM '${file}'`);
	return { schema, values: rows.map(([v]) => v as string | null) };
}

/** polars' reading: the Duration unit (from its printed schema: the JS dtype object always says ms) and the counts. */
function polars(file: string): { unit: string; values: (string | null)[] } {
	const df = pl.readParquet(fs.readFileSync(file));
	const unit = /duration\[([^\]]+)\]/.exec(df.toString())?.[1] ?? "none";
	return { unit, values: df.getColumn("d").cast(pl.Int64).cast(pl.Utf8).toArray() as (string | null)[] };
}

const DUCKDB_INT64 = ["INT64", null, null, "BIGINT"];

describe("zarr-python timedelta64 stores -> Parquet, read by DuckDB and polars", () => {
	const present = fs.existsSync(FIXTURES);
	if (!present) console.warn(`skipping zarr-python timedelta64 fixtures: ${FIXTURES} not found`);
	const inUnit = (divisor: bigint) => [...TIMEDELTA_FIXTURE_NS.map((v) => String(v / divisor)), null];
	const POLARS_UNIT = { ms: "ms", us: "μs", ns: "ns" } as const;
	for (const [name, unit, divisor] of TIMEDELTA_FIXTURE_CASES) {
		it.skipIf(!present)(name, async () => {
			const file = toParquet(path.join(FIXTURES, name));
			const expected = inUnit(divisor);
			expect(await duckdb(file)).toEqual({ schema: DUCKDB_INT64, values: expected });
			expect(polars(file)).toEqual({ unit: POLARS_UNIT[unit], values: expected });
		});
	}

	it.skipIf(!present)("timedelta64[ps].zarr with --allow-truncate: floored to ns (its 8760 h was wrapped by numpy when written)", async () => {
		const file = toParquet(path.join(FIXTURES, "timedelta64[ps].zarr"), ["--allow-truncate"]);
		const expected = [String(TIMEDELTA_PS_FIRST_NS), ...inUnit(1n).slice(1)];
		expect((await duckdb(file)).values).toEqual(expected);
		expect(polars(file)).toEqual({ unit: "ns", values: expected });
	});

	it.skipIf(!present)("DuckDB turns the counts into INTERVALs with to_milliseconds / to_microseconds", async () => {
		const file = toParquet(path.join(FIXTURES, "timedelta64[us].zarr"));
		const rows = await query(`SELECT to_microseconds(d)::VARCHAR FROM '${file}' LIMIT 3`);
		expect(rows).toEqual([["8760:00:00"], ["336:00:00"], ["72:00:00"]]);
	});
});

describe("timedelta64 in seconds -> Parquet milliseconds", () => {
	it("a v2 >m8[s] array: Duration(ms), values x 1000, NaT null", async () => {
		const file = toParquet(path.join(REPO, "test/fixtures/v2/timedelta-s-be.zarr"));
		const expected = JSON.parse(fs.readFileSync(path.join(REPO, "test/fixtures/v2/expected.json"), "utf8")).arrays["timedelta-s-be.zarr"];
		expect(expected.parquet_unit).toBe("ms");
		expect(await duckdb(file)).toEqual({ schema: DUCKDB_INT64, values: expected.parquet });
		expect(polars(file)).toEqual({ unit: "ms", values: expected.parquet });
	});

	it("a second count whose milliseconds overflow int64 is an error, or null with --on-overflow null", async () => {
		const root = path.join(work, `big${counter++}.zarr`);
		await writeArray(root, "", { shape: [3], chunks: [3], dataType: timedelta("s"), values: BigInt64Array.of(1n, 2n ** 62n, NAT) });
		const failed = runCli([root, "--to", "parquet", "-o", path.join(work, "never.parquet"), "-q"]);
		expect(failed.status).toBe(1);
		expect(failed.stderr).toMatch(/^dt64-export: .*4611686018427387904.*index 1.*\n$/);
		expect(fs.existsSync(path.join(work, "never.parquet"))).toBe(false);
		const file = toParquet(root, ["--on-overflow", "null"]);
		expect((await duckdb(file)).values).toEqual(["1000", null, null]);
	});

	it("the Parquet writer itself turns Duration(SECOND) batches into Duration(MILLISECOND)", async () => {
		const type = new Duration(TimeUnit.SECOND);
		const schema = new Schema([new Field("d", type, true)]);
		const column = makeData({ type, length: 3, nullCount: 1, nullBitmap: Uint8Array.of(0b101), data: BigInt64Array.of(-3n, 0n, 2n ** 40n) });
		const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 3, nullCount: 0, children: [column] }));
		const file = path.join(work, `writer${counter++}.parquet`);
		await pipeline(Readable.from([batch]), createParquetWriter(), fs.createWriteStream(file));
		expect(polars(file)).toEqual({ unit: "ms", values: ["-3000", null, String(2n ** 40n * 1000n)] });
		const overflow = makeData({ type, length: 1, nullCount: 0, data: BigInt64Array.of(2n ** 62n) });
		const tooBig = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 1, nullCount: 0, children: [overflow] }));
		const sink = fs.createWriteStream(path.join(work, "tooBig.parquet"));
		await expect(pipeline(Readable.from([tooBig]), createParquetWriter(), sink)).rejects.toThrow(
			'column "d": 4611686018427387904 s at row 0 overflows int64 in milliseconds (Parquet durations are written in ms, Parquet has no seconds unit)',
		);
		// The failed pipeline destroys the file stream before its file is open: it opens and closes it after, and the
		// file would otherwise appear while the test file's folders are being removed (ENOTEMPTY).
		if (!sink.closed) await new Promise((resolve) => sink.on("close", resolve));
	});
});

describe("timedelta64 follows the datetime64 conversion rules (core)", () => {
	const convert = (unit: string, counts: bigint[], options: { unit: "s" | "ms" | "us" | "ns"; allowTruncate?: boolean; onOverflow?: "error" | "null" }) =>
		toArrowTimestamps(BigInt64Array.from(counts), parseDatetime64Type(timedelta(unit)), { allowTruncate: false, onOverflow: "error", ...options });

	it("scale, unit and NaT -> null", () => {
		const out = convert("ms", [1n, -1n, NAT], { unit: "us" });
		expect(Array.from(out.values.subarray(0, 2))).toEqual([1000n, -1000n]);
		expect(out.nullCount).toBe(1);
		const tens = toArrowTimestamps(BigInt64Array.of(7n), parseDatetime64Type(timedelta("us", 10)), { unit: "ns", allowTruncate: false, onOverflow: "error" });
		expect(tens.values[0]).toBe(70_000n);
	});

	it("truncation is an error naming the value, or floors (-1500 ps -> -2 ns) with allowTruncate", () => {
		expect(() => convert("ps", [1500n], { unit: "ns" })).toThrow(ConversionError);
		expect(() => convert("ps", [1500n], { unit: "ns" })).toThrow(/1500/);
		expect(Array.from(convert("ps", [-1500n, 1500n], { unit: "ns", allowTruncate: true }).values)).toEqual([-2n, 1n]);
	});

	it("overflow is an error, or null with onOverflow null; never a wrapped value", () => {
		expect(() => convert("D", [10n ** 15n], { unit: "ns" })).toThrow(ConversionError);
		const out = convert("D", [10n ** 15n, 1n], { unit: "ns", onOverflow: "null" });
		expect(out.nullCount).toBe(1);
		expect(out.values[1]).toBe(86_400_000_000_000n);
	});
});
