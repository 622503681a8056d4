import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { formatIsoDuration, formatIsoTimestamp } from "../src/convert/iso8601.js";
import { formatInspectReport, inspectStore, type EndValue, type InspectNode } from "../src/inspect.js";
import { FIXTURES, readRawInt64, runCli, tempDir } from "./support/cli.js";
import { serveFolder } from "./support/served-folder.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { HAS_ZIP_PROGRAM, writeStoredZip, zipWithProgram } from "./support/zip.js";

const NAT = -(2n ** 63n);
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const work = tempDir("dt64-inspect-");
const http = serveFolder(work);

let counter = 0;
const fresh = (name = "store.zarr") => path.join(work, `${counter++}`, name);

/** A group with a datetime64 array `time` and a float32 array `temperature` beside it. */
async function mixedGroup(): Promise<string> {
	const root = fresh("weather.zarr");
	const values = BigInt64Array.from([NAT, NAT, 1107403506n, 1n, 2n, NAT, 3n, 1107403507n, NAT, NAT]);
	await writeArray(root, "time", { shape: [10], chunks: [4], dataType: seconds, values, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
	fs.mkdirSync(path.join(root, "temperature"));
	fs.writeFileSync(
		path.join(root, "temperature", "zarr.json"),
		JSON.stringify({
			zarr_format: 3,
			node_type: "array",
			shape: [10],
			data_type: "float32",
			chunk_grid: { name: "regular", configuration: { chunk_shape: [5] } },
			chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
			fill_value: "NaN",
			codecs: [LE, { name: "zstd", configuration: { level: 3, checksum: false } }],
			attributes: {},
		}),
	);
	return root;
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
	const result = runCli(args);
	return { status: result.status, stdout: result.stdout.toString(), stderr: result.stderr };
}


const node = (nodes: InspectNode[], nodePath: string) => nodes.find((n) => n.path === nodePath)!;
const iso = (end: EndValue | undefined) => (end?.status === "found" ? end.iso : end?.status);

describe("inspect a folder store", () => {
	it("prints every node of a group, with first and last values of the datetime64 array", async () => {
		const root = await mixedGroup();
		const result = cli(["inspect", root]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(result.stdout).toBe(
			[
				`${root}: folder store, 3 nodes found by walking the folder`,
				"",
				"/  group",
				"",
				"temperature  array",
				"  data type   float32",
				"  shape       [10]",
				"  chunks      [5]",
				"  codecs      bytes(little) zstd(level=3)",
				'  fill value  "NaN"',
				"  exportable  no: data type is float32, not numpy.datetime64 or numpy.timedelta64",
				"  companion   yes, as float: a table column, broadcast by dimension names",
				"",
				"time  array",
				"  data type   datetime64[s] (unit s, scale factor 1)",
				"  shape       [10]",
				"  chunks      [4]",
				"  codecs      bytes(little) gzip(level=1)",
				"  fill value  NaT",
				"  exportable  yes, as timestamp[s]",
				"  first       2005-02-03T04:05:06, row 2",
				"  last        2005-02-03T04:05:07, row 7",
				"",
			].join("\n"),
		);
	});

	it("--json is the same report, with int64 counts as strings", async () => {
		const root = await mixedGroup();
		const result = cli(["inspect", root, "--json"]);
		expect(result.status).toBe(0);
		const report = JSON.parse(result.stdout);
		expect(report).toMatchObject({ store: root, storeKind: "directory", discovery: "directory" });
		expect(report.nodes.map((n: InspectNode) => [n.path, n.kind])).toEqual([
			["", "group"],
			["temperature", "array"],
			["time", "array"],
		]);
		expect(report.nodes[2]).toEqual({
			path: "time",
			kind: "array",
			zarrFormat: 3,
			dataType: "datetime64[s]",
			unit: "s",
			scaleFactor: 1,
			shape: [10],
			chunkShape: [4],
			codecs: ["bytes(little)", "gzip(level=1)"],
			fillValue: "NaT",
			exportable: true,
			arrowType: "timestamp[s]",
			first: { status: "found", row: 2, count: "1107403506", iso: "2005-02-03T04:05:06" },
			last: { status: "found", row: 7, count: "1107403507", iso: "2005-02-03T04:05:07" },
		});
		expect(report.nodes[1]).toMatchObject({ exportable: false, dataType: "float32", fillValue: '"NaN"', codecs: ["bytes(little)", "zstd(level=3)"], companion: true, arrowType: "float" });
	});

	it("shows dimension names, and why an array of a plain data type cannot be a companion column", async () => {
		const root = fresh("companions.zarr");
		await writeArray(root, "t", { shape: [2, 3], chunks: [2, 3], dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, values: new BigInt64Array(6), dimensionNames: ["time", null] });
		await writeArray(root, "n", { shape: [2, 3], chunks: [2, 3], dataType: "int64", fillValue: 2n ** 53n + 1n, values: new BigInt64Array(6), dimensionNames: ["time", "station"] });
		await writeArray(root, "bad", { shape: [2], chunks: [2], dataType: "int8", fillValue: 0, values: new Int8Array(2), extraMetadata: { codecs: [{ name: "lz77" }] } });
		const result = cli(["inspect", root]);
		expect(result.status).toBe(0);
		expect(result.stdout).toContain("bad  array\n  data type   int8\n");
		expect(result.stdout).toContain('  companion   no: unknown codec "lz77"\n');
		expect(result.stdout).toContain("n  array\n  data type   int64\n  shape       [2, 3]\n  chunks      [2, 3]\n  codecs      bytes(little)\n  fill value  9007199254740993\n  dimensions  [time, station]\n");
		expect(result.stdout).toContain("  companion   yes, as int64: a table column, broadcast by dimension names\n");
		expect(result.stdout).toContain("  dimensions  [time, -]\n  exportable  yes, as timestamp[s]\n");
	});

	it("a sharded array: shard shape, inner chunks, index and inner codecs", async () => {
		const root = fresh("grid.zarr");
		const values = BigInt64Array.from({ length: 9 * 6 }, (_, i) => (i < 7 || i > 50 ? NAT : BigInt(i) * 60n));
		const sharding = {
			name: "sharding_indexed",
			configuration: { chunk_shape: [3, 2], codecs: [LE, { name: "zstd", configuration: { level: 5, checksum: true } }], index_codecs: [LE, { name: "crc32c" }], index_location: "start" },
		};
		const minutes = { name: "numpy.datetime64", configuration: { unit: "m", scale_factor: 1 } };
		await writeArray(root, "", { shape: [9, 6], chunks: [6, 6], dataType: minutes, values, codecs: [sharding] });
		const result = cli(["inspect", root]);
		expect(result.status).toBe(0);
		expect(result.stdout).toBe(
			[
				`${root}: folder store, an array at the root`,
				"",
				"/  array",
				"  data type   datetime64[m] (unit m, scale factor 1)",
				"  shape       [9, 6]",
				"  shards      [6, 6], index at the start: bytes(little) crc32c",
				"  chunks      [3, 2] inside each shard",
				"  codecs      bytes(little) zstd(level=5, checksum)",
				"  fill value  NaT",
				"  exportable  yes, as timestamp[s]",
				"  first       1970-01-01T07:00:00, row 7",
				"  last        1970-01-03T02:00:00, row 50",
				"",
			].join("\n"),
		);
		const json = JSON.parse(cli(["inspect", root, "--json"]).stdout);
		expect(json.nodes[0]).toMatchObject({ shardShape: [6, 6], chunkShape: [3, 2], indexLocation: "start", indexCodecs: ["bytes(little)", "crc32c"] });
	});

	it("finds the first value in C order even when it is not in the first chunk (N-d)", async () => {
		const root = fresh();
		// 4 x 4 in 2 x 2 chunks: chunk (0,0) holds a value at row 1 only, chunk (0,1) one at row 0, which comes first.
		const values = new BigInt64Array(16).fill(NAT);
		values[4] = 40n; // (1, 0), in chunk (0, 0)
		values[2] = 20n; // (0, 2), in chunk (0, 1)
		values[13] = 130n; // (3, 1), in chunk (1, 0)
		values[11] = 110n; // (2, 3), in chunk (1, 1)
		await writeArray(root, "", { shape: [4, 4], chunks: [2, 2], dataType: seconds, values, codecs: [LE] });
		const [array] = (await inspectStore(root)).nodes;
		expect(array.first).toEqual({ status: "found", row: 2, count: 20n, iso: "1970-01-01T00:00:20" });
		expect(array.last).toEqual({ status: "found", row: 13, count: 130n, iso: "1970-01-01T00:02:10" });
	});

	it("ignores the padding of edge chunks and reads missing chunks as the fill value", async () => {
		const root = fresh();
		const values = BigInt64Array.from([NAT, NAT, NAT, NAT, NAT, NAT, NAT]);
		// Fill 0: the missing chunks are 1970-01-01; the padding past row 6 of the last chunk (also 0) is not data.
		await writeArray(root, "", { shape: [7], chunks: [3], dataType: seconds, values, fillValue: 0n, omitChunks: (c) => c[0] === 1, codecs: [LE] });
		const [array] = (await inspectStore(root)).nodes;
		expect(array.fillValue).toBe("0");
		expect(array.first).toMatchObject({ status: "found", row: 3, iso: "1970-01-01T00:00:00" });
		expect(array.last).toMatchObject({ status: "found", row: 5 });
	});

	it("says none for an all-NaT array and unknown past the chunk limit", async () => {
		const root = fresh();
		const values = new BigInt64Array(100).fill(NAT);
		values[50] = 5n;
		await writeArray(root, "", { shape: [100], chunks: [5], dataType: seconds, values, codecs: [LE] });
		const limited = (await inspectStore(root, { maxChunks: 4 })).nodes[0];
		expect(limited.first).toEqual({ status: "unknown", chunksRead: 4 });
		expect(formatInspectReport(await inspectStore(root, { maxChunks: 4 }))).toContain("  first       unknown (no value in the first 4 chunks read)\n");
		expect((await inspectStore(root)).nodes[0].first).toMatchObject({ status: "found", row: 50 });
		const empty = fresh();
		await writeArray(empty, "", { shape: [10], chunks: [5], dataType: seconds, values: new BigInt64Array(10).fill(NAT), codecs: [LE] });
		const report = await inspectStore(empty);
		expect([report.nodes[0].first, report.nodes[0].last]).toEqual([{ status: "none" }, { status: "none" }]);
		expect(formatInspectReport(report)).toContain("  first       none (every value is NaT)\n");
	});

	it("formats exactly: nanoseconds, years past 9999 and before 1970, fill values past 2^53", async () => {
		const ns = fresh();
		const nanoseconds = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
		await writeArray(ns, "", { shape: [2], chunks: [2], dataType: nanoseconds, values: BigInt64Array.of(1107403506123456789n, -1n), fillValue: 2n ** 53n + 1n, codecs: [LE] });
		const a = (await inspectStore(ns)).nodes[0];
		expect([iso(a.first), iso(a.last), a.fillValue]).toEqual(["2005-02-03T04:05:06.123456789", "1969-12-31T23:59:59.999999999", "9007199254740993"]);
		const years = fresh();
		const y = { name: "numpy.datetime64", configuration: { unit: "Y", scale_factor: 1 } };
		await writeArray(years, "", { shape: [2], chunks: [1], dataType: y, values: BigInt64Array.of(-1971n, 1_000_000_000n), codecs: [LE] });
		const b = (await inspectStore(years)).nodes[0];
		expect([iso(b.first), iso(b.last)]).toEqual(["-0001-01-01T00:00:00", "+1000001970-01-01T00:00:00"]);
		const ps = fresh();
		await writeArray(ps, "", { shape: [1], chunks: [1], dataType: { name: "numpy.datetime64", configuration: { unit: "ps", scale_factor: 1 } }, values: BigInt64Array.of(1500n), codecs: [LE] });
		expect((await inspectStore(ps)).nodes[0].first).toEqual({ status: "found", row: 0, count: 1500n, iso: "1970-01-01T00:00:00.000000001", note: "floored to ns, as an export that floors writes it" });
	});

	it("a first or last value the default export refuses makes the array not exportable, with the export's own reason and code (trial 24 finding 04)", async () => {
		const ps = fresh();
		await writeArray(ps, "", { shape: [3], chunks: [3], dataType: { name: "numpy.datetime64", configuration: { unit: "ps", scale_factor: 1 } }, values: BigInt64Array.of(1000n, 1500n, NAT), codecs: [LE] });
		expect((await inspectStore(ps)).nodes[0]).toMatchObject({
			exportable: false,
			reasonCode: "TRUNCATION",
			reason: expect.stringContaining("value 1500 of datetime64[ps] at row 1 is not a whole number of ns"),
			last: { iso: "1970-01-01T00:00:00.000000001", note: "floored to ns, as an export that floors writes it" },
		});
		expect(runCli(["inspect", ps]).stdout.toString()).toMatch(/exportable {2}no: value 1500 of datetime64\[ps\] at row 1 is not a whole number of ns .*; use --round to round to the nearest .*--allow-truncate to floor\n/);
		const generic = fresh();
		await writeArray(generic, "", { shape: [2], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "generic", scale_factor: 1 } }, values: BigInt64Array.of(NAT, 5n), codecs: [LE] });
		expect((await inspectStore(generic)).nodes[0]).toMatchObject({ exportable: false, reasonCode: "VALUE_INVALID", reason: expect.stringContaining("a generic datetime64 (no unit) can only hold NaT") });
		const overflow = fresh();
		await writeArray(overflow, "", { shape: [1], chunks: [1], dataType: { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } }, values: BigInt64Array.of(2n ** 62n), codecs: [LE] });
		expect((await inspectStore(overflow)).nodes[0]).toMatchObject({ exportable: false, reasonCode: "OVERFLOW" });
		// Values the export takes as they are: exportable.
		const exact = fresh();
		await writeArray(exact, "", { shape: [2], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "ps", scale_factor: 1 } }, values: BigInt64Array.of(1000n, 2000n), codecs: [LE] });
		expect((await inspectStore(exact)).nodes[0]).toMatchObject({ exportable: true, arrowType: "timestamp[ns]" });
	});

	it("formats timestamps and durations like numpy", () => {
		expect(formatIsoTimestamp(0n, "s")).toBe("1970-01-01T00:00:00");
		expect(formatIsoTimestamp(1107403506500n, "ms")).toBe("2005-02-03T04:05:06.500");
		expect(formatIsoTimestamp(2n ** 63n - 1n, "s")).toBe("+292277026596-12-04T15:30:07");
		expect(formatIsoTimestamp(2n ** 63n - 1n, "ns")).toBe("2262-04-11T23:47:16.854775807");
		expect(formatIsoTimestamp(951782400n, "s")).toBe("2000-02-29T00:00:00");
		for (const ms of [-62135596801000, -1, 0, 951868799999, 8.64e15, -8.64e15]) {
			expect(formatIsoTimestamp(BigInt(ms), "ms")).toBe(new Date(ms).toISOString().replace(/(?:\.000)?Z$/, ""));
		}
		expect(formatIsoDuration(0n, "s")).toBe("PT0S");
		expect(formatIsoDuration(31_536_000_000n, "ms")).toBe("P365D");
		expect(formatIsoDuration(-1_500n, "ms")).toBe("-PT1.500S");
		expect(formatIsoDuration(90_061n, "s")).toBe("P1DT1H1M1S");
	});

	it("shows a v2 array's _ARRAY_DIMENSIONS when its codec cannot be read (text and JSON), as for a readable array", async () => {
		const root = fresh("v2-codec.zarr");
		const v2Array = (name: string, dtype: string, attributes: Record<string, unknown>) => {
			fs.mkdirSync(path.join(root, name), { recursive: true });
			const zarray = { zarr_format: 2, shape: [4, 3], chunks: [4, 3], dtype, compressor: { id: "lz77" }, fill_value: 0, order: "C", filters: null };
			fs.writeFileSync(path.join(root, name, ".zarray"), JSON.stringify(zarray));
			fs.writeFileSync(path.join(root, name, ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["time", "station"], ...attributes }));
		};
		fs.mkdirSync(root, { recursive: true });
		fs.writeFileSync(path.join(root, ".zgroup"), '{"zarr_format": 2}');
		v2Array("stamp", "<M8[s]", {});
		v2Array("level", "<i2", {});
		v2Array("hours", "<i4", { units: "hours since 2000-01-01" });
		// A list that does not name each dimension: no line (reading the array refuses it).
		v2Array("short", "<i2", { _ARRAY_DIMENSIONS: ["time"] });
		const result = cli(["inspect", root]);
		expect(result.status).toBe(0);
		for (const name of ["stamp", "level", "hours"]) {
			const section = result.stdout.split("\n\n").find((text) => text.startsWith(`${name}  array`))!;
			expect(section, name).toContain('codec id "lz77" is not supported');
			expect(section, name).toContain("  dimensions  [time, station]\n");
		}
		expect(result.stdout.split("\n\n").find((text) => text.startsWith("short  array"))).not.toContain("  dimensions  ");
		const { nodes } = await inspectStore(root);
		for (const name of ["stamp", "level", "hours"]) expect(node(nodes, name).dimensionNames, name).toEqual(["time", "station"]);
		expect(node(nodes, "short").dimensionNames).toBeUndefined();
	});

	it("lists a node whose zarr.json is broken as invalid, and keeps going", async () => {
		const root = await mixedGroup();
		fs.mkdirSync(path.join(root, "broken"));
		fs.writeFileSync(path.join(root, "broken", "zarr.json"), "{not json");
		const result = cli(["inspect", root]);
		expect(result.status).toBe(0);
		expect(result.stdout).toMatch(/\nbroken {2}invalid: .*broken\/zarr\.json: not valid JSON/);
		expect(result.stdout).toContain("time  array");
	});

	it("a datetime64 array that cannot be exported says why", async () => {
		const root = fresh();
		await writeArray(root, "", { shape: [2], chunks: [2], dataType: seconds, values: BigInt64Array.of(1n, 2n), codecs: [LE] });
		const file = path.join(root, "zarr.json");
		fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace('"name": "bytes"', '"name": "lz77"'));
		const [array] = (await inspectStore(root)).nodes;
		expect(array).toMatchObject({ dataType: "datetime64[s]", exportable: false, reason: 'unknown codec "lz77"' });
		expect(array.first).toBeUndefined();
	});

	it("errors are one line with exit 1; --help documents the command", () => {
		const missing = cli(["inspect", path.join(work, "nope.zarr")]);
		expect(missing.status).toBe(1);
		expect(missing.stderr).toBe(`dt64-export: store not found: ${path.join(work, "nope.zarr")} [STORE_NOT_FOUND]\n`);
		const notZarr = fresh();
		fs.mkdirSync(notZarr, { recursive: true });
		const none = cli(["inspect", notZarr]);
		expect(none.status).toBe(1);
		expect(none.stderr).toBe(`dt64-export: ${notZarr}: no zarr.json, .zarray or .zgroup (not a Zarr array or group) [ARRAY_NOT_FOUND]\n`);
		expect(cli(["inspect", "--help"]).stdout).toMatch(/--json/);
		expect(cli(["--help"]).stdout).toMatch(/inspect <store>/);
	});
});

