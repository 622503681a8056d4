/**
 * Malformed input, decompression bombs, signals and output safety: every refusal is one line
 * `dt64-export: <what and where>` on stderr, exit 1, and nothing is left in the output folder. The bad-input table
 * runs in process (the CLI's export path, see support/export-in-process.ts) and, for a sample, through the built
 * CLI; bombs, signals and the terminal check always spawn the CLI.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { BIN, readArrow, REPO, tempDir } from "./support/cli.js";
import { contractViolation, exportInProcess } from "./support/export-in-process.js";
import { startServer, type TestServer } from "./support/http-server.js";
import { withIndexEntry } from "./support/shard-index.js";
import { describeForCli } from "../src/cli/error-advice.js";
import type { Dt64ExportError } from "../src/errors.js";

// The decode threads, whatever the size of the stores here (small arrays otherwise decode on the calling thread);
// decode-in-thread.test.ts runs these tests again on the calling thread (it sets 0 before importing this file).
process.env.DT64_DECODE_THREADS ??= "2";

const LE = { name: "bytes", configuration: { endian: "little" } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const ZSTD = { name: "zstd", configuration: { level: 3, checksum: false } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const SECONDS = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const MiB = 2 ** 20;

const work = tempDir("dt64-faults-");

interface Run {
	status: number | null;
	signal: NodeJS.Signals | null;
	stdout: Buffer;
	stderr: string;
	/** Peak resident memory of the child, from `process.resourceUsage()` at exit (only with `measureMemory`). */
	maxRssBytes?: number;
}

/** Reports the child's peak RSS into a file at exit, wherever it exits from (process.exit included). */
const rssHook = path.join(work, "rss-hook.mjs");
fs.writeFileSync(
	rssHook,
	`import * as fs from "node:fs";\nprocess.on("exit", () => { if (process.env.DT64_RSS_FILE) fs.writeFileSync(process.env.DT64_RSS_FILE, String(process.resourceUsage().maxRSS * 1024)); });\n`,
);

/** Tells when the CLI waits for a FIFO's reader (see the file). */
const FIFO_WAITING = path.join(REPO, "test/support/fifo-waiting.mjs");

/** Spawns the built CLI without blocking the test process, so independent cases run side by side. */
function runCliAsync(
	args: string[],
	options: { measureMemory?: boolean; timeoutMs?: number; onSpawn?: (child: ReturnType<typeof spawn>) => void; fifoWaiting?: string } = {},
): Promise<Run> {
	const rssFile = options.measureMemory ? path.join(work, `rss-${process.hrtime.bigint()}`) : undefined;
	// `fifoWaiting`: the file support/fifo-waiting.mjs creates once the CLI waits for a FIFO's reader.
	const nodeArgs = [...(rssFile ? ["--import", rssHook] : []), ...(options.fifoWaiting ? ["--import", FIFO_WAITING] : [])];
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], {
			env: { ...process.env, DT64_DEBUG: "", ...(rssFile ? { DT64_RSS_FILE: rssFile } : {}), ...(options.fifoWaiting ? { DT64_TEST_FIFO_WAITING: options.fifoWaiting } : {}) },
			stdio: ["ignore", "pipe", "pipe"],
		});
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		child.stdout.on("data", (b: Buffer) => stdout.push(b));
		child.stderr.on("data", (b: Buffer) => stderr.push(b));
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`dt64-export ${args.join(" ")}: no exit after ${options.timeoutMs ?? 30_000} ms`));
		}, options.timeoutMs ?? 30_000);
		child.on("error", reject);
		child.on("close", (status, signal) => {
			clearTimeout(timer);
			const run: Run = { status, signal, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString() };
			if (rssFile && fs.existsSync(rssFile)) run.maxRssBytes = Number(fs.readFileSync(rssFile, "utf8"));
			resolve(run);
		});
		options.onSpawn?.(child);
	});
}

let counter = 0;
const fresh = (name: string) => path.join(work, `${counter++}-${name}`);

/** A valid little store: 10 seconds values in chunks of 4 (the last one partial). */
function spec(overrides: Record<string, unknown> = {}) {
	return { shape: [10], chunks: [4], dataType: SECONDS, values: BigInt64Array.from({ length: 10 }, (_, i) => BigInt(i * 1000)), fillValue: "NaT", codecs: [LE], ...overrides };
}

async function makeStore(name: string, overrides: Record<string, unknown> = {}): Promise<string> {
	const root = fresh(name);
	await writeArray(root, "", spec(overrides) as Parameters<typeof writeArray>[2]);
	return root;
}

/** A store whose zarr.json is the valid one with `edit` applied to its parsed JSON (or replaced by raw text). */
async function storeWithMetadata(name: string, edit: ((json: Record<string, unknown>) => void) | string): Promise<string> {
	const root = await makeStore(name);
	const file = path.join(root, "zarr.json");
	if (typeof edit === "string") {
		fs.writeFileSync(file, edit);
	} else {
		const json = JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
		edit(json);
		fs.writeFileSync(file, JSON.stringify(json));
	}
	return root;
}

function replaceInMetadata(root: string, from: string | RegExp, to: string): string {
	const file = path.join(root, "zarr.json");
	const text = fs.readFileSync(file, "utf8");
	const next = text.replace(from, to);
	if (next === text) throw new Error(`test setup: ${String(from)} not found in ${file}`);
	fs.writeFileSync(file, next);
	return root;
}

