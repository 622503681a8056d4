/**
 * Forms the Zarr v3 core spec (and the v2 spec) allow or forbid, found by the trial 24 conformance audit: a group's
 * extension members obey `must_understand` as an array's do (finding 02); v2 consolidated metadata of a format other
 * than 1 is refused, as zarr-python 2 and xarray refuse it (finding 07); nested sharding (`sharding_indexed` as the
 * array -> bytes codec of another's inner chunks) is read (finding 01); a refusal of what only a store's consolidated
 * metadata says names that document, not the array's own file (finding 13); node names holding `%` are names, read
 * as written (finding 11); a column name clash a rename cannot resolve advises what does (finding 09); a core data
 * type written as an object is refused alike by inspect and the export, saying why (finding 03); a v2 datetime
 * fill_value written as a date string is read as zarr-python 2 (numpy) reads it, exactly, or refused (finding 05).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { NAT, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable, inspectStore } from "../src/index.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { runCli, tempDir } from "./support/cli.js";
import { serveFolder } from "./support/served-folder.js";

const work = tempDir("dt64-spec-");
const http = serveFolder(work);
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

describe("nested sharding (v3 sharding_indexed spec: the inner codecs end in any array -> bytes codec, sharding too)", () => {
	const shard = (chunkShape: number[], codecs: object[], more: Record<string, unknown> = {}) => ({ name: "sharding_indexed", configuration: { chunk_shape: chunkShape, codecs, ...more } });
	const GZIP = { name: "gzip", configuration: { level: 1 } };
	// 10 x 9 seconds, NaT at every 7th and in rows 4 and 5 whole (inner shards and nested inner chunks all fill).
	const values = BigInt64Array.from({ length: 90 }, (_, i) => (i % 7 === 0 || (i >= 36 && i < 54) ? NAT : BigInt(1_600_000_000 + 37 * i)));
	const expected = [...values].map((v) => (v === NAT ? null : v));
	const timeValues = (table: Awaited<ReturnType<typeof exportedArrow>>, name: string) => {
		const column = table.getChild(name)!;
		return Array.from({ length: column.length }, (_, i) => (column.get(i) === null ? null : (column.data[0].values as BigInt64Array)[i]));
	};

	const layouts: [string, object[]][] = [
		["two levels, as the trial's store", [shard([3, 6], [shard([1, 2], [LE])])]],
		["the nested index at the start, without a checksum, big endian", [shard([3, 6], [shard([1, 2], [{ name: "bytes", configuration: { endian: "big" } }], { index_location: "start", index_codecs: [{ name: "bytes", configuration: { endian: "big" } }] })])]],
		["gzip after the nested sharding codec, transposes before it and inside it", [{ name: "transpose", configuration: { order: [1, 0] } }, shard([6, 3], [{ name: "transpose", configuration: { order: [1, 0] } }, shard([1, 3], [LE, GZIP]), GZIP])]],
		["three levels", [shard([6, 3], [shard([3, 3], [shard([1, 1], [LE])])])]],
	];
	for (const [name, codecs] of layouts) {
		it(`exports ${name} exactly, and inspect calls it exportable`, async () => {
			const root = fresh("nested.zarr");
			await writeArray(root, "", { shape: [10, 9], chunks: [6, 6], dataType: SECONDS, values, codecs });
			const table = await exportedArrow((sink) => exportTable(root, sink, {}));
			expect(timeValues(table, table.schema.fields[0].name)).toEqual(expected);
			const [node] = (await inspectStore(root)).nodes;
			expect(node).toMatchObject({ kind: "array", exportable: true });
		});
	}

	it("a companion column of another type, nested-sharded, with its fill value in the missing nested inner chunks", async () => {
		const root = fresh("nested-table.zarr");
		await writeArray(root, "time", { shape: [12], chunks: [12], dataType: SECONDS, values: BigInt64Array.from({ length: 12 }, (_, i) => BigInt(i)), codecs: [LE], dimensionNames: ["time"] });
		const level = Int32Array.from({ length: 12 }, (_, i) => (i >= 4 && i < 8 ? -1 : i * 10));
		await writeArray(root, "level", { shape: [12], chunks: [12], dataType: "int32", fillValue: -1, values: level, codecs: [shard([6], [shard([2], [LE])])], dimensionNames: ["time"] });
		const table = await exportedArrow((sink) => exportTable(root, sink, { columns: ["time", "level"], cf: false }));
		expect([...table.getChild("level")!].map(Number)).toEqual([...level]);
	});

	it("a nested index that fails its checksum is CHUNK_CORRUPT naming the shard and the inner chunk", async () => {
		const root = fresh("nested-corrupt.zarr");
		await writeArray(root, "", {
			shape: [10, 9],
			chunks: [6, 6],
			dataType: SECONDS,
			values,
			codecs: [shard([3, 6], [shard([1, 2], [LE])], { index_codecs: [LE] })],
			// The first inner shard is the shard's first 292 bytes: 9 nested inner chunks of 16 bytes, its index (9 x 16)
			// and crc32c. Flip a byte of that checksum.
			corruptChunk: (coords: number[], bytes: Uint8Array) => (coords[0] === 0 && coords[1] === 0 ? bytes.map((b, i) => (i === 290 ? b ^ 0xff : b)) : bytes),
		});
		await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject({
			code: "CHUNK_CORRUPT",
			message: "shard c/0/0 (inner chunk [0,0]): index checksum mismatch (crc32c)",
		});
	});
});

describe("a refusal of what only the consolidated metadata says (finding 13)", () => {
	/** A v3 root group consolidating `t`, its entry edited by `edit` (the array's own zarr.json left as written). */
	async function consolidated(name: string, edit: (entry: Record<string, unknown>) => void): Promise<string> {
		const root = fresh(name);
		// Fill "NaT": the document goes through JSON.parse and back, which would round -2^63.
		await writeArray(root, "t", { shape: [8], chunks: [4], dataType: SECONDS, fillValue: "NaT", values: BigInt64Array.from({ length: 8 }, (_, i) => BigInt(i)), codecs: [LE] });
		const entry = JSON.parse(fs.readFileSync(path.join(root, "t", "zarr.json"), "utf8"));
		edit(entry);
		fs.writeFileSync(path.join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {}, consolidated_metadata: { kind: "inline", must_understand: false, metadata: { t: entry } } }));
		return root;
	}

	it("names the group's zarr.json and the entry, message and path alike, when the array's own zarr.json says otherwise", async () => {
		const root = await consolidated("stale.zarr", (entry) => void (entry.foo = { must_understand: true }));
		const refusal = { code: "UNSUPPORTED", path: "zarr.json", message: `${root}/zarr.json (consolidated metadata of "t"): zarr.json member "foo" is an extension this reader does not know, and it does not say "must_understand": false` };
		await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject(refusal);
		await expect(exportedArrow((sink) => exportTable(root, sink, { columns: ["t"] }))).rejects.toMatchObject({ message: expect.stringContaining(`array t (${root}/zarr.json (consolidated metadata of "t")): zarr.json member "foo"`) });
	});

	it("names the array's own zarr.json when both say the same", async () => {
		const root = await consolidated("agreeing.zarr", () => undefined);
		for (const at of [root, path.join(root, "t")]) {
			const entry = JSON.parse(fs.readFileSync(path.join(at, "zarr.json"), "utf8"));
			const t = at === root ? entry.consolidated_metadata.metadata.t : entry;
			t.data_type = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 0 } };
			fs.writeFileSync(path.join(at, "zarr.json"), JSON.stringify(entry));
		}
		await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject({ message: expect.stringMatching(new RegExp(`^${root}/t/zarr.json: data_type: configuration.scale_factor`)) });
	});
});

