/**
 * A v2 store whose consolidated metadata lists arrays without a folder or a `.zarray` of their own
 * (test/fixtures/consolidated-only, made by test/golden/make_consolidated_only_fixtures.py; trial 28). zarr-python's
 * open_consolidated and xarray's open_zarr read every array it lists, as `--columns NAME` did: `--columns all` and
 * inspect, which found the arrays by walking the folder (or a zip's entries), found no data variable. Now every path
 * reads what the consolidated metadata lists, and the warning names the documents missing.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { exportTable, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { writeStoredZip } from "./support/zip.js";

const FIXTURES = path.join(REPO, "test/fixtures/consolidated-only");

interface Expected {
	store: string;
	open_consolidated: string[];
	data_vars: string[];
	consolidated_false: string[];
	columns: Record<string, string[]>;
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const STORE = path.join(FIXTURES, EXPECTED.store);
const MISSING = "no_zarray: in .zmetadata, but no .zarray of its own; unwritten: in .zmetadata, but no .zarray of its own";

const exported = (columns: string[] | "all", store = STORE): Promise<Table> => exportedArrow((sink) => exportTable(store, sink, { columns, index: true, format: "arrow", nanAsNull: true }));

/** A column's values as xarray's table prints them: null (xarray's NaN for a masked fill value) as "nan". */
function printed(table: Table, name: string): string[] {
	return [...table.getChild(name)!].map((value) => (value === null ? "nan" : name === "time" ? String(BigInt(value as number) * 1_000_000n) : Number(value).toFixed(1)));
}

describe("consolidated metadata listing arrays without their own documents, as zarr-python and xarray read it", () => {
	it("xarray's open_zarr sees them all; without the consolidated metadata, none", () => {
		expect(EXPECTED.data_vars).toEqual(["no_zarray", "t2m", "unwritten"]);
		expect(EXPECTED.open_consolidated).toEqual(["no_zarray", "t2m", "time", "unwritten"]);
		expect(EXPECTED.consolidated_false).toEqual(["t2m"]);
	});

	it("columns all and columns by name agree: xarray's table", async () => {
		const all = await exported("all");
		expect(all.schema.fields.map((field) => field.name)).toEqual(["time", ...EXPECTED.data_vars]);
		for (const name of ["time", ...EXPECTED.data_vars]) expect(printed(all, name)).toEqual(EXPECTED.columns[name]);
		const named = await exported(EXPECTED.data_vars);
		expect(named.schema.fields.map((field) => field.name)).toEqual(all.schema.fields.map((field) => field.name));
		for (const name of EXPECTED.data_vars) expect(printed(named, name)).toEqual(EXPECTED.columns[name]);
	});

	it("a zip of the store: the same columns", async () => {
		const zip = path.join(tempDir(), "listed.zip");
		writeStoredZip(STORE, zip);
		expect((await exported("all", zip)).schema.fields.map((field) => field.name)).toEqual(["time", ...EXPECTED.data_vars]);
	});

	it("the CLI: columns all exports every listed array, with the warning naming the missing documents", () => {
		const out = path.join(tempDir(), "all.arrow");
		const run = runCli([STORE, "--columns", "all", "--index", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toContain(MISSING);
		expect(run.stderr).toMatch(/wrote 4 rows/);
	});

	it("the warning does not say the store was written to since it was consolidated: the arrays' metadata is only in the consolidated metadata", () => {
		const out = path.join(tempDir(), "one.arrow");
		const run = runCli([STORE, "--columns", "no_zarray,unwritten", "--index", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		const warning = run.stderr.split("\n").find((line) => line.includes("consolidated metadata"));
		expect(warning).toBe(
			`dt64-export: warning: the metadata of no_zarray, unwritten is only in the store's consolidated metadata (no document of their own: never written, or removed since): ${MISSING}. Read as the consolidated metadata says, as xarray's open_zarr reads the store by default (open_zarr(..., consolidated=False) does not find them, and zarr.consolidate_metadata(store) would leave them out)`,
		);
		expect(run.stderr).not.toContain("written to since");
	});

	it("inspect lists them", async () => {
		const report = await inspectStore(STORE);
		expect(report.nodes.map((node) => node.path)).toEqual(["", ...EXPECTED.open_consolidated]);
		expect(report.staleConsolidatedMetadata).toContain(MISSING);
		expect(report.staleConsolidatedMetadata).toMatch(/^the metadata of no_zarray, unwritten is only in the store's consolidated metadata/);
	});
});
