/**
 * xarray's `_Unsigned` (test/fixtures/unsigned, written by xarray 2023.01 with test/golden/make_unsigned_fixtures.py):
 * signed storage with `_Unsigned: "true"` is read as the unsigned integers of its width before masking, unpacking
 * and CF time, unsigned storage with `"false"` as signed ones, each value as xarray reads it back; the stored
 * integers with CF decoding off; inspect says so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { exportTable, inspectStore, type ExportOptions } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/unsigned");

interface Expected {
	store: string;
	columns_option: string[];
	stored: Record<string, string>;
	columns: XarrayColumn[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);

const exported = (options: ExportOptions): Promise<Table> =>
	exportedArrow((sink) => exportTable(STORE, sink, { columns: EXPECTED.columns_option, index: true, format: "arrow", unit: "ms", ...options }));

describe("_Unsigned, as xarray decodes it", () => {
	it("every column has xarray's values; the integers are of the type _Unsigned says", async () => {
		const table = await exported({});
		expect(table.schema.fields.map((field) => field.name)).toEqual(EXPECTED.columns.map((column) => column.name));
		for (const [k, column] of EXPECTED.columns.entries()) expect(exportedValues(table, k, column), column.name).toEqual(xarrayValues(column));
		const types = Object.fromEntries(table.schema.fields.map((field) => [field.name, String(field.type)]));
		// A masked integer keeps its (unsigned) type; the packed int8 is unpacked from its unsigned values.
		expect(types).toMatchObject({ q: "Uint8", w: "Uint16", s: "Int16", p: "Float32", stamp: "Timestamp<MILLISECOND>" });
		// The field still says the data type as stored.
		expect(table.schema.fields.find((field) => field.name === "q")!.metadata.get("zarr.data_type")).toBe('"|i1"');
	});

	it("zarr.cf_applied lists _Unsigned first, as the other attributes applied are listed", async () => {
		const table = await exported({});
		const field = (name: string) => table.schema.fields.find((f) => f.name === name)!;
		const applied = (name: string) => JSON.parse(field(name).metadata.get("zarr.cf_applied") ?? "null") as Record<string, unknown> | null;
		expect(applied("q")).toEqual({ _Unsigned: "true" });
		expect(applied("s")).toEqual({ _Unsigned: "false" });
		expect(applied("w")).toEqual({ _Unsigned: "true", _FillValue: "65535" });
		expect(applied("p")).toEqual({ _Unsigned: "true", _FillValue: "255", scale_factor: 1 });
		expect(Object.keys(applied("p")!)[0]).toBe("_Unsigned");
		// Read as unsigned alone, nothing can be null: the field stays as it was.
		expect([field("q").nullable, field("s").nullable, field("w").nullable]).toEqual([false, false, true]);
		// Without CF decoding nothing is applied, _Unsigned included.
		const stored = await exported({ cf: false });
		expect(stored.schema.fields.find((f) => f.name === "q")!.metadata.get("zarr.cf_applied")).toBeUndefined();
	});

	it("without CF decoding, the stored integers", async () => {
		const table = await exported({ cf: false });
		const q = table.schema.fields.findIndex((field) => field.name === "q");
		expect(String(table.schema.fields[q].type)).toBe("Int8");
		expect([...table.getChildAt(q)!]).toEqual([0, 1, 127, -128, -56, -1]);
	});

	it("inspect says it", async () => {
		const report = await inspectStore(STORE);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("q")).toMatchObject({ companion: true, arrowType: "uint8", cfDecoding: 'read as uint8 by _Unsigned "true"; int8 as stored without CF decoding' });
		expect(node("w")).toMatchObject({ companion: true, arrowType: "uint16", cfDecoding: 'read as uint16 by _Unsigned "true", then null where _FillValue; int16 as stored without CF decoding' });
		expect(node("s")).toMatchObject({ companion: true, arrowType: "int16", cfDecoding: 'read as int16 by _Unsigned "false"; uint16 as stored without CF decoding' });
		expect(node("stamp").cfTime).toBe('hours since 2000-01-01, proleptic_gregorian, counts read as uint16 by _Unsigned "true"');
	});
});
