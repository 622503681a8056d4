/**
 * A node whose metadata is refused (not JSON, an extension that must be understood) is never passed over without a
 * word while a group's tree is searched for its one time array (an export without --array): a walk does not enter
 * it, so a time array there would be missed. One time array found elsewhere: exported, with a warning naming the node
 * and why (stderr, `--json`'s `refusedNodes`, the library's table); none or several: the refusal names it. Under
 * `--columns all` a member refused is left out and named, as an array of a type no column holds is. Inspect says that
 * what such a node holds is not listed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile, inspectStore, openTable } from "../src/index.js";
import { runCli, tempDir } from "./support/cli.js";

const values = BigInt64Array.from({ length: 4 }, (_, i) => BigInt(i) * 3600n);
const NOT_JSON = "not valid JSON";
const MUST_UNDERSTAND = 'zarr.json member "extra" is an extension this reader does not know';

/** A group with a time array `time`, and a subgroup `sub` holding another (`sub/t2`) whose zarr.json is refused. */
async function storeWithRefusedSubgroup(refusal: "json" | "extension", withTime = true): Promise<string> {
	const store = path.join(tempDir(), "refused.zarr");
	await writeGroup(store, "");
	if (withTime) await writeArray(store, "time", { shape: [4], chunks: [4], values, dimensionNames: ["time"] });
	await writeGroup(store, "sub");
	await writeArray(store, "sub/t2", { shape: [4], chunks: [4], values, dimensionNames: ["time"] });
	const document = path.join(store, "sub", "zarr.json");
	if (refusal === "json") fs.writeFileSync(document, "{not json");
	else fs.writeFileSync(document, JSON.stringify({ ...JSON.parse(fs.readFileSync(document, "utf8")), extra: { name: "x", must_understand: true } }));
	return store;
}

describe("a refused subgroup while the time array is searched for (library)", () => {
	it("one time array found beside it: exported, the table names the subgroup and why", async () => {
		for (const [refusal, reason] of [
			["json", NOT_JSON],
			["extension", MUST_UNDERSTAND],
		] as const) {
			const store = await storeWithRefusedSubgroup(refusal);
			const result = await exportToFile(store, path.join(tempDir(), "t.arrow"));
			expect(result.refusedNodes).toEqual([{ path: "sub", reason: expect.stringContaining(reason) }]);
			expect(result.refusedNodes?.[0].reason).toContain(path.join("sub", "zarr.json"));
		}
	});

	it("an array named is found without a search: nothing to say", async () => {
		const store = await storeWithRefusedSubgroup("json");
		const result = await exportToFile(store, path.join(tempDir(), "t.arrow"), { array: "time" });
		expect(result.refusedNodes).toBeUndefined();
	});

	it("no time array found elsewhere: ARRAY_NOT_FOUND names the subgroup and why", async () => {
		const store = await storeWithRefusedSubgroup("json", false);
		await expect(exportToFile(store, path.join(tempDir(), "t.arrow"))).rejects.toMatchObject({
			code: "ARRAY_NOT_FOUND",
			message: expect.stringMatching(/no CF time array; not searched, their metadata refused: sub \(.*sub\/zarr\.json: not valid JSON/),
		});
	});

	it("several found: ARRAY_AMBIGUOUS names them and the subgroup", async () => {
		const store = await storeWithRefusedSubgroup("json");
		await writeArray(store, "other", { shape: [4], chunks: [4], values, dimensionNames: ["time"] });
		await expect(exportToFile(store, path.join(tempDir(), "t.arrow"))).rejects.toMatchObject({
			code: "ARRAY_AMBIGUOUS",
			candidates: ["other", "time"],
			message: expect.stringContaining("other, time; not searched, their metadata refused: sub ("),
		});
	});

	it("columns all: a member whose metadata is refused is left out, named with why", async () => {
		const store = await storeWithRefusedSubgroup("json");
		fs.mkdirSync(path.join(store, "bad"));
		fs.writeFileSync(path.join(store, "bad", "zarr.json"), "{not json");
		await writeArray(store, "t2m", { shape: [4], chunks: [4], values: Float64Array.from([1, 2, 3, 4]), dataType: "float64", dimensionNames: ["time"] });
		const table = await openTable(store, { columns: "all" });
		expect(table.columns.map((column) => column.name)).toEqual(["t2m"]);
		expect(table.leftOut).toEqual([expect.stringMatching(/^bad: its metadata is refused \(.*bad\/zarr\.json: not valid JSON/), expect.stringMatching(/^sub: its metadata is refused \(/)]);
	});
});

describe("a refused subgroup (CLI)", () => {
	it("a warning on stderr naming it and why, even with -q; --json's refusedNodes; exit 0", async () => {
		const store = await storeWithRefusedSubgroup("extension");
		const out = path.join(tempDir(), "t.arrow");
		const run = runCli([store, "-o", out, "-q", "--json"]);
		expect(run.status).toBe(0);
		expect(run.stderr).toMatch(/^dt64-export: warning: the time array time was found beside a node whose metadata is refused, not searched \(a time array there would make the choice ambiguous\): sub \(.*must_understand.*\); name it with --array \(nothing is searched then\)\n$/);
		const summary = JSON.parse(run.stdout.toString());
		expect(summary.rows).toBe(4);
		expect(summary.refusedNodes).toEqual([{ path: "sub", reason: expect.stringContaining(MUST_UNDERSTAND) }]);
	});

	it("a dataset export says it too, and --array says nothing", async () => {
		const store = await storeWithRefusedSubgroup("json");
		const run = runCli([store, "--partition-by", "day", "-o", path.join(tempDir(), "d.parquet"), "--json"]);
		expect(run.status).toBe(0);
		expect(run.stderr).toContain("dt64-export: warning: the time array time was found beside a node whose metadata is refused");
		expect(JSON.parse(run.stdout.toString()).refusedNodes).toEqual([{ path: "sub", reason: expect.stringContaining(NOT_JSON) }]);
		const named = runCli([store, "--array", "time", "-o", path.join(tempDir(), "n.arrow"), "--json"]);
		expect(named.status).toBe(0);
		expect(named.stderr).toBe("");
		expect(JSON.parse(named.stdout.toString()).refusedNodes).toBeUndefined();
	});

	it("none found elsewhere: exit 1 ARRAY_NOT_FOUND naming the subgroup", async () => {
		const store = await storeWithRefusedSubgroup("json", false);
		const run = runCli([store, "-o", path.join(tempDir(), "t.arrow")]);
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/not searched, their metadata refused: sub \(.*not valid JSON.*\[ARRAY_NOT_FOUND\]\n$/);
	});
});

describe("a refused subgroup (inspect)", () => {
	it("library and CLI: invalid, with why, and what it holds is not listed", async () => {
		const store = await storeWithRefusedSubgroup("json");
		const report = await inspectStore(store);
		expect(report.nodes.map((node) => [node.path, node.kind])).toEqual([
			["", "group"],
			["sub", "invalid"],
			["time", "array"],
		]);
		expect(report.nodes[1]).toMatchObject({ error: expect.stringContaining(NOT_JSON), membersListed: false });
		const json = runCli(["inspect", store, "--json"]);
		expect(JSON.parse(json.stdout.toString()).nodes[1]).toMatchObject({ path: "sub", kind: "invalid", membersListed: false });
		const text = runCli(["inspect", store]);
		expect(text.stdout.toString()).toMatch(/^sub {2}invalid: .*not valid JSON.*; what it holds is not listed \(not searched\)$/m);
	});
});