describe("inspect the zarr-python fixtures", () => {
	const present = fs.existsSync(FIXTURES);
	if (!present) console.warn(`skipping zarr-python fixtures in inspect: ${FIXTURES} not found`);
	const cases: [string, string, string, string][] = [
		["datetime64[Y].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-01-01T00:00:00"],
		["datetime64[W].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-02-03T00:00:00"],
		["datetime64[D].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-02-03T00:00:00"],
		["datetime64[h].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-02-03T04:00:00"],
		["datetime64[m].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-02-03T04:05:00"],
		["datetime64[s].zarr", "timestamp[s]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["datetime64[ms].zarr", "timestamp[ms]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["datetime64[10ms].zarr", "timestamp[ms]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["datetime64[us].zarr", "timestamp[us]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["datetime64[10us].zarr", "timestamp[us]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["datetime64[ns].zarr", "timestamp[ns]", "1970-01-01T00:00:00", "2005-02-03T04:05:06"],
		["timedelta64[ms].zarr", "duration[ms]", "P365D", "PT0S"],
		["timedelta64[ns].zarr", "duration[ns]", "P365D", "PT0S"],
	];
	for (const [name, arrowType, first, last] of cases) {
		it.skipIf(!present)(`${name}: first ${first}, last ${last}`, async () => {
			const [array] = (await inspectStore(path.join(FIXTURES, name))).nodes;
			expect(array).toMatchObject({ kind: "array", exportable: true, arrowType, fillValue: "NaT", shape: name.startsWith("time") ? [11] : [6], chunkShape: [5] });
			expect(array.codecs).toEqual(["bytes(little)", "zstd(level=0)"]);
			expect([iso(array.first), iso(array.last)]).toEqual([first, last]);
			expect(array.last).toMatchObject({ row: name.startsWith("time") ? 9 : 4 });
		});
	}

	it.skipIf(!present)("datetime64[10us].zarr: the scale factor is shown", () => {
		const result = cli(["inspect", path.join(FIXTURES, "datetime64[10us].zarr")]);
		expect(result.stdout).toContain("  data type   datetime64[10us] (unit us, scale factor 10)\n");
		expect(result.stdout).toContain("  last        2005-02-03T04:05:06, row 4\n");
	});

	it.skipIf(!present)("mixed-group.zarr: groups, string arrays and the datetime64 array", () => {
		const result = cli(["inspect", path.join(FIXTURES, "mixed-group.zarr")]);
		expect(result.status).toBe(0);
		const blocks = result.stdout.split("\n\n");
		expect(blocks[1]).toBe("/  group\nmeta  group");
		expect(blocks[2]).toContain("meta/bbox  array\n  data type   string\n");
		expect(blocks[2]).toContain("  codecs      vlen-utf8 zstd(level=0)\n");
		expect(blocks[2]).toContain("  exportable  no: data type is string, not numpy.datetime64 or numpy.timedelta64");
		expect(blocks[4]).toBe(
			[
				"meta/date  array",
				"  data type   datetime64[ms] (unit ms, scale factor 1)",
				"  shape       [3]",
				"  chunks      [3]",
				"  codecs      bytes(little) zstd(level=0)",
				"  fill value  NaT",
				"  exportable  yes, as timestamp[ms]",
				"  first       2023-01-01T00:00:00, row 0",
				"  last        2023-01-03T00:00:00, row 2",
				"",
			].join("\n"),
		);
	});
});

describe("zip stores", () => {
	async function zipped(make: (folder: string, zipFile: string) => void): Promise<{ zip: string; folder: string }> {
		const folder = await mixedGroup();
		const zip = `${folder}.zip`;
		make(folder, zip);
		return { zip, folder };
	}

	const makers: [string, boolean, (folder: string, zipFile: string) => void][] = [
		["STORED entries, store at the top", true, (f, z) => writeStoredZip(f, z)],
		["STORED entries under the store's folder name", true, (f, z) => writeStoredZip(f, z, { prefix: path.basename(f) })],
		["zip -r from inside the store (deflate)", HAS_ZIP_PROGRAM, (f, z) => zipWithProgram(f, z)],
		["zip -r store.zip store.zarr (deflate, one top folder)", HAS_ZIP_PROGRAM, (f, z) => zipWithProgram(f, z, { fromParent: true })],
	];
	if (!HAS_ZIP_PROGRAM) console.warn("skipping zip tests that need the zip program: not installed");
	for (const [name, available, make] of makers) {
		it.skipIf(!available)(`${name}: inspect lists the zip, export finds the array`, async () => {
			const { zip, folder } = await zipped(make);
			const fromFolder = formatInspectReport(await inspectStore(folder));
			const fromZip = cli(["inspect", zip]);
			expect(fromZip.stderr).toBe("");
			expect(fromZip.stdout).toBe(fromFolder.replace(`${folder}: folder store, 3 nodes found by walking the folder`, `${zip}: zip store, 3 nodes found by listing the zip`));
			const out = path.join(work, `zip${counter++}.arrow`);
			const exported = cli([zip, "-o", out, "-q"]);
			expect(exported.stderr).toBe("");
			expect(readRawInt64(out)).toEqual([null, null, 1107403506n, 1n, 2n, null, 3n, 1107403507n, null, null]);
		});
	}

	it("a sharded array in a STORED zip is read by ranges", async () => {
		const folder = fresh("sharded.zarr");
		const values = BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(i) * 1000n);
		const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [LE], index_codecs: [LE, { name: "crc32c" }] } };
		await writeArray(folder, "", { shape: [1000], chunks: [400], dataType: seconds, values, codecs: [sharding] });
		writeStoredZip(folder, `${folder}.zip`);
		const [array] = (await inspectStore(`${folder}.zip`)).nodes;
		expect([iso(array.first), iso(array.last)]).toEqual(["1970-01-01T00:00:00", formatIsoTimestamp(999_000n, "s")]);
		const out = path.join(work, `zip${counter++}.arrow`);
		expect(cli([`${folder}.zip`, "-o", out, "-q"]).status).toBe(0);
		expect(readRawInt64(out)).toEqual(Array.from(values));
	});

	it("a v2 array zipped under its folder's name (no zarr.json, no .zmetadata) is found too", () => {
		const folder = fresh("v2-array.zarr");
		fs.mkdirSync(folder, { recursive: true });
		fs.writeFileSync(path.join(folder, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [3], chunks: [3], dtype: "<M8[s]", compressor: null, fill_value: null, order: "C", filters: null }));
		fs.writeFileSync(path.join(folder, "0"), Buffer.from(BigInt64Array.of(1n, 2n, 3n).buffer));
		const zips: [string, boolean, (zipFile: string) => void][] = [
			["STORED", true, (z) => writeStoredZip(folder, z, { prefix: path.basename(folder) })],
			["zip -r", HAS_ZIP_PROGRAM, (z) => zipWithProgram(folder, z, { fromParent: true })],
		];
		for (const [name, available, make] of zips) {
			if (!available) continue;
			const zip = path.join(work, `v2-top-${name === "STORED" ? "stored" : "deflate"}.zip`);
			make(zip);
			const out = path.join(work, `zip${counter++}.arrow`);
			const exported = cli([zip, "-o", out, "-q"]);
			expect(exported.stderr, name).toBe("");
			expect(readRawInt64(out)).toEqual([1n, 2n, 3n]);
		}
	});

	it("a folder that holds a store, named instead of it: the error names the store inside", () => {
		const parent = fresh("holder");
		const inner = path.join(parent, "inner.zarr");
		fs.mkdirSync(inner, { recursive: true });
		fs.writeFileSync(path.join(inner, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [1], chunks: [1], dtype: "<M8[s]", compressor: null, fill_value: null, order: "C", filters: null }));
		const result = cli(["inspect", parent]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(
			`dt64-export: ${parent}: no zarr.json, .zarray or .zgroup (not a Zarr array or group); it holds the Zarr node "inner.zarr": name that as the store (${inner}), or as the array inside this one (inner.zarr) [ARRAY_NOT_FOUND]\n`,
		);
	});

	it("a file that is not a zip is one line", () => {
		const bad = path.join(work, "bad.zip");
		fs.writeFileSync(bad, "this is not a zip file at all");
		const result = cli(["inspect", bad]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: .*bad\.zip: not a readable zip file \(.*\) \[STORE_INVALID\]\n$/);
	});

	it("a netCDF file (classic or netCDF-4/HDF5) is named as one, with how xarray converts it", () => {
		for (const [name, start] of [
			["classic.nc", "CDF\x01\x00\x00\x00\x03"],
			["offset64.nc", "CDF\x02\x00\x00\x00\x00"],
			["netcdf4.nc", "\x89HDF\r\n\x1a\n\x00\x00"],
		]) {
			const file = path.join(work, name);
			fs.writeFileSync(file, Buffer.from(start, "latin1"));
			for (const args of [["inspect", file], [file, "-o", path.join(work, `${name}.arrow`)]]) {
				const result = cli(args);
				expect(result.status).toBe(1);
				expect(result.stderr).toBe(`dt64-export: not a Zarr store: ${file} is a netCDF (or HDF5) file; xarray converts one to a Zarr store: xr.open_dataset(file).to_zarr(store) [STORE_INVALID]\n`);
			}
		}
	});
});