const dataType = (configuration: unknown) => (json: Record<string, unknown>) => {
	json.data_type = { name: "numpy.datetime64", configuration };
};

/** One refusal: exit 1, one stderr line, nothing written to stdout or the output folder. */
async function expectRefusal(args: string[], pattern: RegExp): Promise<Run> {
	const outDir = tempDir("dt64-faults-out-");
	try {
		const run = await runCliAsync([...args, "-o", path.join(outDir, "out.arrow")]);
		// One line: the message, then the library's code.
		const line = /^dt64-export: ([^\n]+) \[([A-Z_]+)\]\n$/.exec(run.stderr);
		expect(line, run.stderr).not.toBeNull();
		expect(line![1]).toMatch(pattern);
		expect(run.stderr).not.toMatch(/\n {4}at /);
		expect(run.status).toBe(1);
		expect(run.stdout.length).toBe(0);
		expect(fs.readdirSync(outDir)).toEqual([]);
		return run;
	} finally {
		fs.rmSync(outDir, { recursive: true, force: true });
	}
}

const esc = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("malformed stores are refused with one line naming what and where", () => {
	type Case = [name: string, build: () => Promise<string>, pattern: (root: string) => RegExp, extraArgs?: string[]];
	const meta = (root: string) => `${esc(root)}/zarr\\.json: `;
	const cases: Case[] = [
		["a store path that does not exist", async () => path.join(work, "missing.zarr"), (r) => new RegExp(`store not found: ${esc(r)}$`, "m")],
		["a folder without zarr.json", async () => {
			const root = fresh("empty.zarr");
			fs.mkdirSync(root);
			return root;
		}, (r) => new RegExp(`${esc(r)}: no zarr\\.json`)],
		["--array naming a path without zarr.json", () => makeStore("noarray.zarr"), (r) => new RegExp(`${esc(r)}/nope: no zarr\\.json`), ["--array", "nope"]],
		["zarr.json that is not JSON", () => storeWithMetadata("notjson.zarr", '{"zarr_format": 3, "node_type": "array",'), (r) => new RegExp(`${meta(r)}not valid JSON`)],
		["zarr.json that is empty", () => storeWithMetadata("emptyjson.zarr", ""), (r) => new RegExp(`${meta(r)}not valid JSON`)],
		["zarr.json that is not UTF-8 text", () => storeWithMetadata("binaryjson.zarr", "\u0000\u00ff\u00fe"), (r) => new RegExp(`${meta(r)}not valid JSON`)],
		["zarr.json that is a JSON list", () => storeWithMetadata("list.zarr", "[1, 2]"), (r) => new RegExp(`${meta(r)}not a JSON object`)],
		["zarr.json of Zarr v2", () => storeWithMetadata("v2.zarr", (j) => void (j.zarr_format = 2)), (r) => new RegExp(`${meta(r)}zarr_format is 2, expected 3`)],
		["a node_type that is neither array nor group", () => storeWithMetadata("nodetype.zarr", (j) => void (j.node_type = "table")), (r) => new RegExp(`${meta(r)}node_type is "table"`)],
		["a group without any datetime64 array", async () => {
			const root = fresh("group.zarr");
			fs.mkdirSync(root);
			fs.writeFileSync(path.join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "group", attributes: {} }));
			return root;
		}, (r) => new RegExp(`${esc(r)}: the group holds no numpy\\.datetime64 array`)],
		["a float64 array", () => storeWithMetadata("float.zarr", (j) => void (j.data_type = "float64")), (r) => new RegExp(`${meta(r)}data type is float64, not numpy\\.datetime64`)],
		["an int64 array", () => storeWithMetadata("int.zarr", (j) => void (j.data_type = "int64")), (r) => new RegExp(`${meta(r)}data type is int64, not numpy\\.datetime64`)],
		["a data_type without unit", () => storeWithMetadata("nounit.zarr", dataType({ scale_factor: 1 })), (r) => new RegExp(`${meta(r)}data_type: configuration\\.unit is missing`)],
		["an unknown unit", () => storeWithMetadata("badunit.zarr", dataType({ unit: "fortnight", scale_factor: 1 })), (r) => new RegExp(`${meta(r)}data_type: unknown configuration\\.unit "fortnight"`)],
		["a unit in the wrong case", () => storeWithMetadata("caseunit.zarr", dataType({ unit: "S", scale_factor: 1 })), (r) => new RegExp(`${meta(r)}data_type: .*case-sensitive`)],
		["a scale_factor of 0", () => storeWithMetadata("scale0.zarr", dataType({ unit: "s", scale_factor: 0 })), (r) => new RegExp(`${meta(r)}data_type: configuration\\.scale_factor must be in \\[1, 2147483647\\], got 0`)],
		["a fractional scale_factor", () => storeWithMetadata("scalefrac.zarr", dataType({ unit: "s", scale_factor: 1.5 })), (r) => new RegExp(`${meta(r)}data_type: configuration\\.scale_factor must be an integer, got 1\\.5`)],
		["a scale_factor past 2^31-1", () => storeWithMetadata("scalebig.zarr", dataType({ unit: "s", scale_factor: 2 ** 31 })), (r) => new RegExp(`${meta(r)}data_type: configuration\\.scale_factor must be in`)],
		["a configuration that is not an object", () => storeWithMetadata("confstr.zarr", dataType("s")), (r) => new RegExp(`${meta(r)}data_type: configuration must be an object`)],
		["an unexpected configuration field", () => storeWithMetadata("confextra.zarr", dataType({ unit: "s", scale_factor: 1, calendar: "julian" })), (r) => new RegExp(`${meta(r)}data_type: unexpected field "calendar"`)],
		["a fractional fill_value", () => storeWithMetadata("fillfrac.zarr", (j) => void (j.fill_value = 1.5)), (r) => new RegExp(`${meta(r)}fill_value: 1\\.5 must be an integer literal without a fraction`)],
		["a fill_value string other than NaT", () => storeWithMetadata("fillstr.zarr", (j) => void (j.fill_value = "nat")), (r) => new RegExp(`${meta(r)}fill_value: the only string allowed is "NaT", got "nat"`)],
		["a fill_value past int64", async () => replaceInMetadata(await storeWithMetadata("fillbig.zarr", (j) => void (j.fill_value = 0)), /"fill_value":0/, '"fill_value":9223372036854775808'), (r) => new RegExp(`${meta(r)}fill_value: 9223372036854775808 is outside the int64 range`)],
		["a fill_value with an exponent", async () => replaceInMetadata(await storeWithMetadata("fillexp.zarr", (j) => void (j.fill_value = 0)), /"fill_value":0/, '"fill_value":1e3'), (r) => new RegExp(`${meta(r)}fill_value: 1e3 must be an integer literal without an exponent`)],
		["a null fill_value", () => storeWithMetadata("fillnull.zarr", (j) => void (j.fill_value = null)), (r) => new RegExp(`${meta(r)}fill_value: expected an int64 integer or "NaT", got null`)],
		["no fill_value", () => storeWithMetadata("fillnone.zarr", (j) => void delete j.fill_value), (r) => new RegExp(`${meta(r)}fill_value: missing`)],
		["a negative shape", () => storeWithMetadata("shape.zarr", (j) => void (j.shape = [-1])), (r) => new RegExp(`${meta(r)}shape must be a list of non-negative integers, got \\[-1\\]`)],
		// JSON.parse rounds a length past 2^53 (2^62 became 4611686018427388000) and it was "no non-negative integer".
		["a shape past 2^53", async () => replaceInMetadata(await storeWithMetadata("shape62.zarr", (j) => void (j.shape = [7])), /"shape":\[7\]/, '"shape":[4611686018427387904]'), (r) => new RegExp(`${meta(r)}shape \\[4611686018427387904\\] is too large: 4611686018427387904 is past 2\\^53 - 1 \\(9007199254740991\\)`)],
		["a shape of 2^53 + 2", async () => replaceInMetadata(await storeWithMetadata("shape53.zarr", (j) => void (j.shape = [7])), /"shape":\[7\]/, '"shape":[9007199254740994]'), (r) => new RegExp(`${meta(r)}shape \\[9007199254740994\\] is too large`)],
		["a chunk_shape past 2^53", async () => replaceInMetadata(await storeWithMetadata("chunk62.zarr", (j) => void (j.chunk_grid = { name: "regular", configuration: { chunk_shape: [7] } })), /"chunk_shape":\[7\]/, '"chunk_shape":[ 18446744073709551616 ]'), (r) => new RegExp(`${meta(r)}chunk_grid\\.configuration\\.chunk_shape \\[18446744073709551616\\] is too large`)],
		["a fractional shape, shown as written", async () => replaceInMetadata(await storeWithMetadata("shapefrac.zarr", (j) => void (j.shape = [7])), /"shape":\[7\]/, '"shape":[4.50]'), (r) => new RegExp(`${meta(r)}shape must be a list of non-negative integers, got \\[4\\.50\\]`)],
		// The v3 spec: dimension_names has one entry per dimension, and codecs exactly one array -> bytes codec.
		["dimension_names of another length", () => storeWithMetadata("dimnames.zarr", (j) => void (j.dimension_names = ["a", "b"])), (r) => new RegExp(`${meta(r)}dimension_names \\["a","b"\\] has 2 names for the 1 dimensions of shape`)],
		["dimension_names that are not strings", () => storeWithMetadata("dimnames2.zarr", (j) => void (j.dimension_names = [3])), (r) => new RegExp(`${meta(r)}dimension_names \\[3\\] must be a list of strings or nulls, one per dimension`)],
		["no codecs", () => storeWithMetadata("nocodecs.zarr", (j) => void (j.codecs = [])), (r) => new RegExp(`${meta(r)}codecs \\[\\] has no array -> bytes codec \\(bytes, sharding_indexed\\.\\.\\.\\), which the spec requires exactly one of`)],
		["a compressor without an array -> bytes codec", () => storeWithMetadata("gziponly.zarr", (j) => void (j.codecs = [GZIP])), (r) => new RegExp(`${meta(r)}codecs \\["gzip"\\] has no array -> bytes codec`)],
		["an irregular chunk grid", () => storeWithMetadata("grid.zarr", (j) => void (j.chunk_grid = { name: "rectilinear", configuration: {} })), (r) => new RegExp(`${meta(r)}chunk_grid "rectilinear" is not supported`)],
		["a chunk_shape of another rank", () => storeWithMetadata("rank.zarr", (j) => void (j.chunk_grid = { name: "regular", configuration: { chunk_shape: [2, 2] } })), (r) => new RegExp(`${meta(r)}chunk_shape \\[2,2\\] does not match the rank`)],
		["a chunk too large to hold in memory", () => storeWithMetadata("hugechunk.zarr", (j) => void ((j.shape = [2 ** 40]), (j.chunk_grid = { name: "regular", configuration: { chunk_shape: [2 ** 40] } }))), (r) => new RegExp(`${meta(r)}chunk_shape \\[1099511627776\\] .*too large`)],
		["a shape of more than 2^53 values", () => storeWithMetadata("hugeshape.zarr", (j) => void ((j.shape = [2 ** 30, 2 ** 30]), (j.chunk_grid = { name: "regular", configuration: { chunk_shape: [1, 1024] } }))), (r) => new RegExp(`${meta(r)}shape \\[1073741824,1073741824\\] holds more than 2\\^53 values`)],
		["a row of chunks too large to assemble", () => storeWithMetadata("hugeband.zarr", (j) => void ((j.shape = [4, 2 ** 28]), (j.chunk_grid = { name: "regular", configuration: { chunk_shape: [2, 1024] } }))), () => /array shape \[4,268435456\] in chunks of \[2,1024\]: one row of chunks holds 536870912 values, too large to assemble \(at most \d+, 1 GiB of int64\); --index --order chunk streams chunk by chunk without assembling rows$/m],
		["codecs that are not a list", () => storeWithMetadata("codecs.zarr", (j) => void (j.codecs = { name: "bytes" })), (r) => new RegExp(`${meta(r)}codecs must be a list`)],
		["an unknown codec", () => storeWithMetadata("unknowncodec.zarr", (j) => void (j.codecs = [LE, { name: "lzma9000" }])), (r) => new RegExp(`${meta(r)}unknown codec "lzma9000"`)],
		["an unknown codec inside a shard", () => storeWithMetadata("unknowninner.zarr", (j) => void (j.codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: [LE, { name: "brotli" }] } }])), (r) => new RegExp(`${meta(r)}unknown codec "brotli"`)],
		["a bytes codec with an unknown endian", () => storeWithMetadata("endian.zarr", (j) => void (j.codecs = [{ name: "bytes", configuration: { endian: "middle" } }])), (r) => new RegExp(`${meta(r)}bytes.*endian.*"middle"`)],
		["a transpose order that is not a permutation", () => storeWithMetadata("transpose.zarr", (j) => void (j.codecs = [{ name: "transpose", configuration: { order: [3] } }, LE])), (r) => new RegExp(`${meta(r)}transpose.*order.*\\[3\\]`)],
		["sharding codecs that are not a list", () => storeWithMetadata("shardcodecs.zarr", (j) => void (j.codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: "bytes" } }])), (r) => new RegExp(`${meta(r)}sharding_indexed\\.codecs must be a list`)],
		["an unknown chunk key encoding", () => storeWithMetadata("keyenc.zarr", (j) => void (j.chunk_key_encoding = { name: "v4" })), (r) => new RegExp(`${meta(r)}chunk_key_encoding: unknown name "v4"`)],
		["storage transformers", () => storeWithMetadata("transformers.zarr", (j) => void (j.storage_transformers = [{ name: "x" }])), (r) => new RegExp(`${meta(r)}storage_transformers are not supported`)],
		// The v3 spec: an extension member not understood fails the array unless it says "must_understand": false.
		["an extension member that must be understood", () => storeWithMetadata("extension.zarr", (j) => void (j.some_future_extension = { must_understand: true, offset: 5 })), (r) => new RegExp(`${meta(r)}zarr.json member "some_future_extension" is an extension this reader does not know, and it does not say "must_understand": false`)],
		["an extension member with no must_understand", () => storeWithMetadata("extension2.zarr", (j) => void (j.scale = 2)), (r) => new RegExp(`${meta(r)}zarr.json member "scale" is an extension`)],
		["a zip file that is not a zip", async () => {
			const file = `${fresh("fake")}.zip`;
			fs.writeFileSync(file, "not a zip archive at all");
			return file;
		}, (r) => new RegExp(`${esc(r)}: `)],
		["a gzip chunk that does not inflate", () => makeStore("badgzip.zarr", { codecs: [LE, GZIP], corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.map((x, i) => (i > 10 ? x ^ 0x5a : x)) : b) }), () => /chunk c\/1: cannot decode: .*gzip/],
		["a zstd chunk that does not decompress", () => makeStore("badzstd.zarr", { codecs: [LE, ZSTD], corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.subarray(0, b.length - 3) : b) }), () => /chunk c\/1: cannot decode: .*zstd/],
		["a blosc chunk that does not decompress", () => makeStore("badblosc.zarr", { codecs: [LE, BLOSC], corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.subarray(0, 20) : b) }), () => /chunk c\/1: cannot decode: .*blosc/],
		["an lz4 chunk whose header claims more than the chunk", () => storeWithMetadata("lz4.zarr", (j) => void (j.codecs = [LE, { name: "lz4", configuration: { acceleration: 1 } }])).then((root) => {
			const claim = Buffer.alloc(40);
			claim.writeUInt32LE(512 * MiB, 0);
			fs.writeFileSync(path.join(root, "c/0"), claim);
			return root;
		}), () => /chunk c\/0: cannot decode: lz4: chunk declares 536870912 bytes, more than its expected 32/],
		// numcodecs' blosc ignores blosc's error and returns its uninitialised output buffer: garbage, unless caught.
		["a blosc chunk whose compressed stream is corrupt", () => makeStore("bloscstream.zarr", {
			shape: [1024],
			chunks: [512],
			values: BigInt64Array.from({ length: 1024 }, (_, i) => BigInt(i * 1000)),
			codecs: [LE, BLOSC],
			corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.map((x, i) => (i === 25 ? x ^ 0xff : x)) : b),
		}), () => /chunk c\/1: cannot decode: blosc: the chunk does not decompress \(corrupt compressed data\)/],
		["a chunk of the wrong decoded size", () => makeStore("short.zarr", { corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.subarray(0, 24) : b) }), () => /chunk c\/1: decoded to 3 values, expected 4 \(chunk shape \[4\]\)/],
		["a chunk that is not a whole number of int64", () => makeStore("ragged.zarr", { corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.subarray(0, 31) : b) }), () => /chunk c\/1: decoded to 3 values, expected 4/],
		["a gzip chunk of the wrong decoded size", () => makeStore("shortgzip.zarr", { codecs: [LE, GZIP], corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 0 ? new Uint8Array(zlib.gzipSync(new Uint8Array(40))) : b) }), () => /chunk c\/0: decoded to 5 values, expected 4/],
		["a chunk failing its crc32c checksum", () => makeStore("crc.zarr", { codecs: [LE, { name: "crc32c" }], corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 2 ? b.map((x, i) => (i === 3 ? x ^ 1 : x)) : b) }), () => /chunk c\/2: .*crc32c/],
		["a chunk file that is a folder", () => makeStore("dirchunk.zarr", { corruptChunk: (_c: number[], b: Uint8Array) => b }).then((root) => {
			fs.rmSync(path.join(root, "c/1"));
			fs.mkdirSync(path.join(root, "c/1"));
			return root;
		}), (r) => new RegExp(`cannot read ${esc(r)}/c/1`)],
	];
	const shard = (location: "start" | "end", innerCodecs: object[] = [LE]) => ({
		chunks: [8],
		codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: innerCodecs, index_codecs: [LE, { name: "crc32c" }], index_location: location } }],
	});
	/** Shard c/0 with its index entry `slot` rewritten (see withIndexEntry). */
	const withEntry = (slot: number, offset: bigint, length: bigint) => (c: number[], b: Uint8Array) => (c[0] === 0 ? withIndexEntry(b, slot, offset, length) : b);
	cases.push(
		["a shard index entry pointing past the shard", () => makeStore("shardpast.zarr", { ...shard("end"), corruptChunk: withEntry(1, 10_000n, 16n) }), (r) => new RegExp(`shard c/0: index entry 1 points outside the shard \\(${esc(r)}/c/0: byte range 10000\\.\\.10016 is outside the file`)],
		["a shard index entry with an absurd offset", () => makeStore("shardabsurd.zarr", { ...shard("end"), corruptChunk: withEntry(2, 2n ** 62n, 16n) }), () => /shard c\/0: corrupt index entry 2/],
		["a shard index entry half empty", () => makeStore("shardhalf.zarr", { ...shard("end"), corruptChunk: withEntry(0, 2n ** 64n - 1n, 16n) }), () => /shard c\/0: corrupt index entry 0/],
		["a shard index entry of the wrong chunk length", () => makeStore("shardlen.zarr", { ...shard("end"), corruptChunk: withEntry(0, 0n, 8n) }), () => /chunk c\/0 \(inner chunk \[0\]\): decoded to 1 values, expected 2/],
		["a shard index failing its checksum", () => makeStore("shardcrc.zarr", { ...shard("end"), corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 0 ? b.map((x, i) => (i === b.length - 10 ? x ^ 0xff : x)) : b) }), () => /shard c\/0: index checksum mismatch \(crc32c\)/],
		["a shard index at the start failing its checksum", () => makeStore("shardcrcstart.zarr", { ...shard("start"), corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 1 ? b.map((x, i) => (i === 5 ? x ^ 0xff : x)) : b) }), () => /shard c\/1: index checksum mismatch \(crc32c\)/],
		["a shard shorter than its index", () => makeStore("shardshort.zarr", { ...shard("end"), corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 0 ? b.subarray(0, 30) : b) }), (r) => new RegExp(`${esc(r)}/c/0: byte range .* is outside the file \\(30 bytes\\)`)],
		["a corrupt inner chunk of a shard", () => makeStore("shardinner.zarr", { ...shard("end", [LE, GZIP]), corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 0 ? b.map((x, i) => (i > 12 && i < 20 ? x ^ 0x33 : x)) : b) }), () => /chunk c\/0 \(inner chunk \[0\]\): cannot decode: .*gzip/],
	);
	const CLI_SAMPLE = new Set([
		"a store path that does not exist",
		"zarr.json that is not JSON",
		"an unknown unit",
		"a chunk too large to hold in memory",
		"an unknown codec",
		"a gzip chunk that does not inflate",
		"a blosc chunk whose compressed stream is corrupt",
		"a chunk failing its crc32c checksum",
		"a shard index failing its checksum",
		"a chunk file that is a folder",
	]);
	for (const [name, build, pattern, extraArgs] of cases) {
		it(`${name} (in process)`, async () => {
			const root = await build();
			const outDir = tempDir("dt64-faults-out-");
			const array = extraArgs?.[0] === "--array" ? extraArgs[1] : undefined;
			const outcome = await exportInProcess(root, path.join(outDir, "out.arrow"), { array });
			expect(outcome.ok).toBe(false);
			const error = (outcome as { error: unknown }).error;
			expect(contractViolation(error)).toBeUndefined();
			// The line the CLI prints: the library's message, with the CLI's advice where the code has one.
			expect(describeForCli(error as Dt64ExportError)).toMatch(pattern(root));
			expect((error as Dt64ExportError).kind).not.toBe("usage");
			expect(fs.readdirSync(outDir)).toEqual([]);
			fs.rmSync(outDir, { recursive: true });
		});
	}
	// The same refusals through the built CLI, for a sample across every layer (the start-up costs ~0.7 s each).
	for (const [name, build, pattern, extraArgs] of cases.filter(([name]) => CLI_SAMPLE.has(name))) {
		it.concurrent(`${name} (CLI)`, async () => {
			const root = await build();
			await expectRefusal([root, ...(extraArgs ?? [])], pattern(root));
		});
	}

	// Root reads any file: the CLI then runs as nobody (setpriv), which needs a folder it can enter, and must be able
	// to run this checkout's CLI (a clone inside a private folder, such as mktemp -d makes, is out of its reach).
	const asRoot = process.getuid?.() === 0;
	const canDropPrivileges =
		!asRoot || spawnSync("setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath, BIN, "--version"]).status === 0;
	if (!canDropPrivileges) console.warn("skipping the unreadable zarr.json test: user nobody cannot run this checkout's CLI");
	it.skipIf(!canDropPrivileges)("an unreadable zarr.json is named once, with the reason (CLI)", async () => {
		const folder = tempDir("dt64-faults-perm-");
		try {
			fs.chmodSync(folder, 0o755);
			const root = path.join(folder, "locked.zarr");
			await writeArray(root, "", spec() as Parameters<typeof writeArray>[2]);
			fs.chmodSync(path.join(root, "zarr.json"), 0o000);
			const command = asRoot ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", process.execPath] : [process.execPath];
			for (const args of [[root, "-o", "-"], ["inspect", root]]) {
				const run = spawnSync(command[0], [...command.slice(1), BIN, ...args], { env: { ...process.env, DT64_DEBUG: "" } });
				expect(run.stderr.toString()).toBe(`dt64-export: cannot read ${root}/zarr.json: EACCES: permission denied [READ_FAILED]\n`);
				expect(run.status).toBe(1);
			}
		} finally {
			fs.rmSync(folder, { recursive: true, force: true });
		}
	});
});

