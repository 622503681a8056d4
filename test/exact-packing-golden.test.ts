/**
 * `scale_factor`/`add_offset` holding an integer past 2^53 (test/fixtures/exact-packing, made by
 * test/golden/make_exact_packing_fixtures.py with zarr 2.13 and xarray 2023.01): read exactly from the JSON text, as
 * the marker attributes are, and applied exactly to integer data (CF's integer packing), or refused where no exact
 * result exists, instead of JSON.parse's rounded double applied silently. xarray 2023.01 unpacks in float64, rounding
 * the factor and the results (README, Differences from xarray).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportTable, formatInspectReport, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/exact-packing");

interface Expected {
	store: string;
	stamp_exact: string[];
	counts_exact: string[];
	columns: XarrayColumn[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const column = (name: string) => EXPECTED.columns.find((c) => c.name === name)!;
/** ns since 1970 of an ISO text at nanoseconds (`2000-01-01T00:00:00.000000001`). */
const nanoseconds = (iso: string) => (iso === "NaT" ? null : String(BigInt(Date.parse(`${iso.slice(0, 19)}Z`)) * 1_000_000n + BigInt(iso.slice(20, 29))));

describe("an integer scale_factor/add_offset past 2^53, read exactly from the JSON text", () => {
	it("CF time of int64 counts: add_offset 946684800000000001 ns applied exactly (xarray rounds it in float64)", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: ["stamp", "counts"], index: true, format: "arrow", unit: "ns" }));
		const k = table.schema.fields.findIndex((field) => field.name === "time");
		expect(exportedValues(table, k, column("time"))).toEqual(xarrayValues(column("time")));
		const stamps = [...table.getChild("stamp")!.data.flatMap((data) => [...(data.values as BigInt64Array)].map((v, i) => (data.getValid(i) ? String(v) : null)))];
		expect(stamps).toEqual(EXPECTED.stamp_exact.map(nanoseconds));
		// xarray's float64 unpacking rounds the offset to 946684800000000000 ns.
		expect(column("stamp").values[0]).toBe("2000-01-01T00:00:00.000000000");
		const field = table.schema.fields.find((f) => f.name === "stamp")!;
		expect(field.metadata.get("add_offset")).toBe("946684800000000001");
	});

	it("an int64 companion column: scale_factor 2, add_offset 9007199254740993 exactly into Int64 (xarray: rounded float64)", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: ["stamp", "counts"], format: "arrow", unit: "ns" }));
		const counts = table.getChild("counts")!;
		expect(counts.type.toString()).toBe("Int64");
		expect([...counts].map((value) => (value === null ? "nan" : String(value)))).toEqual(EXPECTED.counts_exact);
		expect(column("counts").values[0]).toBe("9007199254740994.0");
		expect(table.schema.fields.find((f) => f.name === "counts")!.metadata.get("zarr.cf_applied")).toBe('{"_FillValue":-1,"scale_factor":2,"add_offset":9007199254740993}');
	});

	it("float data, or a factor that is not an integer, with such a factor: refused with its code, not rounded", async () => {
		for (const [name, why] of [
			["ratio", "float64 data unpack in floats"],
			["halves", "scale_factor 0.5 is not an integer"],
		]) {
			await expect(exportedArrow((sink) => exportTable(STORE, sink, { columns: ["stamp", name], format: "arrow", unit: "ns" })), name).rejects.toMatchObject({
				code: "UNSUPPORTED",
				message: expect.stringContaining(`add_offset 9007199254740993 is an integer past 2^53, which float unpacking would round (${why})`),
			});
		}
	});

	it("inspect quotes the digits and says the counts unpack in int64", async () => {
		const text = formatInspectReport(await inspectStore(STORE));
		expect(text).toContain("int64 counts + add_offset 946684800000000001, unpacked in int64 (CF's rule)");
		expect(text).toContain("add_offset 9007199254740993");
	});
});