describe("zarr-python 2's draft v3 layout", () => {
	it("is named as the experimental draft, with how to write the store again", () => {
		// What zarr 2.13 writes with ZARR_V3_EXPERIMENTAL_API=1 and zarr_version=3 (an entry point, meta/root/, data/root/).
		const store = path.join(work, "draft-v3.zarr");
		const protocol = "https://purl.org/zarr/spec/protocol/core/3.0";
		fs.mkdirSync(path.join(store, "meta", "root"), { recursive: true });
		fs.mkdirSync(path.join(store, "data", "root", "t"), { recursive: true });
		fs.writeFileSync(path.join(store, "zarr.json"), JSON.stringify({ extensions: [], metadata_encoding: protocol, metadata_key_suffix: ".json", zarr_format: protocol }, null, 4));
		fs.writeFileSync(path.join(store, "meta", "root", "t.array.json"), JSON.stringify({ shape: [10], chunk_grid: { type: "regular", chunk_shape: [5], separator: "/" }, data_type: "<M8[ns]", chunk_memory_layout: "C", fill_value: null, extensions: [], attributes: {} }));
		fs.writeFileSync(path.join(store, "data", "root", "t", "c0"), Buffer.alloc(40));
		for (const args of [["inspect", store], [store, "-o", path.join(work, "draft-v3.arrow")], [store, "--array", "t", "-o", path.join(work, "draft-v3.arrow")]]) {
			const result = cli(args);
			expect(result.status).toBe(1);
			expect(result.stderr).toMatch(/^dt64-export: \S*draft-v3\.zarr\/zarr\.json: written in the draft Zarr v3 layout of zarr-python 2's experimental API .* write it again as Zarr v2 .* or as Zarr v3 with zarr-python 3 \[UNSUPPORTED\]\n$/);
			expect(fs.existsSync(path.join(work, "draft-v3.arrow"))).toBe(false);
		}
	});
});

/** Writes a root zarr.json with inline consolidated metadata, from the zarr.json texts below it, kept verbatim. */
function consolidate(root: string): void {
	const members: string[] = [];
	const walk = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
			if (!entry.isDirectory()) continue;
			const child = relative ? `${relative}/${entry.name}` : entry.name;
			const file = path.join(root, child, "zarr.json");
			if (!fs.existsSync(file)) continue;
			const text = fs.readFileSync(file, "utf8");
			members.push(`${JSON.stringify(child)}: ${text}`);
			if (JSON.parse(text).node_type === "group") walk(child);
		}
	};
	walk("");
	fs.writeFileSync(
		path.join(root, "zarr.json"),
		`{"zarr_format": 3, "node_type": "group", "attributes": {}, "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {${members.join(", ")}}}}`,
	);
}