/** A zstd frame of RLE blocks of 128 KiB (4 bytes each): `blocks` × 128 KiB of content, with or without its size. */
function zstdRleFrame(blocks: number, declareSize: boolean): Uint8Array {
	const header = declareSize ? Buffer.alloc(14) : Buffer.alloc(6);
	header.writeUInt32LE(0xfd2fb528, 0);
	// Frame_Header_Descriptor: an 8-byte Frame_Content_Size or none; then a 128 KiB window.
	header[4] = declareSize ? 0xc0 : 0x00;
	header[5] = 0x38;
	if (declareSize) header.writeBigUInt64LE(BigInt(blocks * 128 * 1024), 6);
	const body = Buffer.alloc(blocks * 4);
	for (let i = 0; i < blocks; i++) {
		const blockHeader = ((128 * 1024) << 3) | (1 << 1) | (i === blocks - 1 ? 1 : 0);
		body.writeUIntLE(blockHeader, i * 4, 3);
		body[i * 4 + 3] = 0x41;
	}
	return Buffer.concat([header, body]);
}

/** A zstd frame without Frame_Content_Size (as streaming encoders write) holding `content` in raw blocks. */
function zstdRawFrame(content: Uint8Array, blockBytes: number): Uint8Array {
	const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38])];
	for (let start = 0; start < content.length; start += blockBytes) {
		const block = content.subarray(start, start + blockBytes);
		const header = Buffer.alloc(3);
		header.writeUIntLE((block.length << 3) | (start + blockBytes >= content.length ? 1 : 0), 0, 3);
		parts.push(header, Buffer.from(block));
	}
	return Buffer.concat(parts);
}

