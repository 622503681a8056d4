/**
 * The CF core, used alone through the package's API as the README shows it, decodes what the exports decode: an
 * int64 count of -2^63 (numpy's NaT, which xarray writes for NaT without a `_FillValue`) is null, as in every export.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cfMissingValueMarkers, decodeCfTimes, exportTable, isMissingValue, parseCfTimeCoding } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";

const NAT = -(2n ** 63n);

describe("the CF core's missing values are the exports'", () => {
	it("int64 NaT is missing, and decodes to null", () => {
		const coding = parseCfTimeCoding({ units: "hours since 2000-01-01" }, {});
		const markers = cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: {}, fillValue: null });
		expect(isMissingValue(markers, NAT)).toBe(true);
		const decoded = decodeCfTimes(new BigInt64Array([0n, NAT, 5n]), coding, markers, { unit: "s", onOverflow: "error", dataType: "int64" });
		expect(decoded.nullCount).toBe(1);
		expect([0, 1, 2].map((i) => (decoded.validity![i >> 3] >> (i & 7)) & 1)).toEqual([1, 0, 1]);
		expect([decoded.values[0], decoded.values[2]]).toEqual([946684800n, 946684800n + 5n * 3600n]);
	});

	it("only in int64: in narrower integers -2^63 is no value, and a float count of it is an instant", () => {
		expect(cfMissingValueMarkers({ zarrFormat: 3, dataType: "int32", attributes: {}, fillValue: null }).integers.size).toBe(0);
		expect(isMissingValue(cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null }), -(2 ** 63))).toBe(false);
	});

	it("the export of xarray's int64 store with NaT gives the same nulls", async () => {
		const store = path.join(REPO, "test/fixtures/cf/nat-int64-hours.zarr");
		const table = await exportedArrow((sink) => exportTable(store, sink, { array: "time", format: "arrow", unit: "s" }));
		const exported = [...table.getChildAt(0)!].map((value) => (value === null ? null : BigInt(value as number)));
		// The store's counts, decoded by the core alone: xarray wrote 2020-01-01, NaT, 2020-01-03T06:00.
		const counts = new BigInt64Array([(1577836800n - 978307200n) / 3600n, NAT, (1578031200n - 978307200n) / 3600n]);
		const coding = parseCfTimeCoding({ units: "hours since 2001-01-01", calendar: "proleptic_gregorian" }, {});
		const core = decodeCfTimes(counts, coding, cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: {}, fillValue: null }), { unit: "s", onOverflow: "error", dataType: "int64" });
		expect(exported).toEqual([...core.values].map((value, i) => ((core.validity![i >> 3] >> (i & 7)) & 1 ? value * 1000n : null)));
		expect(exported).toEqual([1577836800000n, null, 1578031200000n]);
	});

	it("takes a v2 array's fill value as its metadata writes it: a number, a bigint, a float word or the bits", () => {
		const int64 = (fillValue: number | bigint | string | null) => cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: {}, fillValue });
		expect(isMissingValue(int64(-1), -1n)).toBe(true);
		expect(isMissingValue(int64(-1), 0n)).toBe(false);
		expect(isMissingValue(int64(2n ** 62n + 1n), 2n ** 62n + 1n)).toBe(true);
		const float32 = (fillValue: number | string) => cfMissingValueMarkers({ zarrFormat: 2, dataType: "float32", attributes: {}, fillValue });
		expect(isMissingValue(float32(0.1), Math.fround(0.1))).toBe(true);
		expect(isMissingValue(float32("-Infinity"), -Infinity)).toBe(true);
		expect(isMissingValue(float32("0xc0000000"), -2)).toBe(true);
		expect(isMissingValue(float32(Number.NaN), 1)).toBe(false);
		// A v3 array's fill value is no CF marker (xarray reads only the _FillValue attribute there).
		expect(isMissingValue(cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: {}, fillValue: -1 }), -1n)).toBe(false);
	});

	it("refuses a fill value or data type the caller got wrong as USAGE, naming the option", () => {
		const refusal = (source: Record<string, unknown>) => {
			try {
				cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: {}, fillValue: null, ...source } as never);
			} catch (error) {
				return `${(error as { code: string }).code} ${(error as Error).message}`;
			}
			return "accepted";
		};
		expect(refusal({ fillValue: 1.5 })).toBe("USAGE cfMissingValueMarkers: fillValue 1.5: expected an integer literal for data type int64, got 1.5");
		expect(refusal({ fillValue: 2 ** 60 })).toBe(`USAGE cfMissingValueMarkers: fillValue ${2 ** 60}: ${2 ** 60} is past 2^53 and may have been rounded; pass it as a bigint`);
		expect(refusal({ fillValue: { kind: "integer", value: 1n } })).toBe("USAGE cfMissingValueMarkers: fillValue an object: expected a number, a bigint, a string or null, got an object");
		expect(refusal({ dataType: "datetime64" })).toMatch(/^USAGE cfMissingValueMarkers: dataType "datetime64": data type datetime64 cannot be exported as a column$/);
		expect(refusal({ zarrFormat: 4 })).toBe("USAGE cfMissingValueMarkers: zarrFormat is 4, expected 2 or 3");
	});
});
