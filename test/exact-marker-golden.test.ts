/**
 * CF marker attributes holding an integer past 2^53 (test/fixtures/exact-marker, made by
 * test/golden/make_exact_marker_fixtures.py with zarr 2.13 and xarray 2023.01): JSON text carries every digit, and the
 * marker is read from it exactly, as zarr-python and xarray read it, instead of being refused as JSON.parse's rounded
 * double. A v3 array with such a `_FillValue` attribute, written here, is read the same way.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable, formatInspectReport, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, tempDir } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/exact-marker");

interface Expected {
	store: string;
	columns_option: string[];
	counts_exact: string[];
	columns: XarrayColumn[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const column = (name: string) => EXPECTED.columns.find((c) => c.name === name)!;
const valuesOf = (table: Table, name: string) => [...table.getChild(name)!].map((value) => (value === null ? "nan" : String(value)));

describe("an integer marker attribute past 2^53, read exactly from the JSON text", () => {
	it("CF time masked where xarray masks it (uint64 minutes, missing_value 9519333550154345791), the int64 column exactly (_FillValue 9007199254740993)", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: EXPECTED.columns_option, index: true, format: "arrow", unit: "ms" }));
		for (const name of ["time", "stamp"]) {
			const k = table.schema.fields.findIndex((field) => field.name === name);
			expect(exportedValues(table, k, column(name)), name).toEqual(xarrayValues(column(name)));
		}
		// xarray masks through float64 (9007199254740992 too); numpy's exact comparison masks the marker alone.
		expect(valuesOf(table, "counts")).toEqual(EXPECTED.counts_exact);
		expect(table.schema.fields.find((field) => field.name === "counts")!.metadata.get("zarr.cf_applied")).toBe('{"_FillValue":9007199254740993}');
	});

	it("the CF time array alone, and inspect shows the attribute as written", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { array: "stamp", format: "arrow", unit: "ms" }));
		expect(exportedValues(table, 0, column("stamp"))).toEqual(xarrayValues(column("stamp")));
		const text = formatInspectReport(await inspectStore(STORE));
		expect(text).toContain("missing_value 9519333550154345791");
		expect(text).toContain("_FillValue 9007199254740993");
	});

	it("a v3 array's _FillValue attribute alike, in its zarr.json", async () => {
		const root = path.join(tempDir("dt64-exact-marker-"), "a.zarr");
		const values = BigUint64Array.of(60n, 9519333550154345791n, 120n);
		await writeArray(root, "", { shape: [3], chunks: [3], dataType: "uint64", fillValue: 0n, values, attributes: { units: "minutes since 2000-01-01", _FillValue: 9519333550154345791n } });
		const table = await exportedArrow((sink) => exportTable(root, sink, { format: "arrow", unit: "s" }));
		expect([...table.getChildAt(0)!].map((value) => (value === null ? null : String(value)))).toEqual(["946688400000", null, "946692000000"]);
	});

	it("a v3 array in its group's consolidated metadata alike: its text is cut out of the group's, not serialized again", async () => {
		const root = path.join(tempDir("dt64-exact-consolidated-"), "g.zarr");
		const values = BigUint64Array.of(60n, 9519333550154345791n, 120n);
		await writeArray(root, "t", { shape: [3], chunks: [3], dataType: "uint64", fillValue: 0n, values, attributes: { units: "minutes since 2000-01-01", missing_value: 9519333550154345791n } });
		const member = fs.readFileSync(path.join(root, "t", "zarr.json"), "utf8");
		fs.writeFileSync(path.join(root, "zarr.json"), `{"zarr_format": 3, "node_type": "group", "attributes": {}, "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"t": ${member}}}}`);
		const table = await exportedArrow((sink) => exportTable(root, sink, { array: "t", format: "arrow", unit: "s" }));
		expect([...table.getChildAt(0)!].map((value) => (value === null ? null : String(value)))).toEqual(["946688400000", null, "946692000000"]);
		expect(formatInspectReport(await inspectStore(root))).toContain("missing_value 9519333550154345791");
	});
});