describe("HTTP stores and consolidated metadata", () => {
	const url = (folder: string) => `${http.server.url}/${path.relative(work, folder).split(path.sep).map(encodeURIComponent).join("/")}`;

	it("lists the nodes of v3 consolidated metadata, with exact fill values", async () => {
		const root = fresh("remote.zarr");
		const values = BigInt64Array.from([5n, 6n, NAT]);
		await writeArray(root, "obs/time", { shape: [3], chunks: [2], dataType: seconds, values, fillValue: 2n ** 53n + 1n, codecs: [LE] });
		await writeArray(root, "obs/other", { shape: [1], chunks: [1], dataType: { name: "numpy.timedelta64", configuration: { unit: "ms", scale_factor: 1 } }, values: BigInt64Array.of(1500n), codecs: [LE] });
		consolidate(root);
		const report = await inspectStore(url(root));
		expect(report).toMatchObject({ storeKind: "http", discovery: "consolidated" });
		expect(report.note).toBeUndefined();
		expect(report.nodes.map((n) => [n.path, n.kind])).toEqual([
			["", "group"],
			["obs", "group"],
			["obs/other", "array"],
			["obs/time", "array"],
		]);
		expect(node(report.nodes, "obs/time")).toMatchObject({ fillValue: "9007199254740993", exportable: true });
		expect([iso(node(report.nodes, "obs/time").first), iso(node(report.nodes, "obs/time").last)]).toEqual(["1970-01-01T00:00:05", "1970-01-01T00:00:06"]);
		expect(iso(node(report.nodes, "obs/other").first)).toBe("PT1.500S");
		const text = await runCliAsync(["inspect", url(root)]);
		expect(text.stderr).toBe("");
		expect(text.stdout.toString().split("\n")[0]).toBe(`${url(root)}: HTTP store, 4 nodes found by its consolidated metadata`);
	});

	it("without consolidated metadata only the root is listed, and the report says so", async () => {
		const root = fresh("plain.zarr");
		await writeArray(root, "obs/time", { shape: [3], chunks: [2], dataType: seconds, values: BigInt64Array.of(1n, 2n, 3n), codecs: [LE] });
		const result = await runCliAsync(["inspect", url(root)]);
		expect(result.status).toBe(0);
		expect(result.stdout.toString()).toBe(
			`${url(root)}: HTTP store, 1 node found by reading the root\nnote: only the root group is listed: an HTTP store cannot be listed, and this one has no consolidated metadata\n\n/  group\n`,
		);
		const json = JSON.parse((await runCliAsync(["inspect", url(root), "--json"])).stdout.toString());
		expect(json).toMatchObject({ discovery: "root-only", note: expect.stringContaining("no consolidated metadata") });
	});

	it("lists a Zarr v2 store from .zmetadata and reads its arrays (here without chunks or a fill value)", async () => {
		const root = fresh("v2.zarr");
		fs.mkdirSync(root, { recursive: true });
		const zarray = { zarr_format: 2, shape: [4], chunks: [2], dtype: "<M8[s]", compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, fill_value: null, filters: null, order: "C" };
		fs.writeFileSync(path.join(root, ".zmetadata"), JSON.stringify({ zarr_consolidated_format: 1, metadata: { ".zgroup": { zarr_format: 2 }, ".zattrs": {}, "t/.zarray": zarray, "t/.zattrs": {} } }));
		const report = await inspectStore(url(root));
		expect(report.discovery).toBe("consolidated-v2");
		expect(report.nodes).toEqual([
			{ path: "", kind: "group", zarrFormat: 2 },
			{
				path: "t",
				kind: "array",
				zarrFormat: 2,
				dtype: "<M8[s]",
				dataType: "datetime64[s]",
				unit: "s",
				scaleFactor: 1,
				shape: [4],
				chunkShape: [2],
				codecs: ["bytes(little)", "blosc(lz4, clevel=5, shuffle)"],
				fillValue: "null",
				// The export's rule (missing-chunks.ts): no fill value, so a missing chunk stops an export.
				missingChunks: "refused",
				exportable: true,
				arrowType: "timestamp[s]",
				first: { status: "error", message: "chunk t/0: missing, and the array has no fill value (fill_value is null) to stand for it" },
				last: { status: "error", message: "chunk t/1: missing, and the array has no fill value (fill_value is null) to stand for it" },
			},
		]);
		expect(formatInspectReport(report)).toContain("\nt  array (Zarr v2)\n  data type   datetime64[s] (unit s, scale factor 1), dtype <M8[s]\n");
	});
});