describe("decompression bombs are refused before they fill memory", () => {
	it("while a zstd frame without a declared size, of the right size, is still read (in process)", async () => {
		const root = await makeStore("zstd-nosize.zarr", { codecs: [LE, ZSTD] });
		const chunk = new BigInt64Array([0n, 1000n, 2000n, 3000n]);
		fs.writeFileSync(path.join(root, "c/0"), zstdRawFrame(new Uint8Array(chunk.buffer), 10));
		const outDir = tempDir("dt64-faults-out-");
		const outcome = await exportInProcess(root, path.join(outDir, "out.arrow"));
		expect(outcome).toEqual({ ok: true });
		expect(readArrow(path.join(outDir, "out.arrow")).getChildAt(0)!.toArray().slice(0, 4)).toEqual(BigInt64Array.of(0n, 1000n, 2000n, 3000n));
		fs.rmSync(outDir, { recursive: true });
	});

	// 8 KiB chunks; each bomb claims or inflates to 512 MiB.
	const bombSpec = (codecs: object[]) => ({ shape: [1024], chunks: [1024], values: new BigInt64Array(1024).fill(7n), codecs: [LE, ...codecs] });
	let baselineRss = 0;
	beforeAll(async () => {
		const root = await makeStore("baseline.zarr", bombSpec([GZIP]));
		const run = await runCliAsync([root, "-o", path.join(work, "baseline.arrow"), "-q"], { measureMemory: true });
		expect(run.status).toBe(0);
		baselineRss = run.maxRssBytes!;
	});

	const bombs: [string, object[], () => Promise<Uint8Array>, RegExp][] = [
		[
			"gzip: 530 KB inflating to 512 MiB (512 gzip members of 1 MiB of zeros): larger than the chunk can be encoded to, not read",
			[GZIP],
			async () => Buffer.concat(new Array(512).fill(zlib.gzipSync(Buffer.alloc(MiB), { level: 9 }))),
			/c\/0: 538112 bytes, more than a chunk of 1024 values \(8192 bytes decoded\) can be encoded to \(74752 at most\) \[CHUNK_CORRUPT\]/,
		],
		[
			// Within the bound on encoded chunk sizes (74752 bytes here): gzip's own cap refuses it.
			"gzip: 66 KB inflating to 64 MiB (64 gzip members of 1 MiB of zeros)",
			[GZIP],
			async () => Buffer.concat(new Array(64).fill(zlib.gzipSync(Buffer.alloc(MiB), { level: 9 }))),
			/chunk c\/0: cannot decode: gzip: chunk inflates past its expected 8192 bytes/,
		],
		["zstd: 16 KB declaring and holding 512 MiB", [ZSTD], async () => zstdRleFrame(4096, true), /chunk c\/0: cannot decode: zstd: chunk declares 536870912 bytes, more than its expected 8192/],
		["zstd: 16 KB without a declared size, holding 512 MiB", [ZSTD], async () => zstdRleFrame(4096, false), /chunk c\/0: cannot decode: zstd: chunk without a declared size has blocks for up to 536870912 bytes, far more than its expected 8192/],
		[
			"blosc: 100 bytes whose header claims 512 MiB",
			[BLOSC],
			async () => {
				const { default: Blosc } = await import("numcodecs/blosc");
				const small = Buffer.from(await Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 }).encode(new Uint8Array(8192)));
				small.writeUInt32LE(512 * MiB, 4);
				return small;
			},
			/chunk c\/0: cannot decode: blosc: chunk declares 536870912 bytes, more than its expected 8192/,
		],
	];
	for (const [name, codecs, bomb, pattern] of bombs) {
		it(name, async () => {
			const root = await makeStore("bomb.zarr", bombSpec(codecs));
			fs.writeFileSync(path.join(root, "c/0"), await bomb());
			const outDir = tempDir("dt64-faults-out-");
			const run = await runCliAsync([root, "-o", path.join(outDir, "out.arrow")], { measureMemory: true });
			expect(run.stderr).toMatch(/^dt64-export: [^\n]+\n$/);
			expect(run.stderr).toMatch(pattern);
			expect(run.status).toBe(1);
			expect(fs.readdirSync(outDir)).toEqual([]);
			// 512 MiB decoded would show; a refusal stays within a few MiB of a normal export of the same store.
			expect(run.maxRssBytes! - baselineRss).toBeLessThan(64 * MiB);
		});
	}
});

