/**
 * Forms the Zarr v3 core spec (and the v2 spec) allow or forbid, found by the trial 24 conformance audit: a group's
 * extension members obey `must_understand` as an array's do (finding 02).
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
