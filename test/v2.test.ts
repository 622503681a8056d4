/**
 * Zarr v2 arrays of numpy times: the committed stores of test/fixtures/v2 (written by
 * test/golden/make_v2_fixtures.py, expected values by numpy), discovery in folder, zip and HTTP stores,
 * more codecs than Python's zlib can make, refusals, and the zarrita gaps closed on the way.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import * as zlib from "node:zlib";
import { FileSystemStore } from "@zarrita/storage";
import { tableFromIPC, type Table } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import * as zarr from "zarrita";
import { describe, expect, it } from "vitest";
import { crc32c, writeArray } from "../scripts/lib/zarr-writer.mjs";
import type { Dt64ExportError } from "../src/errors.js";
import { inspectStore } from "../src/inspect.js";
import { rawMemberText } from "../src/json/raw-member.js";
import { SUPPORTED_NUMCODECS } from "../src/zarr/numcodecs-v2.js";
import { openTimeArray } from "../src/open-array.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { contractViolation, exportInProcess, tempFilesIn } from "./support/export-in-process.js";
import { serveFolder } from "./support/served-folder.js";
import { writeStoredZip } from "./support/zip.js";

const V2 = path.join(REPO, "test/fixtures/v2");
interface Expected {
	dtype: string;
	shape: number[];
	arrow_unit: "s" | "ms" | "us" | "ns";
	values: (string | null)[];
	parquet_unit: "ms" | "us" | "ns";
	parquet: (string | null)[];
}
const EXPECTED = JSON.parse(fs.readFileSync(path.join(V2, "expected.json"), "utf8")).arrays as Record<string, Expected>;
const ARROW_UNIT = { s: "SECOND", ms: "MILLISECOND", us: "MICROSECOND", ns: "NANOSECOND" } as const;

const work = tempDir("dt64-v2-");
const http = serveFolder(work);

let counter = 0;
const outFile = (ext: string) => path.join(work, `out${counter++}.${ext}`);

/** "store.zarr/inner/path" -> the store folder and the array path inside it. */
function locate(key: string): { store: string; array?: string } {
	const [store, ...rest] = key.split(/(?<=\.zarr)\//);
	return { store: path.join(V2, store), array: rest.length ? rest.join("/") : undefined };
}

/** Each row as its int64 decimal string, null where the row is null. */
function int64Strings(table: Table): (string | null)[] {
	const out: (string | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i].toString() : null);
	}
	return out;
}

function readParquetAsArrow(file: string): Table {
	return tableFromIPC(readParquet(fs.readFileSync(file)).intoIPCStream());
}

async function exportOk(store: string, format: "arrow" | "parquet", array?: string): Promise<string> {
	const target = outFile(format);
	const outcome = await exportInProcess(store, target, { format, array });
	if (!outcome.ok) throw outcome.error;
	return target;
}

async function exportError(store: string, array?: string): Promise<Dt64ExportError> {
	const outcome = await exportInProcess(store, outFile("arrow"), { array });
	if (outcome.ok) throw new Error("the export succeeded");
	expect(contractViolation(outcome.error)).toBeUndefined();
	return outcome.error as Dt64ExportError;
}

/**
 * Changes a store's `.zarray`. The fill value keeps its exact text unless `edit` changes it: JSON.parse would
 * round -9223372036854775808 and JSON.stringify write it back as -9223372036854776000, outside int64.
 */
function editZarray(root: string, edit: (zarray: Record<string, unknown>) => void): void {
	const file = path.join(root, ".zarray");
	const text = fs.readFileSync(file, "utf8");
	const zarray = JSON.parse(text);
	const fill = zarray.fill_value;
	edit(zarray);
	const fillText = zarray.fill_value === fill ? rawMemberText(text, "fill_value")! : JSON.stringify(zarray.fill_value);
	fs.writeFileSync(file, JSON.stringify({ ...zarray, fill_value: "@FILL@" }).replace('"@FILL@"', fillText));
}

