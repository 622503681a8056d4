/**
 * Zarr v2 arrays with `fill_value: null` and a `_FillValue` attribute (a number or a one-element list), written by
 * zarr 2.13 (test/fixtures/fill-attribute, made by test/golden/make_fill_attribute_fixtures.py): companion columns
 * are masked by the attribute as CF time is, one rule, and as xarray reads them (a v2 `fill_value`, where there is
 * one, wins over the attribute); inspect says so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportTable, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/fill-attribute");

interface Expected {
	store: string;
	columns_option: string[];
	rows: number;
	columns: XarrayColumn[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);

describe("v2 fill_value null with a _FillValue attribute, as xarray reads it", () => {
	it("every column masked as xarray masks it: companion columns (scalar and listed attribute) and CF time alike", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: EXPECTED.columns_option, index: true, format: "arrow", unit: "ms" }));
		expect(table.schema.fields.map((field) => field.name)).toEqual(EXPECTED.columns.map((column) => column.name));
		for (const [k, column] of EXPECTED.columns.entries()) expect(exportedValues(table, k, column), column.name).toEqual(xarrayValues(column));
		const types = Object.fromEntries(table.schema.fields.map((field) => [field.name, String(field.type)]));
		// Masked and unpacked: CF's Float32 for 16-bit data and a float32 scale factor; masked integers keep their type.
		expect(types).toMatchObject({ scalar: "Float32", listed: "Float32", counts: "Int16", both: "Int16" });
		const applied = Object.fromEntries(table.schema.fields.map((field) => [field.name, field.metadata.get("zarr.cf_applied")]));
		expect(JSON.parse(applied.listed!)).toMatchObject({ _FillValue: [-32768], scale_factor: [0.5] });
		expect(JSON.parse(applied.scalar!)).toMatchObject({ _FillValue: -32768 });
		expect(JSON.parse(applied.both!)).toEqual({ _FillValue: "7" });
	});

	it("inspect says the attribute masks", async () => {
		const report = await inspectStore(STORE);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		for (const name of ["scalar", "listed"]) expect(node(name)).toMatchObject({ companion: true, arrowType: "float", cfDecoding: "null where _FillValue, then unpacked by scale_factor; int16 as stored without CF decoding" });
		expect(node("counts")).toMatchObject({ companion: true, arrowType: "int16", cfDecoding: "null where _FillValue; int16 as stored without CF decoding" });
	});
});
