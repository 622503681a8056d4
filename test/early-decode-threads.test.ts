/**
 * The CLI's bin script starts the decode threads before it loads the CLI, when the command line exports a local
 * array whose chunks they decode (src/cli/early-decode-threads.ts): a guess from the arguments and the metadata
 * files, which starts threads only where the export would start them too.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportDecodesOnThreads, THREAD_CODEC_NAMES, valueBytesOf } from "../src/cli/early-decode-threads.js";
import { bloscCodec, lz4Codec, zstdCodec } from "../src/zarr/codecs/bounded-wasm.js";
import { CODECS } from "../src/zarr/codecs/codec-map.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";

const work = tempDir("dt64-early-");
const LE = { name: "bytes", configuration: { endian: "little" } };
const DATETIME = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

/** A folder holding only metadata: enough for the guess, and for an export (missing chunks are the fill value). */
function store(name: string, files: Record<string, unknown>): string {
	const folder = path.join(work, name);
	for (const [file, content] of Object.entries(files)) {
		fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
		fs.writeFileSync(path.join(folder, file), JSON.stringify(content));
	}
	return folder;
}

function v3Array(shape: number[], codecs: unknown[], dataType: unknown = DATETIME): Record<string, unknown> {
	return {
		zarr_format: 3,
		node_type: "array",
		shape,
		data_type: dataType,
		chunk_grid: { name: "regular", configuration: { chunk_shape: shape.map((size) => Math.min(size, 1_000_000)) } },
		chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
		fill_value: 0,
		codecs,
	};
}

const BIG = [1_000_000];
const SMALL = [500_000];
const ZSTD = [LE, { name: "zstd", configuration: { level: 0, checksum: false } }];
const GROUP = { zarr_format: 3, node_type: "group", attributes: {} };
/** A store whose export the threads decode, which several tests name: made here, not by the first test that names it. */
const ZSTD_STORE = store("zstd.zarr", { "zarr.json": v3Array(BIG, ZSTD) });