describe("inspect on stores xarray wrote (test/fixtures/tables, test/fixtures/cf)", () => {
	const REPO_FIXTURES = path.resolve(__dirname, "fixtures");

	it("--json fillValue is the string README's Inspect section says: NaT or a count for time arrays, the fill_value's JSON text otherwise", () => {
		const fillValues = (store: string) =>
			Object.fromEntries((JSON.parse(runCli(["inspect", store, "--json"]).stdout.toString()).nodes as InspectNode[]).filter((node) => node.fillValue !== undefined).map((node) => [node.path, node.fillValue]));
		expect(fillValues(path.resolve(REPO_FIXTURES, "../../data/observations.zarr"))).toEqual({ station: '""', temperature: '"NaN"', time: "NaT" });
		// A CF time count (int64) is a plain array: its fill_value as JSON text; a v2 null is "null" (none).
		expect(fillValues(path.join(REPO_FIXTURES, "cf/fill-value.zarr"))).toMatchObject({ time: "-1" });
		expect(fillValues(path.join(REPO_FIXTURES, "tables/grid.zarr"))).toMatchObject({ time: "null", rh: "-128", t2m: '"NaN"' });
	});

	it("a packed or masked companion says the Arrow type it is exported as, and how", async () => {
		const report = await inspectStore(path.join(REPO_FIXTURES, "tables/grid.zarr"));
		const node = (name: string) => report.nodes.find((n) => n.path === name)!;
		expect(node("tp")).toMatchObject({ companion: true, arrowType: "float", cfDecoding: "null where _FillValue, then unpacked by scale_factor; int16 as stored without CF decoding" });
		expect(node("sp")).toMatchObject({ arrowType: "double", cfDecoding: "null where _FillValue, missing_value, then unpacked by scale_factor and add_offset; int16 as stored without CF decoding" });
		expect(node("rh")).toMatchObject({ arrowType: "int8", cfDecoding: "null where _FillValue, valid_range; int8 as stored without CF decoding" });
		expect(node("t2m").cfDecoding).toBeUndefined();
		const text = runCli(["inspect", path.join(REPO_FIXTURES, "tables/grid.zarr")]).stdout.toString();
		expect(text).toContain("  companion   yes, as float (null where _FillValue, then unpacked by scale_factor; int16 as stored without CF decoding): a table column, broadcast by dimension names\n");
	});

	it("a model calendar's refusal: code and option in the report, the way out (--convert-calendar) in the CLI's text", async () => {
		const store = path.join(REPO_FIXTURES, "cf/noleap.zarr");
		const report = await inspectStore(store);
		const time = report.nodes.find((n) => n.path === "time")!;
		expect(time).toMatchObject({ exportable: false, reason: 'CF time refused: calendar "noleap" is a model calendar: its dates are not instants', reasonCode: "CALENDAR_UNSUPPORTED", reasonOption: "convertCalendar" });
		expect(runCli(["inspect", store]).stdout.toString()).toContain(
			'  exportable  no: CF time refused: calendar "noleap" is a model calendar: its dates are not instants; --convert-calendar exports each date label as the same label in the proleptic Gregorian calendar\n',
		);
	});
});

