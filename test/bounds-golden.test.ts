/**
 * CF cell boundaries without units (test/fixtures/bounds, made by test/golden/make_bounds_fixtures.py with xarray
 * 2023.01): a boundary variable takes its coordinate's units and calendar, as xarray decodes it, found among its
 * dimension coordinates (`time_bnds` of `time`) or, where consolidated metadata lists them, the group's arrays
 * (`valid_bnds` of the auxiliary `valid_time`);
 * one with units of its own keeps them, and a climatology variable stays numbers (as xarray leaves it). The same
 * decoding as a column, alone, by inspect, and never with CF decoding off.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportTable, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { exportedValues, xarrayValues, type XarrayColumn } from "./support/xarray-columns.js";

const FIXTURES = path.join(REPO, "test/fixtures/bounds");

interface Expected {
	store: string;
	selections: Record<string, XarrayColumn[]>;
	julian_store: string;
	julian_bounds_seconds: number[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const JULIAN = path.join(FIXTURES, EXPECTED.julian_store);

describe("CF bounds without units, decoded with their coordinate's, as xarray decodes them", () => {
	for (const [selection, columns] of Object.entries(EXPECTED.selections)) {
		it(`${selection}: the columns and values of ds[[${JSON.stringify(selection)}]].to_dataframe().reset_index()`, async () => {
			const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: selection.split("+"), index: true, format: "arrow", unit: "ms" }));
			expect(table.schema.fields.map((field) => field.name)).toEqual(columns.map((column) => column.name));
			for (const [k, column] of columns.entries()) expect(exportedValues(table, k, column), column.name).toEqual(xarrayValues(column));
			const last = table.schema.fields.at(-1)!;
			expect(String(last.type)).toBe(columns.at(-1)!.dtype.startsWith("datetime64") ? "Timestamp<MILLISECOND>" : "Int32");
		});
	}

	it("the field says the units it was decoded with; a climatology variable is not decoded", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: ["time_bnds", "own_bnds", "clim_bnds"], format: "arrow", unit: "s" }));
		const metadata = (name: string) => table.schema.fields.find((field) => field.name === name)!.metadata;
		expect(metadata("time_bnds").get("units")).toBe("days since 2000-01-01");
		expect(metadata("time_bnds").get("calendar")).toBe("proleptic_gregorian");
		expect(metadata("time_bnds").get("zarr.cf_decoded")).toBe("true");
		expect(metadata("own_bnds").get("units")).toBe("hours since 2000-01-01");
		expect(metadata("clim_bnds").get("units")).toBeUndefined();
	});

	it("a Julian coordinate's bounds alone, through the CLI: the instants of xarray's Julian dates", () => {
		const out = path.join(tempDir(), "bounds.arrow");
		const result = runCli([JULIAN, "--array", "time_bnds", "--unit", "s", "-o", out]);
		expect(result.status, result.stderr).toBe(0);
		const table = readArrow(out);
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<SECOND>");
		expect(table.schema.fields[0].metadata.get("calendar")).toBe("julian");
		expect([...table.getChildAt(0)!].map(Number)).toEqual(EXPECTED.julian_bounds_seconds.map((seconds) => seconds * 1000));
	});

	it("without consolidated metadata: a dimension coordinate's bounds are found (one read each), an auxiliary coordinate's are not", async () => {
		const copy = path.join(tempDir(), "unconsolidated.zarr");
		fs.cpSync(STORE, copy, { recursive: true });
		fs.rmSync(path.join(copy, ".zmetadata"));
		const aux = await exportedArrow((sink) => exportTable(copy, sink, { columns: ["valid_bnds"], format: "arrow", unit: "ms" }));
		expect(String(aux.schema.fields[0].type)).toBe("Float64");
		const table = await exportedArrow((sink) => exportTable(copy, sink, { columns: ["time_bnds"], format: "arrow", unit: "ms" }));
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<MILLISECOND>");
		const timeBounds = EXPECTED.selections.time_bnds.find((column) => column.name === "time_bnds")!;
		expect([...table.getChild("time_bnds")!].map((value) => new Date(Number(value)).toISOString())).toEqual(xarrayValues(timeBounds));
		// inspect follows the export's rule: what it says is decoded, an export decodes.
		const report = await inspectStore(copy);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("time_bnds")).toMatchObject({ exportable: true, boundsOf: "time" });
		expect(node("valid_bnds").boundsOf).toBeUndefined();
		expect(node("valid_bnds").exportable).toBe(false);
	});

	it("with CF decoding off, the stored counts", async () => {
		const table = await exportedArrow((sink) => exportTable(STORE, sink, { columns: ["time_bnds"], cf: false, format: "arrow" }));
		expect(String(table.schema.fields[0].type)).toBe("Int32");
		expect(table.schema.fields[0].metadata.get("units")).toBeUndefined();
	});

	it("inspect shows the bounds decoded, naming their coordinate; bounds with units of their own as such", async () => {
		const report = await inspectStore(STORE);
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("time_bnds")).toMatchObject({ exportable: true, boundsOf: "time", cfTime: "days since 2000-01-01, proleptic_gregorian" });
		expect(node("valid_bnds")).toMatchObject({ exportable: true, boundsOf: "valid_time" });
		expect(node("time_bnds").boundsOwnUnits).toBeUndefined();
		// Bounds with units of their own keep them, and are still time2's bounds (the time array only when named).
		expect(node("own_bnds")).toMatchObject({ exportable: true, boundsOf: "time2", boundsOwnUnits: true });
		expect(node("clim_bnds")).toMatchObject({ exportable: false, companion: true });
	});
});