/** A copy of a fixture store, with its `.zarray` changed by `edit`. */
function variant(fixture: string, edit: (zarray: Record<string, unknown>) => void): string {
	const root = path.join(work, `v${counter++}-${fixture}`);
	fs.cpSync(path.join(V2, fixture), root, { recursive: true });
	editZarray(root, edit);
	return root;
}

describe("v2 fixtures: the values numpy computed", () => {
	for (const [key, expected] of Object.entries(EXPECTED)) {
		if (key === "null-fill-missing.zarr") continue;
		const { store, array } = locate(key);
		it(`${key} (${expected.dtype}) -> Arrow IPC`, async () => {
			const table = readArrow(await exportOk(store, "arrow", array));
			const field = table.schema.fields[0];
			const kind = expected.dtype.includes("m8") ? "Duration" : "Timestamp";
			expect(field.type.toString()).toBe(`${kind}<${ARROW_UNIT[expected.arrow_unit]}>`);
			// The original v2 dtype, as written, is kept for readers that want the numpy type back.
			expect(field.metadata.get("zarr.data_type")).toBe(JSON.stringify(expected.dtype));
			expect(int64Strings(table)).toEqual(expected.values);
		});
		it(`${key} (${expected.dtype}) -> Parquet`, async () => {
			const table = readParquetAsArrow(await exportOk(store, "parquet", array));
			expect(String(table.schema.fields[0].type)).toMatch(new RegExp(`<${ARROW_UNIT[expected.parquet_unit]}`));
			expect(int64Strings(table)).toEqual(expected.parquet);
		});
	}

	it("a missing chunk of an array without a fill value (null) stops the export and names the chunk; nothing is left behind", () => {
		const folder = path.join(work, `cli${counter++}`);
		fs.mkdirSync(folder);
		const result = runCli([path.join(V2, "null-fill-missing.zarr"), "-o", path.join(folder, "t.arrow"), "-q"]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe("dt64-export: chunk 1: missing, and the array has no fill value (fill_value is null) to stand for it [CHUNK_MISSING]\n");
		expect(fs.readdirSync(folder)).toEqual([]);
	});

	it("the CLI exports a v2 array (Fortran order, big endian, zlib, '/' keys) the same as in process", () => {
		const out = outFile("arrow");
		const result = runCli([path.join(V2, "be-10us-zlib-F.zarr"), "-o", out, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		expect(int64Strings(readArrow(out))).toEqual(EXPECTED["be-10us-zlib-F.zarr"].values);
		expect(readArrow(out).schema.fields[0].name).toBe("be-10us-zlib-F");
	});
});

describe("v2 groups: discovery and --array", () => {
	const time = EXPECTED["group.zarr/obs/time"];

	it("a folder group with one datetime64 array (beside a float array) exports that one", () => {
		const out = outFile("arrow");
		const result = runCli([path.join(V2, "group.zarr"), "-o", out, "-q"]);
		expect(result.stderr).toBe("");
		expect(result.status).toBe(0);
		const table = readArrow(out);
		expect(table.schema.fields[0].name).toBe("time");
		expect(int64Strings(table)).toEqual(time.values);
	});

	it("a zip of the group", async () => {
		const zip = path.join(work, `group${counter++}.zip`);
		writeStoredZip(path.join(V2, "group.zarr"), zip);
		expect(int64Strings(readArrow(await exportOk(zip, "arrow")))).toEqual(time.values);
	});

	it("over HTTP, through .zmetadata (an HTTP store cannot be listed)", async () => {
		const root = path.join(work, `http${counter++}.zarr`);
		fs.cpSync(path.join(V2, "group.zarr"), root, { recursive: true });
		const url = `${http.server.url}/${path.basename(root)}`;
		expect(int64Strings(readArrow(await exportOk(url, "arrow")))).toEqual(time.values);
		http.server.reset();
		// Without consolidated metadata the group cannot be searched: --array is asked for.
		fs.rmSync(path.join(root, ".zmetadata"));
		const outcome = await exportInProcess(url, outFile("arrow"));
		expect(outcome.ok).toBe(false);
		expect((outcome as { error: Error }).error).toMatchObject({ code: "ARRAY_UNNAMED", option: "array", message: expect.stringMatching(/is a group without consolidated metadata/) });
		expect(int64Strings(readArrow(await exportOk(url, "arrow", "obs/time")))).toEqual(time.values);
	});

	it("over HTTP, a store whose only top-level metadata is .zmetadata (no .zgroup file)", async () => {
		const root = path.join(work, `bare${counter++}.zarr`);
		fs.cpSync(path.join(V2, "group.zarr"), root, { recursive: true });
		fs.rmSync(path.join(root, ".zgroup"));
		fs.rmSync(path.join(root, "obs", ".zgroup"));
		expect(int64Strings(readArrow(await exportOk(`${http.server.url}/${path.basename(root)}`, "arrow")))).toEqual(time.values);
	});

	it(".zmetadata over HTTP keeps an int64 fill value past 2^53 exact", async () => {
		const root = path.join(work, `exact${counter++}.zarr`);
		fs.cpSync(path.join(V2, "fill-past-2-53.zarr"), path.join(root, "t"), { recursive: true });
		fs.writeFileSync(path.join(root, ".zgroup"), '{"zarr_format": 2}');
		const zarrayText = fs.readFileSync(path.join(root, "t", ".zarray"), "utf8");
		fs.writeFileSync(path.join(root, ".zmetadata"), `{"metadata": {".zgroup": {"zarr_format": 2}, "t/.zarray": ${zarrayText}}, "zarr_consolidated_format": 1}`);
		// The array's own .zarray is not what is read: the consolidated copy is, and its fill value must stay exact.
		fs.rmSync(path.join(root, "t", ".zarray"));
		const report = await inspectStore(`${http.server.url}/${path.basename(root)}`);
		expect(report.discovery).toBe("consolidated-v2");
		expect(report.nodes[1]).toMatchObject({ path: "t", zarrFormat: 2, fillValue: "9007199254740993", exportable: true });
	});

	it("--array names a v2 array; a non-time v2 array is refused with its dtype", async () => {
		expect(int64Strings(readArrow(await exportOk(path.join(V2, "group.zarr"), "arrow", "obs/time")))).toEqual(time.values);
		const error = await exportError(path.join(V2, "group.zarr"), "obs/value");
		expect(error.message).toBe(`${path.join(V2, "group.zarr")}/obs/value/.zarray: dtype "<f8" is not supported: not numpy.datetime64 (M8) or numpy.timedelta64 (m8); it is data, exported as a column of its group's table (\`columns\`, with \`index\` for its dimensions' coordinates)`);
	});

	it("a group with two datetime64 arrays asks which one (exit 2)", () => {
		const result = runCli([path.join(V2, "two-times.zarr"), "-o", outFile("arrow"), "-q"]);
		expect(result.status).toBe(2);
		expect(result.stderr).toBe(`dt64-export: ${path.join(V2, "two-times.zarr")}: the group holds several datetime64 arrays: a, b; choose one with --array [ARRAY_AMBIGUOUS]\n`);
	});

	it("where both zarr.json and .zarray exist, zarr.json (v3) is read", async () => {
		const root = path.join(work, `both${counter++}.zarr`);
		await writeArray(root, "", { shape: [2], chunks: [2], values: BigInt64Array.of(1n, 2n), dataType: { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } } });
		fs.writeFileSync(path.join(root, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [2], chunks: [2], dtype: "<M8[D]", compressor: null, fill_value: null, filters: null, order: "C" }));
		const table = readArrow(await exportOk(root, "arrow"));
		expect(table.schema.fields[0].type.toString()).toBe("Timestamp<MILLISECOND>");
		expect(int64Strings(table)).toEqual(["1", "2"]);
	});
});

describe("v2 compressors and filters (numcodecs ids)", () => {
	const gzip = promisify(zlib.gzip);
	const ns = EXPECTED["ns-raw.zarr"];

	/** ns-raw.zarr with every chunk re-encoded by `encode` and the .zarray naming `codec`. */
	async function recompressed(field: "compressor" | "filters", codec: Record<string, unknown>, encode: (raw: Uint8Array) => Promise<Uint8Array>): Promise<string> {
		const root = variant("ns-raw.zarr", (zarray) => {
			zarray[field] = field === "filters" ? [codec] : codec;
		});
		for (const key of ["0", "1", "2"]) {
			const file = path.join(root, key);
			fs.writeFileSync(file, await encode(new Uint8Array(fs.readFileSync(file))));
		}
		return root;
	}

	const withCrc32c = async (raw: Uint8Array) => {
		const out = new Uint8Array(raw.length + 4);
		out.set(raw);
		new DataView(out.buffer).setUint32(raw.length, crc32c(raw), true);
		return out;
	};
	const numcodec = (module: string, config: Record<string, unknown>) => async (raw: Uint8Array) => {
		const { default: Codec } = await import(module);
		return new Uint8Array(await Codec.fromConfig(config).encode(raw));
	};
	const cases: [string, "compressor" | "filters", Record<string, unknown>, (raw: Uint8Array) => Promise<Uint8Array>][] = [
		["gzip", "compressor", { id: "gzip", level: 5 }, async (raw) => new Uint8Array(await gzip(raw))],
		["zstd", "compressor", { id: "zstd", level: 3 }, numcodec("numcodecs/zstd", { level: 3 })],
		["blosc (shuffle 1)", "compressor", { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }, numcodec("numcodecs/blosc", { cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 })],
		["blosc (AUTOSHUFFLE -1, zstd)", "compressor", { id: "blosc", cname: "zstd", clevel: 3, shuffle: -1, blocksize: 0 }, numcodec("numcodecs/blosc", { cname: "zstd", clevel: 3, shuffle: 1, blocksize: 0 })],
		["lz4", "compressor", { id: "lz4", acceleration: 1 }, numcodec("numcodecs/lz4", { acceleration: 1 })],
		["crc32c filter", "filters", { id: "crc32c", location: "end" }, withCrc32c],
	];
	for (const [name, field, codec, encode] of cases) {
		it(name, async () => {
			const root = await recompressed(field, codec, encode);
			expect(int64Strings(readArrow(await exportOk(root, "arrow")))).toEqual(ns.values);
		});
	}

	it("a filter and a compressor together decode in reverse order (crc32c filter, then zlib)", async () => {
		const root = await recompressed("filters", { id: "crc32c" }, async (raw) => new Uint8Array(zlib.deflateSync(await withCrc32c(raw))));
		editZarray(root, (z) => void (z.compressor = { id: "zlib", level: 1 }));
		expect(int64Strings(readArrow(await exportOk(root, "arrow")))).toEqual(ns.values);
		const report = await inspectStore(root);
		expect(report.nodes[0].codecs).toEqual(["bytes(little)", "crc32c", "zlib(level=1)"]);
	});

	it("a crc32c checksum that does not match is refused, naming the chunk", async () => {
		const root = await recompressed("filters", { id: "crc32c" }, withCrc32c);
		const chunk = fs.readFileSync(path.join(root, "1"));
		chunk[3] ^= 1;
		fs.writeFileSync(path.join(root, "1"), chunk);
		expect((await exportError(root)).message).toMatch(/^chunk 1: cannot decode: crc32c: checksum mismatch/);
	});
});

/**
 * A message with the list of an unknown codec's refusal, `(supported: ...)`, as `(supported: …)`: that list grows with
 * each codec read, and is checked once on its own.
 */
const listElided = (message: string) => message.replace(/\(supported: [^)]*\)/, "(supported: …)");