describe("float CF time: whether an export takes the counts as they are", () => {
	const hours = { units: "hours since 2000-01-01", calendar: "proleptic_gregorian" };
	async function floatHours(values: number[], chunk: number): Promise<string> {
		const root = fresh("float.zarr");
		await writeArray(root, "", { shape: [values.length], chunks: [chunk], dataType: "float64", fillValue: "NaN", attributes: hours, values: Float64Array.from(values) });
		return root;
	}

	it("a count between two ns read: not exportable as it is, with --round (it said yes, as timestamp[ns])", async () => {
		const root = await floatHours([0, 1, 2, 0.1, 3, Number.NaN], 3);
		const [node] = (await inspectStore(root)).nodes;
		expect(node).toMatchObject({ exportable: false, reasonCode: "TRUNCATION", reasonOption: "rounding", arrowType: "timestamp[ns]", arrowTypeRounded: "timestamp[s]", floatCountsRead: true });
		expect(node.reason).toBe("float64 count 0.1 is not a whole number of ns, which an exact export refuses");
		const text = String(runCli(["inspect", root]).stdout);
		expect(text).toContain("  exportable  no: float64 count 0.1 is not a whole number of ns, which an exact export refuses; timestamp[s] rounded to the nearest unit; use --round to round to the nearest (as xarray decodes floats), --allow-truncate to floor\n");
		expect(JSON.parse(String(runCli(["inspect", root, "--json"]).stdout)).nodes[0]).toMatchObject({ exportable: false, reasonCode: "TRUNCATION", floatCountsRead: true });
		// What it says is what the export does.
		expect(runCli([root, "-o", path.join(work, `${counter++}.arrow`)]).stderr).toMatch(/\[TRUNCATION\]\n$/);
		expect(runCli([root, "--round", "-o", path.join(work, `${counter++}.arrow`)]).status).toBe(0);
	});

	it("whole counts of a finer unit: exportable in it; more chunks than inspect reads: said to be unknown, not guessed", async () => {
		const half = await floatHours([0, 0.5, 1, 1.5], 2);
		expect((await inspectStore(half)).nodes[0]).toMatchObject({ exportable: true, arrowType: "timestamp[s]", floatCountsRead: true });
		expect((await inspectStore(half)).nodes[0].arrowTypeRounded).toBeUndefined();
		// 0.1 in the last of 80 chunks: inspect reads none of them (64 at most), as the export would read all.
		const many = await floatHours([...Array.from({ length: 159 }, (_, i) => i), 0.1], 2);
		const [node] = (await inspectStore(many)).nodes;
		expect(node).toMatchObject({ exportable: true, arrowType: "timestamp[s] or a finer unit if a float count needs one", floatCountsRead: false });
		expect(formatInspectReport({ ...(await inspectStore(many)), nodes: [node] })).toContain(
			"  exportable  yes, as timestamp[s] or a finer unit if a float count needs one (float counts not read: whether each is a whole number of ns is not known)\n",
		);
		expect((await inspectStore(many, { maxChunks: 100 })).nodes[0]).toMatchObject({ exportable: false, reasonCode: "TRUNCATION", floatCountsRead: true });
		// Integer counts are whole by nature: no such field.
		const ints = fresh("int.zarr");
		await writeArray(ints, "", { shape: [2], chunks: [2], dataType: "int64", fillValue: 0, attributes: hours, values: BigInt64Array.of(0n, 1n) });
		expect((await inspectStore(ints)).nodes[0].floatCountsRead).toBeUndefined();
	});
});
