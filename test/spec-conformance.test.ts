/**
 * Forms the Zarr v3 core spec (and the v2 spec) allow or forbid, found by the trial 24 conformance audit: a group's
 * extension members obey `must_understand` as an array's do (finding 02); v2 consolidated metadata of a format other
 * than 1 is refused, as zarr-python 2 and xarray refuse it (finding 07).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { tempDir } from "./support/cli.js";

const work = tempDir("dt64-spec-");
let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);
const LE = { name: "bytes", configuration: { endian: "little" } };
const SECONDS = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/** A group (root zarr.json `group`) holding the datetime64[s] array `t` of 0..7 s. */
async function groupStore(name: string, group: Record<string, unknown>): Promise<string> {
	const root = fresh(name);
	await writeArray(root, "t", { shape: [8], chunks: [4], dataType: SECONDS, values: BigInt64Array.from({ length: 8 }, (_, i) => BigInt(i)), codecs: [LE] });
	fs.writeFileSync(path.join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {}, ...group }));
	return root;
}

describe("a group's zarr.json extension members (v3 core spec: must_understand)", () => {
	const refusal = (root: string) => ({
		code: "UNSUPPORTED",
		path: "zarr.json",
		field: "foo",
		message: expect.stringContaining(`${root}/zarr.json: zarr.json member "foo" is an extension this reader does not know, and it does not say "must_understand": false`),
	});

	it("refuses the group (export by discovery, --columns, inspect) when a member does not say must_understand false", async () => {
		for (const member of [{ must_understand: true }, { offset: 5 }, 3]) {
			const root = await groupStore("must.zarr", { foo: member });
			await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject(refusal(root));
			await expect(exportedArrow((sink) => exportTable(root, sink, { columns: ["t"] }))).rejects.toMatchObject(refusal(root));
			await expect(inspectStore(root)).rejects.toMatchObject(refusal(root));
		}
	});

	it("a subgroup with such a member is listed by inspect as invalid, saying why", async () => {
		const root = await groupStore("sub.zarr", {});
		fs.mkdirSync(path.join(root, "g"));
		fs.writeFileSync(path.join(root, "g", "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {}, foo: { must_understand: true } }));
		const report = await inspectStore(root);
		const g = report.nodes.find((node) => node.path === "g");
		expect(g).toMatchObject({ kind: "invalid", error: expect.stringContaining('g/zarr.json: zarr.json member "foo" is an extension this reader does not know') });
	});

	it("reads a group whose extension members say must_understand false, and zarr-python 3's consolidated_metadata: null", async () => {
		for (const group of [{ foo: { must_understand: false, anything: 1 } }, { consolidated_metadata: null }]) {
			const root = await groupStore("optional.zarr", group);
			const table = await exportedArrow((sink) => exportTable(root, sink, { columns: ["t"] }));
			expect(table.numRows).toBe(8);
			expect((await inspectStore(root)).nodes.map((node) => [node.path, node.kind])).toEqual([
				["", "group"],
				["t", "array"],
			]);
		}
	});
});

/**
 * A zarr-python 2 group holding `t`, datetime64[s] 0..11 in chunks of 4, consolidated when `t` had 8 values (then
 * grown to 12), its `.zmetadata` with `format` as zarr_consolidated_format (undefined: left out).
 */
function v2ConsolidatedStore(name: string, format: unknown): string {
	const root = fresh(name);
	fs.mkdirSync(path.join(root, "t"), { recursive: true });
	const zarray = (length: number) => ({ zarr_format: 2, shape: [length], chunks: [4], dtype: "<M8[s]", fill_value: null, order: "C", filters: null, compressor: null });
	fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	fs.writeFileSync(path.join(root, "t", ".zarray"), JSON.stringify(zarray(12)));
	fs.writeFileSync(path.join(root, "t", ".zattrs"), "{}");
	for (let chunk = 0; chunk < 3; chunk++) fs.writeFileSync(path.join(root, "t", String(chunk)), new Uint8Array(BigInt64Array.from({ length: 4 }, (_, i) => BigInt(4 * chunk + i)).buffer));
	const metadata = { metadata: { ".zgroup": { zarr_format: 2 }, "t/.zarray": zarray(8), "t/.zattrs": {} }, ...(format === undefined ? {} : { zarr_consolidated_format: format }) };
	fs.writeFileSync(path.join(root, ".zmetadata"), JSON.stringify(metadata));
	return root;
}

describe("v2 consolidated metadata's zarr_consolidated_format", () => {
	it("other than 1, or missing, is refused naming .zmetadata and the field (it was read as format 1: 8 rows of 12)", async () => {
		for (const format of [2, "1", undefined]) {
			const root = v2ConsolidatedStore("format.zarr", format);
			const found = format === undefined ? "missing" : JSON.stringify(format);
			const refusal = {
				code: "METADATA_INVALID",
				path: ".zmetadata",
				field: "zarr_consolidated_format",
				message: expect.stringContaining(`${root}/.zmetadata: zarr_consolidated_format is ${found}, expected 1, the only consolidated metadata format zarr-python 2 and xarray read`),
			};
			await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject(refusal);
			await expect(exportedArrow((sink) => exportTable(root, sink, { columns: ["t"] }))).rejects.toMatchObject(refusal);
			await expect(inspectStore(root)).rejects.toMatchObject(refusal);
		}
	});

	it("format 1 is the store's metadata, as xarray's open_zarr reads it (8 rows)", async () => {
		const root = v2ConsolidatedStore("format1.zarr", 1);
		const table = await exportedArrow((sink) => exportTable(root, sink, { columns: ["t"] }));
		expect(table.numRows).toBe(8);
	});
});