/** Waits until `predicate` holds, polling; fails after `timeoutMs`. */
async function until(predicate: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!predicate()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe("output is all or nothing", () => {
	let server: TestServer;
	let served: string;
	beforeAll(async () => {
		served = fresh("served");
		// 40 one-value chunks, each answered after 250 ms: the export runs for a few seconds, its temporary file open.
		await writeArray(served, "slow.zarr", spec({ shape: [40], chunks: [1], values: BigInt64Array.from({ length: 40 }, (_, i) => BigInt(i)) }) as Parameters<typeof writeArray>[2]);
		await writeArray(served, "bad.zarr", spec({ shape: [40], chunks: [1], values: BigInt64Array.from({ length: 40 }, (_, i) => BigInt(i)), corruptChunk: (c: number[], b: Uint8Array) => (c[0] === 30 ? b.subarray(0, 4) : b) }) as Parameters<typeof writeArray>[2]);
		server = await startServer(served, { faults: (request) => (/\/c\/\d+$/.test(request.path) ? { delayMs: request.path.startsWith("/slow.zarr") ? 250 : 10 } : undefined) });
	});
	afterAll(() => server.close());

	for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
		it(`${signal} mid-export exits ${code} and removes the temporary file`, async () => {
			const outDir = tempDir("dt64-faults-out-");
			let sent = false;
			const run = await runCliAsync([`${server.url}/slow.zarr`, "-o", path.join(outDir, "t.arrow"), "--concurrency", "2"], {
				onSpawn: (child) => {
					void until(() => fs.readdirSync(outDir).some((name) => name.endsWith(".tmp")), "the temporary file").then(() => {
						sent = child.kill(signal);
					});
				},
			});
			expect(sent).toBe(true);
			// No progress line is showing (stderr is not a terminal): the message starts the output, no blank line first.
			expect(run.stderr).toBe(`dt64-export: interrupted by ${signal}\n`);
			expect(run.status).toBe(code);
			expect(fs.readdirSync(outDir)).toEqual([]);
		});
	}

	it("a file created at the target mid-export is not replaced without --force: the export fails and leaves it", async () => {
		const outDir = tempDir("dt64-faults-out-");
		const target = path.join(outDir, "t.arrow");
		const run = await runCliAsync([`${server.url}/slow.zarr`, "-o", target, "--concurrency", "4"], {
			onSpawn: () => {
				void until(() => fs.readdirSync(outDir).some((name) => name.endsWith(".tmp")), "the temporary file").then(() => fs.writeFileSync(target, "another program's file"));
			},
		});
		expect(run.stderr).toBe(`dt64-export: ${target} already exists (use --force to overwrite) [OUTPUT_EXISTS]\n`);
		expect(run.status).toBe(1);
		expect(fs.readdirSync(outDir)).toEqual(["t.arrow"]);
		expect(fs.readFileSync(target, "utf8")).toBe("another program's file");
	});

	it("SIGINT ends an export waiting for a FIFO's reader", async () => {
		const fifo = path.join(tempDir("dt64-faults-out-"), "fifo");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		const run = await runCliAsync([path.join(REPO, "data/weather-station.zarr"), "-o", fifo], {
			timeoutMs: 10_000,
			onSpawn: (child) => setTimeout(() => child.kill("SIGINT"), 500),
		});
		// Killed by the signal while the open waits (no handler yet), or 130 had it just been opened: no hang either way.
		expect(run.signal === "SIGINT" || run.status === 130).toBe(true);
		expect(fs.statSync(fifo).isFIFO()).toBe(true);
	});

	it("a FIFO without a reader is waited for with the handlers in place: SIGINT or SIGTERM then exits saying so", async () => {
		// Sent while the CLI waits for the reader, however long its start took (it used to be sent 2.5 s after the
		// spawn, which a loaded machine may not have reached the wait by): the blocking open of before took no handler
		// (killed by the signal, nothing said), and one that came just before it could be lost, the open then waiting
		// forever. support/fifo-waiting.mjs says when a wait has begun: its first open without a reader (ENXIO).
		for (const [signal, status] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
			const folder = tempDir("dt64-faults-out-");
			const fifo = path.join(folder, "fifo");
			const waiting = path.join(folder, "waiting");
			expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
			let sent = false;
			const run = await runCliAsync([path.join(REPO, "data/weather-station.zarr"), "-o", fifo], {
				fifoWaiting: waiting,
				onSpawn: (child) => {
					void until(() => fs.existsSync(waiting) || child.exitCode !== null || child.signalCode !== null, "the wait for the FIFO's reader", 60_000).then(() => {
						if (fs.existsSync(waiting)) sent = child.kill(signal);
					});
				},
			});
			expect({ sent, status: run.status, stderr: run.stderr }).toEqual({ sent: true, status, stderr: `dt64-export: interrupted by ${signal}\n` });
			expect(fs.statSync(fifo).isFIFO()).toBe(true);
		}
	});

	it("a FIFO whose reader comes later gets the whole export", async () => {
		const folder = tempDir("dt64-faults-out-");
		const fifo = path.join(folder, "fifo");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		const run = runCliAsync([path.join(REPO, "data/weather-station.zarr"), "-o", fifo, "--to", "arrow"]);
		await new Promise((resolve) => setTimeout(resolve, 300));
		const received: Buffer[] = [];
		await new Promise<void>((resolve, reject) => fs.createReadStream(fifo).on("data", (b) => received.push(b as Buffer)).on("end", resolve).on("error", reject));
		expect((await run).status).toBe(0);
		const file = path.join(folder, "t.arrow");
		expect(spawnSync(process.execPath, [BIN, path.join(REPO, "data/weather-station.zarr"), "-o", file, "-q"]).status).toBe(0);
		expect(Buffer.concat(received).equals(fs.readFileSync(file))).toBe(true);
	});

	it("an error after batches were written removes the temporary file", async () => {
		const outDir = tempDir("dt64-faults-out-");
		const run = await runCliAsync([`${server.url}/bad.zarr`, "-o", path.join(outDir, "t.arrows"), "--to", "arrow-stream", "--concurrency", "1"]);
		expect(run.stderr).toBe("dt64-export: chunk c/30: decoded to 0 values, expected 1 (chunk shape [1]) [CHUNK_CORRUPT]\n");
		expect(run.status).toBe(1);
		expect(fs.readdirSync(outDir)).toEqual([]);
	});

	it("a failed --force export leaves the existing file as it was", async () => {
		const outDir = tempDir("dt64-faults-out-");
		const target = path.join(outDir, "t.arrow");
		fs.writeFileSync(target, "previous export");
		const refused = await runCliAsync([`${server.url}/slow.zarr`, "-o", target]);
		expect(refused.stderr).toBe(`dt64-export: ${target} already exists (use --force to overwrite) [OUTPUT_EXISTS]\n`);
		expect(refused.status).toBe(1);
		const failed = await runCliAsync([`${server.url}/bad.zarr`, "-o", target, "--force"]);
		expect(failed.status).toBe(1);
		expect(fs.readdirSync(outDir)).toEqual(["t.arrow"]);
		expect(fs.readFileSync(target, "utf8")).toBe("previous export");
	});
});

describe("binary output to a terminal", () => {
	const hasScript = spawnSync("script", ["--version"]).status === 0;
	if (!hasScript) console.warn("skipping the terminal test: util-linux `script` is not installed");
	for (const [output, format, kind] of [["-", "arrow", "Arrow"], ["-", "parquet", "Parquet"], ["/dev/tty", "arrow-stream", "Arrow"]] as const) {
		it.skipIf(!hasScript)(`-o ${output} --to ${format} on a terminal is refused with a hint, exit 2 (run under \`script\`, which gives it a pty)`, () => {
			const command = [process.execPath, BIN, path.join(REPO, "data/weather-station.zarr"), "-o", output, "--to", format].map((arg) => `'${arg}'`).join(" ");
			const result = spawnSync("script", ["-qec", command, "/dev/null"], { stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
			const screen = result.stdout.toString();
			expect(screen.trim()).toBe(`dt64-export: refusing to write binary ${kind} data to a terminal: redirect it (> file, | program) or use -o <file> [USAGE]`);
			expect(result.status).toBe(2);
		});
	}
});
