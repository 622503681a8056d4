/**
 * A store xarray left with stale consolidated metadata (test/fixtures/stale-consolidated, written by xarray 2023.01
 * with test/golden/make_stale_consolidated_fixtures.py: consolidated, then appended to and given a variable with
 * `consolidated=False`). Every export and inspect read it as its consolidated metadata says, as xarray's open_zarr
 * does by default, from a folder and over HTTP alike, and say where the arrays' own metadata disagrees.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportTable, inspectStore, openTable } from "../src/index.js";
import { staleConsolidatedWarning } from "../src/store/stale-consolidated.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO, runCli, tempDir } from "./support/cli.js";
import { startServer, type TestServer } from "./support/http-server.js";

const FIXTURES = path.join(REPO, "test/fixtures/stale-consolidated");

interface Expected {
	store: string;
	default: { sizes: Record<string, number>; data_vars: string[] };
	consolidated_false: { sizes: Record<string, number>; data_vars: string[] };
	columns: { name: string; values: string[] }[];
}

const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Expected;
const LOCAL = path.join(FIXTURES, EXPECTED.store);

let server: TestServer;
let remote: string;
beforeAll(async () => {
	server = await startServer(FIXTURES);
	remote = `${server.url}/${EXPECTED.store}`;
});
afterAll(() => server?.close());

const exported = (store: string, columns: string[] | "all"): Promise<Table> => exportedArrow((sink) => exportTable(store, sink, { columns, index: true, format: "arrow", unit: "ms" }));

const STALE = ["t2m: shape [8,2] in t2m/.zarray, [4,2] in .zmetadata", "time: shape [8] in time/.zarray, [4] in .zmetadata"];

describe("stale consolidated metadata: one source, the consolidated metadata, as xarray reads it", () => {
	it("xarray sees 4 times by default, 8 and extra without the consolidated metadata", () => {
		expect(EXPECTED.default).toEqual({ sizes: { time: 4, lat: 2 }, data_vars: ["t2m"] });
		expect(EXPECTED.consolidated_false).toEqual({ sizes: { time: 8, lat: 2 }, data_vars: ["extra", "t2m"] });
	});

	for (const where of ["a folder", "HTTP"]) {
		it(`${where}: the table xarray's open_zarr gives, and what differs in the arrays' own metadata`, async () => {
			const store = where === "HTTP" ? remote : LOCAL;
			const table = await exported(store, ["t2m"]);
			expect(table.schema.fields.map((field) => field.name)).toEqual(EXPECTED.columns.map((column) => column.name));
			const time = EXPECTED.columns.find((column) => column.name === "time")!;
			expect([...table.getChild("time")!].map((value) => new Date(Number(value)).toISOString())).toEqual(time.values.map((value) => `${value.slice(0, 23)}Z`));
			expect([...table.getChild("t2m")!]).toEqual(EXPECTED.columns.find((column) => column.name === "t2m")!.values.map(Number));
			const opened = await openTable(store, { columns: ["t2m"] });
			expect(opened.staleConsolidatedMetadata).toEqual(STALE);
		});
	}

	it("columns all takes what the consolidated metadata lists, from a folder and over HTTP alike", async () => {
		const names = async (store: string) => (await exported(store, "all")).schema.fields.map((field) => field.name);
		expect(await names(LOCAL)).toEqual(["time", "lat", ...EXPECTED.default.data_vars]);
		expect(await names(remote)).toEqual(await names(LOCAL));
	});

	it("inspect shows the consolidated shapes, from a folder and over HTTP; the folder's report says what differs", async () => {
		for (const store of [LOCAL, remote]) {
			const report = await inspectStore(store);
			expect(report.nodes.map((node) => node.path)).toEqual(["", "lat", "t2m", "time"]);
			expect(report.nodes.find((node) => node.path === "time")).toMatchObject({ shape: [4] });
		}
		const local = await inspectStore(LOCAL);
		expect(local.staleConsolidatedMetadata).toContain("extra: not in .zmetadata");
		expect(local.staleConsolidatedMetadata).toContain(STALE[1]);
		expect(local.staleConsolidatedMetadata).toContain("zarr.consolidate_metadata(store)");
		// Over HTTP the arrays it lists are read too, in one batch: what differs in them (an array it does not list
		// cannot be found without a listing).
		server.reset();
		const overHttp = await inspectStore(remote);
		expect(overHttp.staleConsolidatedMetadata).toBe(staleConsolidatedWarning(STALE));
		const documents = server.requests.map((request) => request.path.slice(`/${EXPECTED.store}/`.length)).filter((key) => /(^|\/)\.z(array|attrs|group|metadata)$|zarr\.json$/.test(key));
		expect(documents.sort()).toEqual([".zarray", ".zattrs", ".zgroup", ".zmetadata", "lat/.zarray", "lat/.zattrs", "t2m/.zarray", "t2m/.zattrs", "time/.zarray", "time/.zattrs", "zarr.json"]);
	});

	it("the CLI warns, and exports xarray's rows", () => {
		const out = path.join(tempDir(), "t2m.arrow");
		const run = runCli([LOCAL, "--columns", "t2m", "--index", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/^dt64-export: warning: the store's consolidated metadata is stale .*time: shape \[8\] in time\/\.zarray, \[4\] in \.zmetadata.*zarr\.consolidate_metadata\(store\)\n/);
		expect(run.stderr).toMatch(/wrote 8 rows/);
	});
});

describe("a warning naming stale nodes and nodes whose metadata is only in the consolidated metadata", () => {
	it("says each for what it is", () => {
		const warning = staleConsolidatedWarning(["time: shape [8] in time/.zarray, [4] in .zmetadata", "t2m: in .zmetadata, but no .zarray of its own"]);
		expect(warning).toBe(
			"the store's consolidated metadata is stale (written to since it was consolidated): time: shape [8] in time/.zarray, [4] in .zmetadata; and the metadata of t2m is only in the store's consolidated metadata (no document of its own: never written, or removed since): t2m: in .zmetadata, but no .zarray of its own. Read as the consolidated metadata says, as xarray's open_zarr reads the store by default (open_zarr(..., consolidated=False) reads the arrays' own metadata, and does not find t2m); update it with zarr.consolidate_metadata(store), which leaves t2m out",
		);
	});
});