describe("the early start of the decode threads", () => {
	it("names every codec of the decode threads, as the codec map does", () => {
		const decodedThere = [...CODECS].filter(([, factory]) => [zstdCodec, lz4Codec, bloscCodec].includes(factory)).map(([name]) => name);
		expect([...THREAD_CODEC_NAMES].sort()).toEqual(decodedThere.sort());
	});

	it("starts them for a local array of more than 4 MiB compressed with zstd, lz4 or blosc, v3 or v2", () => {
		expect(exportDecodesOnThreads([ZSTD_STORE])).toBe(true);
		expect(exportDecodesOnThreads([store("numcodecs-lz4.zarr", { "zarr.json": v3Array(BIG, [LE, { name: "numcodecs.lz4" }]) })])).toBe(true);
		const shards = [{ name: "sharding_indexed", configuration: { chunk_shape: [100_000], codecs: ZSTD, index_codecs: [LE, { name: "crc32c" }] } }];
		expect(exportDecodesOnThreads([store("sharded.zarr", { "zarr.json": v3Array(BIG, shards) })])).toBe(true);
		const v2 = { zarr_format: 2, shape: BIG, chunks: [100_000], dtype: "<M8[ns]", compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, fill_value: null, filters: null, order: "C" };
		expect(exportDecodesOnThreads([store("v2-blosc.zarr", { ".zarray": v2 })])).toBe(true);
		// Wherever the store is among the arguments, and with options before it.
		expect(exportDecodesOnThreads(["--to", "parquet", ZSTD_STORE, "-o", "x.parquet"])).toBe(true);
	});

	it("starts none for a small array, another codec, a URL, a zip file, another command or --help", () => {
		expect(exportDecodesOnThreads([store("small.zarr", { "zarr.json": v3Array(SMALL, ZSTD) })])).toBe(false);
		expect(exportDecodesOnThreads([path.join(REPO, "data/sharded-2d.zarr")])).toBe(false);
		expect(exportDecodesOnThreads([store("gzip.zarr", { "zarr.json": v3Array(BIG, [LE, { name: "gzip", configuration: { level: 5 } }]) })])).toBe(false);
		expect(exportDecodesOnThreads([store("raw.zarr", { "zarr.json": v3Array(BIG, [LE]) })])).toBe(false);
		const zstd = ZSTD_STORE;
		expect(exportDecodesOnThreads(["inspect", zstd])).toBe(false);
		expect(exportDecodesOnThreads([zstd, "--help"])).toBe(false);
		expect(exportDecodesOnThreads([zstd, "--help=true"])).toBe(false);
		expect(exportDecodesOnThreads([zstd, "-qh"])).toBe(false);
		expect(exportDecodesOnThreads([zstd, "--version=1"])).toBe(false);
		expect(exportDecodesOnThreads([zstd, "-qf"])).toBe(true);
		expect(exportDecodesOnThreads(["https://example.com/zstd.zarr"])).toBe(false);
		expect(exportDecodesOnThreads([path.join(work, "missing.zarr")])).toBe(false);
		expect(exportDecodesOnThreads([store("broken.zarr", { "zarr.json": "not json" })])).toBe(false);
		// A FIFO where the metadata should be: not read (it would block before the CLI says anything).
		const fifo = path.join(work, "fifo.zarr");
		fs.mkdirSync(fifo);
		execFileSync("mkfifo", [path.join(fifo, "zarr.json")]);
		expect(exportDecodesOnThreads([fifo])).toBe(false);
		expect(exportDecodesOnThreads([store("strings.zarr", { "zarr.json": v3Array(BIG, ZSTD, "some_future_type") })])).toBe(false);
	});

	it("for a group, looks at the arrays --array and --columns name (all of them for --columns all)", () => {
		const group = store("dataset.zarr", { "zarr.json": GROUP, "time/zarr.json": v3Array(SMALL, ZSTD), "t2m/zarr.json": v3Array([2_000_000], ZSTD, "float32") });
		expect(exportDecodesOnThreads([group])).toBe(false);
		expect(exportDecodesOnThreads([group, "--array", "time"])).toBe(false);
		expect(exportDecodesOnThreads([group, "--array=t2m"])).toBe(true);
		expect(exportDecodesOnThreads([group, "--columns", "time, t2m"])).toBe(true);
		expect(exportDecodesOnThreads([group, "--columns=all"])).toBe(true);
		expect(exportDecodesOnThreads([group, "--columns", "nothing"])).toBe(false);
		// In a list, "all" is a column's name, as the CLI reads it.
		expect(exportDecodesOnThreads([group, "--columns", "all,nothing"])).toBe(false);
	});

	it("reads the size of a value from v3 data types and v2 dtypes, and knows when it does not know", () => {
		expect(valueBytesOf("bool")).toBe(1);
		expect(valueBytesOf("int16")).toBe(2);
		expect(valueBytesOf("uint64")).toBe(8);
		expect(valueBytesOf("float32")).toBe(4);
		expect(valueBytesOf("complex128")).toBe(16);
		expect(valueBytesOf(DATETIME)).toBe(8);
		expect(valueBytesOf({ name: "numpy.timedelta64", configuration: { unit: "ns", scale_factor: 1 } })).toBe(8);
		expect(valueBytesOf("string")).toBe("variable");
		expect(valueBytesOf("<M8[ns]")).toBe(8);
		expect(valueBytesOf("<m8[s]")).toBe(8);
		expect(valueBytesOf("|b1")).toBe(1);
		expect(valueBytesOf(">f4")).toBe(4);
		expect(valueBytesOf("|O")).toBe("variable");
		for (const unknown of ["<U10", "|S5", "int128", [["a", "<i4"]], null, 3]) expect(valueBytesOf(unknown)).toBeUndefined();
	});

	it("a thread started for an export that then fails, or reads no chunk, does not keep the CLI running", () => {
		// Not timed: a thread kept alive would keep a CLI running until runCli kills it (status null).
		const zstd = ZSTD_STORE;
		const refused = runCli([zstd, "--to", "nonsense"]);
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/\[USAGE\]$/m);
		// Every chunk is missing: the export writes the fill value (0 s, 1970-01-01) without decoding any.
		const output = path.join(work, "fill.arrow");
		const exported = runCli([zstd, "-o", output, "-q"]);
		expect(exported.status).toBe(0);
		const table = readArrow(output);
		expect(table.numRows).toBe(1_000_000);
		expect(table.getChildAt(0)?.get(999_999)).toBe(0);
	});
});