describe("v2 refusals: one line naming the .zarray and the field", () => {
	const at = (root: string) => `${root}/.zarray`;
	const cases: [string, (zarray: Record<string, unknown>) => void, string][] = [
		["object dtype", (z) => void (z.dtype = "|O"), 'dtype "|O" (object) is not supported: not numpy.datetime64 (M8) or numpy.timedelta64 (m8)'],
		["structured dtype", (z) => void (z.dtype = [["t", "<M8[ns]"]]), 'dtype [["t","<M8[ns]"]] (structured) is not supported: not numpy.datetime64 (M8) or numpy.timedelta64 (m8)'],
		["a unit numpy does not have", (z) => void (z.dtype = "<M8[xs]"), 'dtype "<M8[xs]": unit "xs" is not a numpy unit (expected one of Y M W D h m s ms us μs ns ps fs as)'],
		["a multiplier of 0", (z) => void (z.dtype = "<M8[0ns]"), 'dtype "<M8[0ns]": multiplier 0 is outside [1, 2147483647]'],
		["timedelta in months", (z) => void (z.dtype = "<m8[M]"), 'dtype "<m8[M]": unit "M" is a calendar unit and not a fixed duration; timedelta64 in years or months cannot be exported'],
		["native byte order", (z) => void (z.dtype = "=M8[ns]"), 'dtype "=M8[ns]": native byte order "=" is not portable: expected "<", ">" or "|"'],
		["unknown compressor", (z) => void (z.compressor = { id: "bz2", level: 9 }), 'compressor: codec id "bz2" is not supported (supported: …)'],
		["unknown filter", (z) => void (z.filters = [{ id: "packbits" }]), 'filters[0]: codec id "packbits" is not supported (supported: …)'],
		["crc32c at the start", (z) => void (z.filters = [{ id: "crc32c", location: "start" }]), 'filters[0]: crc32c location "start" is not supported (only "end")'],
		["blosc shuffle out of range", (z) => void (z.compressor = { id: "blosc", cname: "lz4", clevel: 5, shuffle: 7 }), "compressor: blosc shuffle 7 is not one of -1, 0, 1, 2"],
		["zarr_format 3 in .zarray", (z) => void (z.zarr_format = 3), "zarr_format is 3, expected 2"],
		["order K", (z) => void (z.order = "K"), 'order must be "C" or "F", got "K"'],
		["dimension_separator", (z) => void (z.dimension_separator = "-"), 'dimension_separator must be "." or "/", got "-"'],
		["chunks of another rank", (z) => void (z.chunks = [2, 2]), "chunks [2,2] does not match the rank of shape [10]"],
		["fill value that is not an int64", (z) => void (z.fill_value = 1.5), "fill_value: 1.5 must be an integer literal without a fraction"],
	];
	for (const [name, edit, message] of cases) {
		it(name, async () => {
			const root = variant("ns-raw.zarr", edit);
			expect(listElided((await exportError(root)).message)).toBe(`${at(root)}: ${message}`);
		});
	}

	it("a timedelta64 in years or months, which numpy and zarr-python 2 write, is UNSUPPORTED (valid metadata), not METADATA_INVALID", async () => {
		for (const dtype of ["<m8[Y]", "<m8[2M]"]) {
			const root = variant("ns-raw.zarr", (z) => void (z.dtype = dtype));
			expect(await exportError(root)).toMatchObject({ code: "UNSUPPORTED", message: expect.stringContaining(`${at(root)}: dtype "${dtype}": unit`) });
		}
	});

	it("an unknown codec's refusal lists every codec read, and as filters the identity ones too", async () => {
		const compressor = (await exportError(variant("ns-raw.zarr", (z) => void (z.compressor = { id: "bz2" })))).message;
		expect(compressor).toMatch(new RegExp(`\\(supported: ${SUPPORTED_NUMCODECS.join(", ")}\\)$`));
		const filter = (await exportError(variant("ns-raw.zarr", (z) => void (z.filters = [{ id: "packbits" }])))).message;
		expect(filter).toMatch(new RegExp(`\\(supported: ${SUPPORTED_NUMCODECS.join(", ")}; as filters, also delta, bitround, quantize\\)$`));
	});

	it("through the CLI: exit 1, one line on stderr", () => {
		const root = variant("ns-raw.zarr", (z) => void (z.compressor = { id: "bz2" }));
		const result = runCli([root, "-o", outFile("arrow"), "-q"]);
		expect(result.status).toBe(1);
		expect(listElided(result.stderr)).toBe(`dt64-export: ${at(root)}: compressor: codec id "bz2" is not supported (supported: …) [UNSUPPORTED]\n`);
		const nullFill = runCli([path.join(V2, "null-fill-missing.zarr"), "-o", outFile("parquet"), "--to", "parquet", "-q"]);
		expect(nullFill.status).toBe(1);
		expect(nullFill.stderr.split("\n")).toHaveLength(2);
		expect(tempFilesIn(work)).toEqual([]);
	});

	it("a .zarray that is not JSON names the file", async () => {
		const root = variant("ns-raw.zarr", () => undefined);
		fs.writeFileSync(path.join(root, ".zarray"), "{not json");
		expect((await exportError(root)).message).toMatch(new RegExp(`^${at(root).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON \\(`));
	});
});