describe("node names holding % (legal in Zarr: only /, empty, . and .. are not names)", () => {
	const NAMES = ["50%", "t%20x", "a b", "té"];
	async function namesStore(): Promise<string> {
		const root = fresh("names.zarr");
		fs.mkdirSync(root);
		fs.writeFileSync(path.join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
		for (const [k, name] of NAMES.entries()) {
			await writeArray(root, name, { shape: [2], chunks: [2], dataType: SECONDS, values: BigInt64Array.of(BigInt(10 * k), BigInt(10 * k + 1)), codecs: [LE] });
		}
		return root;
	}
	const seconds = (table: Awaited<ReturnType<typeof exportedArrow>>, name: string) => [...(table.getChild(name)!.data[0].values as BigInt64Array)];

	it("are read as written by --array and --columns, from a folder and over HTTP, and --columns all takes them all", async () => {
		const root = await namesStore();
		const url = `${http.server.url}/${path.relative(work, root).split(path.sep).map(encodeURIComponent).join("/")}`;
		for (const store of [root, url]) {
			for (const [k, name] of NAMES.entries()) {
				const table = await exportedArrow((sink) => exportTable(store, sink, { array: name }));
				expect(seconds(table, name)).toEqual([BigInt(10 * k), BigInt(10 * k + 1)]);
			}
			const both = await exportedArrow((sink) => exportTable(store, sink, { columns: ["t%20x", "50%"] }));
			expect([seconds(both, "t%20x"), seconds(both, "50%")]).toEqual([
				[10n, 11n],
				[0n, 1n],
			]);
		}
		const all = await exportedArrow((sink) => exportTable(root, sink, { columns: "all" }));
		expect(all.schema.fields.map((field) => field.name).sort()).toEqual([...NAMES].sort());
	});

	it("a percent-encoding is not decoded: 50%25 names no array, and ..%2Fx is a name, never a way out of the store", async () => {
		const root = await namesStore();
		await expect(exportedArrow((sink) => exportTable(root, sink, { array: "50%25" }))).rejects.toMatchObject({ code: "ARRAY_NOT_FOUND" });
		const encodedName = runCli([root, "--array", "..%2Fnames.zarr", "-o", path.join(work, "never.arrow")]);
		expect([encodedName.status, encodedName.stderr]).toEqual([1, expect.stringMatching(/\/\.\.%2Fnames\.zarr: no zarr\.json, \.zarray or \.zgroup .*\[ARRAY_NOT_FOUND\]\n$/)]);
	});
});

describe("column name clashes that a rename by name cannot resolve (finding 09)", () => {
	/** A 2 x 3 root array in a folder of its own named `name` (its column's name, `.zarr` dropped). */
	async function grid(name: string, dimensionNames: string[]): Promise<string> {
		const root = path.join(fresh("grid"), name);
		await writeArray(root, "", { shape: [2, 3], chunks: [2, 3], dataType: SECONDS, values: BigInt64Array.from({ length: 6 }, (_, i) => BigInt(i)), codecs: [LE], dimensionNames });
		return root;
	}

	it("an array named like its dimension: --column names its column (the advice was a --rename that renames both)", async () => {
		const root = await grid("v.zarr", ["x", "v"]);
		const refused = runCli([root, "--index", "-o", path.join(work, "never.arrow")]);
		expect([refused.status, refused.stderr]).toEqual([
			2,
			'dt64-export: the column name "v" is given to both the index of dimension "v" and array v, which a rename by name cannot tell apart (it renames both): name the array\'s column with --column <new name> [COLUMNS_INCOMPATIBLE]\n',
		]);
		const table = await exportedArrow((sink) => exportTable(root, sink, { index: true, column: "value" }));
		expect(table.schema.fields.map((field) => field.name)).toEqual(["x", "v", "value"]);
	});

	it("two dimensions of one name (dimension_names may repeat one): export without --index, which works", async () => {
		const root = await grid("dup.zarr", ["x", "x"]);
		for (const index of ["--index", "--index=positions"]) {
			const refused = runCli([root, index, "-o", path.join(work, "never.arrow")]);
			expect(refused.stderr).toBe(
				'dt64-export: the column name "x" is given to both the index of dimension "x" and the index of dimension "x", which a rename by name cannot tell apart (it renames both): export without --index, or write the array with distinct dimension names [COLUMNS_INCOMPATIBLE]\n',
			);
		}
		expect((await exportedArrow((sink) => exportTable(root, sink, {}))).numRows).toBe(6);
	});

	it("a clash a rename resolves still advises it", () => {
		return grid("w.zarr", ["x", "y"]).then((root) => {
			const refused = runCli([root, "--index", "--rename", "x=y", "-o", path.join(work, "never.arrow")]);
			expect(refused.stderr).toMatch(/column name "y" is given to both the index of dimension "x" and the index of dimension "y": rename one with --rename y=<new name> \[COLUMNS_INCOMPATIBLE\]\n$/);
		});
	});
});

describe("a core data type written as an object ({\"name\": \"uint8\"}: the spec writes core types as strings) (finding 03)", () => {
	it("is refused as a column by the export and inspect alike, saying the string is the core type's form; --columns all leaves it out", async () => {
		const root = fresh("object-type.zarr");
		await writeArray(root, "time", { shape: [4], chunks: [4], dataType: SECONDS, values: BigInt64Array.of(0n, 1n, 2n, 3n), codecs: [LE], dimensionNames: ["time"] });
		await writeArray(root, "u8", { shape: [4], chunks: [4], dataType: { name: "uint8" }, fillValue: 200n, values: Uint8Array.of(1, 2, 3, 4), codecs: [LE], dimensionNames: ["time"] });
		await writeArray(root, "level", { shape: [4], chunks: [4], dataType: "uint8", fillValue: 200n, values: Uint8Array.of(1, 2, 3, 4), codecs: [LE], dimensionNames: ["time"] });
		const why = 'data type {"name":"uint8"} cannot be exported as a column: a core data type is named by its string, "uint8", as the v3 spec writes it';
		await expect(exportedArrow((sink) => exportTable(root, sink, { columns: ["time", "u8"] }))).rejects.toMatchObject({ code: "COLUMN_UNSUPPORTED", message: expect.stringContaining(why) });
		const u8 = (await inspectStore(root)).nodes.find((node) => node.path === "u8");
		expect(u8).toMatchObject({ dataType: '{"name":"uint8"}', companion: false, companionReason: expect.stringContaining(why) });
		let leftOut: readonly string[] = [];
		await exportedArrow(async (sink) => {
			leftOut = (await exportTable(root, sink, { columns: "all" })).leftOut;
		});
		expect(leftOut).toContainEqual(expect.stringContaining(`u8: ${why}`));
	});
});

describe("a v2 datetime64 fill_value written as a date string (zarr-python 2 reads it as numpy does) (finding 05)", () => {
	/** A v2 array of 8 values in chunks of 4, only the first chunk written (0, 1, 2, 3): the rest is the fill value. */
	function v2Store(dtype: string, fill: unknown): string {
		const root = fresh("v2-fill.zarr");
		fs.mkdirSync(root);
		fs.writeFileSync(path.join(root, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [8], chunks: [4], dtype, fill_value: fill, order: "C", filters: null, compressor: null }));
		fs.writeFileSync(path.join(root, "0"), new Uint8Array(BigInt64Array.of(0n, 1n, 2n, 3n).buffer));
		return root;
	}
	const counts = async (root: string, unit?: "s" | "ms" | "us" | "ns") => {
		const table = await exportedArrow((sink) => exportTable(root, sink, unit === undefined ? {} : { unit }));
		const column = table.getChildAt(0)!;
		return Array.from({ length: column.length }, (_, i) => (column.get(i) === null ? null : (column.data[0].values as BigInt64Array)[i]));
	};

	it("an ISO 8601 date or date-time in the array's unit is its exact count; an empty string is NaT", async () => {
		expect((await counts(v2Store("<M8[s]", "2020-01-01T00:00:00"))).slice(4)).toEqual([1577836800n, 1577836800n, 1577836800n, 1577836800n]);
		// Days and months: the counts 18262 (2020-01-01) and 601 (2020-02), in seconds once exported.
		expect((await counts(v2Store("<M8[D]", "2020-01-01"))).slice(4, 5)).toEqual([18262n * 86400n]);
		expect((await counts(v2Store("<M8[M]", "2020-02"))).slice(4, 5)).toEqual([1580515200n]);
		expect((await counts(v2Store("<M8[10ms]", "1970-01-01T00:00:01.23"), "ms")).slice(4, 5)).toEqual([1230n]);
		expect((await counts(v2Store("<M8[s]", ""))).slice(4)).toEqual([null, null, null, null]);
	});

	it("a date finer than the unit (numpy floors it), or no date, is refused naming the fill value; v3 still takes only integers and NaT", async () => {
		const refused = async (root: string, why: string) =>
			expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject({ code: "METADATA_INVALID", field: "fill_value", message: expect.stringContaining(why) });
		await refused(v2Store("<M8[s]", "2020-01-01T00:00:00.5"), `fill_value: "2020-01-01T00:00:00.5" is not a whole number of the array's unit (s): numpy would floor it`);
		await refused(v2Store("<M8[D]", "2020-01-01T12:00"), `is not a whole number of the array's unit (D)`);
		await refused(v2Store("<M8[s]", "tomorrow"), `fill_value: "tomorrow" is neither an integer, "NaT" nor an ISO 8601 date or date-time`);
		await refused(v2Store("<m8[s]", "2020-01-01"), 'fill_value: the only string allowed is "NaT"');
		const v3 = fresh("v3-fill.zarr");
		await writeArray(v3, "", { shape: [2], chunks: [1], dataType: SECONDS, fillValue: "2020-01-01T00:00:00", values: BigInt64Array.of(1n, 2n), codecs: [LE] });
		await refused(v3, 'fill_value: the only string allowed is "NaT"');
	});
});