describe("inspect: v2 arrays in full", () => {
	it("dtype as written and as understood, shape, chunks, codecs, exact fill value, first and last values", async () => {
		const report = await inspectStore(path.join(V2, "be-10us-zlib-F.zarr"));
		expect(report.nodes).toEqual([
			{
				path: "",
				kind: "array",
				zarrFormat: 2,
				dtype: ">M8[10us]",
				dataType: "datetime64[10us]",
				unit: "us",
				scaleFactor: 10,
				shape: [5, 7],
				chunkShape: [2, 3],
				codecs: ["transpose(order=[1,0])", "bytes(big)", "zlib(level=1)"],
				fillValue: "NaT",
				exportable: true,
				arrowType: "timestamp[us]",
				first: { status: "found", row: 0, count: 161483436789000n, iso: "2021-03-04T05:06:07.890000" },
				last: { status: "found", row: 33, count: 161487510863037n, iso: "2021-03-04T16:25:08.630370" },
			},
		]);
	});

	it("the exact fill value of a missing chunk, and what a null fill value means", async () => {
		const exact = await inspectStore(path.join(V2, "fill-past-2-53.zarr"));
		expect(exact.nodes[0]).toMatchObject({ fillValue: "9007199254740993", first: { row: 0, count: 1n }, last: { row: 4, count: 5n } });
		const none = await inspectStore(path.join(V2, "null-fill-missing.zarr"));
		expect(none.nodes[0]).toMatchObject({ fillValue: "null", exportable: true, first: { status: "found", row: 0 } });
		expect(none.nodes[0].last).toEqual({ status: "error", message: "chunk 1: missing, and the array has no fill value (fill_value is null) to stand for it" });
		const text = runCli(["inspect", path.join(V2, "null-fill-missing.zarr")]).stdout.toString();
		expect(text).toContain("  data type   datetime64[ms] (unit ms, scale factor 1), dtype <M8[ms]\n");
		expect(text).toContain("  fill value  null (none: a missing chunk cannot be read)\n");
	});

	it("a group: groups, the time array and the float array; an unreadable v2 array says why", async () => {
		const report = await inspectStore(path.join(V2, "group.zarr"));
		expect(report.nodes.map((n) => [n.path, n.kind, n.zarrFormat, n.exportable])).toEqual([
			["", "group", 2, undefined],
			["obs", "group", 2, undefined],
			["obs/time", "array", 2, true],
			["obs/value", "array", 2, false],
		]);
		expect(report.nodes[3]).toMatchObject({ dtype: "<f8", dataType: "float64", codecs: ["bytes(little)"], fillValue: '"NaN"', reason: "data type is float64, not numpy.datetime64 or numpy.timedelta64", companion: true, arrowType: "double" });
		const bad = variant("ns-raw.zarr", (z) => void (z.compressor = { id: "bz2" }));
		const refused = await inspectStore(bad);
		expect(refused.nodes[0]).toMatchObject({ dtype: "<M8[ns]", dataType: "<M8[ns]", codecs: ["bz2"], exportable: false, reason: expect.stringMatching(/^compressor: codec id "bz2" is not supported \(supported: [^)]*\)$/) });
	});

	it("--json via the CLI: int64 counts as strings", () => {
		const result = runCli(["inspect", path.join(V2, "scalar.zarr"), "--json"]);
		expect(result.status).toBe(0);
		const json = JSON.parse(result.stdout.toString());
		expect(json.nodes[0]).toMatchObject({ dtype: "<M8[h]", dataType: "datetime64[h]", shape: [], chunkShape: [], first: { count: "277777", iso: "2001-09-09T01:00:00" } });
	});
});

describe("zarrita 0.7.5 gaps closed for v2 (each assertion on zarrita fails the day it is fixed upstream)", () => {
	it("zarrita refuses every M8/m8 dtype; this package translates it", async () => {
		await expect(zarr.open.v2(new FileSystemStore(path.join(V2, "ns-raw.zarr")), { kind: "array" })).rejects.toThrow("Unsupported or unknown dtype: <M8[ns]");
		const array = await openTimeArray(path.join(V2, "ns-raw.zarr"));
		expect(array.metadata).toMatchObject({ zarrFormat: 2, rawDataType: "<M8[ns]", dataType: { kind: "datetime64", unit: "ns", scaleFactor: 1 } });
	});

	/** The same store with dtype <i8, which zarrita does open. */
	const asInt64 = (fixture: string) => variant(fixture, (z) => void (z.dtype = "<i8"));

	it("zarrita rounds a .zarray fill value past 2^53 through a double; the exact text is read here", async () => {
		const root = asInt64("fill-past-2-53.zarr");
		const viaZarrita = await zarr.get(await zarr.open.v2(new FileSystemStore(root), { kind: "array" }));
		expect((viaZarrita.data as BigInt64Array)[2]).toBe(9007199254740992n);
		expect(EXPECTED["fill-past-2-53.zarr"].values[2]).toBe("9007199254740993");
		const array = await openTimeArray(path.join(V2, "fill-past-2-53.zarr"));
		expect(array.metadata.fillValue).toBe(9007199254740993n);
		expect((await array.chunks.read([1]))[0]).toBe(9007199254740993n);
	});

	it("zarrita fails with a TypeError on a missing chunk of a fill_value null array; here it is an error naming the chunk", async () => {
		const root = asInt64("null-fill-missing.zarr");
		await expect(zarr.get(await zarr.open.v2(new FileSystemStore(root), { kind: "array" }))).rejects.toThrow(TypeError);
		const array = await openTimeArray(path.join(V2, "null-fill-missing.zarr"));
		await expect(array.chunks.read([1])).rejects.toMatchObject({
			code: "CHUNK_MISSING",
			key: "1",
			message: "chunk 1: missing, and the array has no fill value (fill_value is null) to stand for it",
		});
	});

	it("zarrita has no codec for numcodecs' crc32c; here it is the verifying v3 crc32c", async () => {
		const root = asInt64("ns-raw.zarr");
		editZarray(root, (z) => void (z.filters = [{ id: "crc32c", location: "end" }]));
		await expect(zarr.get(await zarr.open.v2(new FileSystemStore(root), { kind: "array" }))).rejects.toThrow(/crc32c/);
		const array = await openTimeArray(variant("ns-raw.zarr", (z) => void (z.filters = [{ id: "crc32c", location: "end" }])));
		expect(array.metadata.codecs).toEqual([{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }]);
	});
});
