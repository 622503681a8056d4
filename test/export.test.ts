import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { Schema, Timestamp } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { Dt64ExportError, UsageError } from "../src/errors.js";
import { createTableExportStages, exportTable, exportToFile } from "../src/export.js";
import { planExport } from "../src/export-plan.js";
import { exportDataset, exportSelection } from "../src/export-selection.js";
import { openTimeArray } from "../src/open-array.js";
import { openTable, tableOfTimeArray } from "../src/open-table.js";
import { FIXTURES, readArrow, readRawInt64, REPO, runCli, tempDir, TIMEDELTA_FIXTURE_CASES, TIMEDELTA_FIXTURE_NS, TIMEDELTA_PS_FIRST_NS } from "./support/cli.js";
import { thrown } from "./support/thrown.js";
import { sampleCounts } from "./support/sample-counts.js";

const NAT = -(2n ** 63n);
const work = tempDir();

let counter = 0;
async function store(spec: Parameters<typeof writeArray>[2], arrayPath = ""): Promise<string> {
	const root = path.join(work, `s${counter++}.zarr`);
	await writeArray(root, arrayPath, spec);
	return root;
}

function values(n: number, seed = 1): BigInt64Array {
	return sampleCounts(n, seed, { every: 17, at: 3 });
}

const rawValues = (file: string): bigint[] => readRawInt64(file).map((value) => value ?? NAT);

function exportRaw(root: string, extra: string[] = []): { values: bigint[]; file: string } {
	const file = path.join(work, `out${counter++}.arrow`);
	const result = runCli([root, "-o", file, "-q", ...extra]);
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
	return { values: rawValues(file), file };
}

const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const LE = { name: "bytes", configuration: { endian: "little" } };
const BE = { name: "bytes", configuration: { endian: "big" } };

describe("export through the CLI: codecs and layouts", () => {
	const v = values(1000);
	const cases: [string, object][] = [
		["bytes little", { codecs: [LE] }],
		["bytes big", { codecs: [BE] }],
		["gzip", { codecs: [LE, { name: "gzip", configuration: { level: 5 } }] }],
		["zlib", { codecs: [BE, { name: "zlib", configuration: { level: 1 } }] }],
		["zstd", { codecs: [LE, { name: "zstd", configuration: { level: 3, checksum: false } }] }],
		["blosc", { codecs: [LE, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }] }],
		["crc32c", { codecs: [LE, { name: "crc32c" }] }],
		["dot key separator", { codecs: [LE], chunkKeyEncoding: { name: "default", configuration: { separator: "." } } }],
		["v2 key encoding", { codecs: [LE], chunkKeyEncoding: { name: "v2", configuration: { separator: "." } } }],
		["sharding, index at end", { chunks: [400], codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [LE, { name: "gzip", configuration: { level: 1 } }], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }] }],
		["sharding, index at start", { chunks: [400], codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [100], codecs: [BE], index_codecs: [LE, { name: "crc32c" }], index_location: "start" } }] }],
	];
	for (const [name, spec] of cases) {
		it(name, async () => {
			const root = await store({ shape: [1000], chunks: [128], dataType: seconds, values: v, ...spec });
			expect(exportRaw(root).values).toEqual(Array.from(v));
		});
	}

	it("reads a missing chunk as the fill value, exactly, even past 2^53", async () => {
		const fill = 2n ** 53n + 1n;
		const input = new BigInt64Array(300).fill(7n);
		const root = await store({ shape: [300], chunks: [100], dataType: seconds, values: input, fillValue: fill, omitChunks: (c) => c[0] === 1, codecs: [LE] });
		const out = exportRaw(root).values;
		expect(out.slice(100, 200)).toEqual(new Array(100).fill(fill));
		expect(out[0]).toBe(7n);
	});

	it("fill values NaT and 0 fill missing chunks", async () => {
		for (const fillValue of ["NaT", 0n] as const) {
			const root = await store({ shape: [10], chunks: [4], dataType: seconds, values: new BigInt64Array(10).fill(5n), fillValue, omitChunks: (c) => c[0] === 2, codecs: [LE] });
			const expected = fillValue === "NaT" ? NAT : 0n;
			expect(exportRaw(root).values).toEqual([5n, 5n, 5n, 5n, 5n, 5n, 5n, 5n, expected, expected]);
		}
	});

	it("refuses a chunk of the wrong decoded size instead of accepting it (zarrita does)", async () => {
		const root = await store({ shape: [10], chunks: [5], dataType: seconds, values: values(10), codecs: [LE], corruptChunk: (c, b) => (c[0] === 1 ? b.subarray(0, 32) : b) });
		const result = runCli([root, "-o", path.join(work, "bad.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe("dt64-export: chunk c/1: decoded to 4 values, expected 5 (chunk shape [5]) [CHUNK_CORRUPT]\n");
		expect(fs.existsSync(path.join(work, "bad.arrow"))).toBe(false);
	});

	it("refuses a gzip chunk that inflates past the chunk size (decompression bomb)", async () => {
		const root = await store({ shape: [8], chunks: [8], dataType: seconds, values: values(8), codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
		const zlib = await import("node:zlib");
		fs.writeFileSync(path.join(root, "c/0"), zlib.gzipSync(Buffer.alloc(64 << 20)));
		const result = runCli([root, "-o", path.join(work, "bomb.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/chunk c\/0: cannot decode: .*inflates past its expected 64 bytes/);
	});
});

describe("N-d arrays come out in C order", () => {
	function ravel(shape: number[]): BigInt64Array {
		const n = shape.reduce((a, b) => a * b, 1);
		return BigInt64Array.from({ length: n }, (_, i) => BigInt(i * 3 - 50));
	}
	const layouts: [string, number[], number[], object[]][] = [
		["2-D ragged", [7, 5], [3, 2], [LE]],
		["2-D transpose (F order chunks)", [7, 5], [3, 4], [{ name: "transpose", configuration: { order: [1, 0] } }, LE]],
		["3-D ragged with gzip", [5, 4, 3], [2, 3, 2], [LE, { name: "gzip", configuration: { level: 1 } }]],
		["3-D transpose", [4, 3, 5], [3, 2, 4], [{ name: "transpose", configuration: { order: [2, 0, 1] } }, BE]],
		["2-D sharded", [9, 6], [6, 6], [{ name: "sharding_indexed", configuration: { chunk_shape: [3, 2], codecs: [LE], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }]],
	];
	for (const [name, shape, chunks, codecs] of layouts) {
		it(name, async () => {
			const input = ravel(shape);
			const root = await store({ shape, chunks, dataType: seconds, values: input, codecs, fillValue: 0n, writeEmptyChunks: true });
			expect(exportRaw(root).values).toEqual(Array.from(input));
		});
	}
});

describe("zarr-python fixtures", () => {
	const present = fs.existsSync(FIXTURES);
	if (!present) console.warn(`skipping zarr-python fixtures: ${FIXTURES} not found`);
	const s = (iso: string) => BigInt(Date.parse(`${iso}Z`) / 1000);
	const expectations: Record<string, [string, bigint[]]> = {
		"datetime64[Y].zarr": ["s", [0n, NAT, s("2005-01-01T00:00:00"), s("2005-01-01T00:00:00"), s("2005-01-01T00:00:00"), NAT]],
		"datetime64[W].zarr": ["s", [0n, NAT, 1830n * 604800n, 1830n * 604800n, 1830n * 604800n, NAT].map((x) => (x === NAT ? x : x - 3n * 86400n * 0n))],
		"datetime64[D].zarr": ["s", [0n, NAT, 1107388800n, 1107388800n, 1107388800n, NAT]],
		"datetime64[h].zarr": ["s", [0n, NAT, 1107388800n, 1107403200n, 1107403200n, NAT]],
		"datetime64[m].zarr": ["s", [0n, NAT, 1107388800n, 1107403500n, 1107403500n, NAT]],
		"datetime64[s].zarr": ["s", [0n, NAT, 1107388800n, 1107403500n, 1107403506n, NAT]],
		"datetime64[ms].zarr": ["ms", [0n, NAT, 1107388800000n, 1107403500000n, 1107403506000n, NAT]],
		"datetime64[10ms].zarr": ["ms", [0n, NAT, 1107388800000n, 1107403500000n, 1107403506000n, NAT]],
		"datetime64[us].zarr": ["us", [0n, NAT, 1107388800000000n, 1107403500000000n, 1107403506000000n, NAT]],
		"datetime64[10us].zarr": ["us", [0n, NAT, 1107388800000000n, 1107403500000000n, 1107403506000000n, NAT]],
		"datetime64[ns].zarr": ["ns", [0n, NAT, 1107388800000000000n, 1107403500000000000n, 1107403506000000000n, NAT]],
	};
	for (const [name, [unit, expected]] of Object.entries(expectations)) {
		it.skipIf(!present)(`${name} -> ${unit}`, () => {
			const { values: out, file } = exportRaw(path.join(FIXTURES, name));
			const field = readArrow(file).schema.fields[0];
			expect(field.type.toString()).toBe(`Timestamp<${{ s: "SECOND", ms: "MILLISECOND", us: "MICROSECOND", ns: "NANOSECOND" }[unit]}>`);
			expect(field.name).toBe(name.replace(/\.zarr$/, ""));
			if (name !== "datetime64[W].zarr") expect(out).toEqual(expected);
			else expect(out[2]).toBe(BigInt(Math.floor(12817 / 7)) * 604800n);
		});
	}
	it.skipIf(!present)("picks the only datetime64 array of a group (mixed-group.zarr)", () => {
		const { values: out, file } = exportRaw(path.join(FIXTURES, "mixed-group.zarr"));
		expect(readArrow(file).schema.fields[0].name).toBe("date");
		expect(out).toEqual([1672531200000n, 1672617600000n, 1672704000000n]);
	});
});

describe("independent readers: polars", () => {
	it("reads the IPC file: rows, nulls, unit and values", async () => {
		const input = BigInt64Array.of(0n, NAT, 1107403506n, -1n, 2n ** 40n);
		const root = await store({ shape: [5], chunks: [2], dataType: seconds, values: input, codecs: [LE] });
		const file = path.join(work, "polars.arrow");
		expect(runCli([root, "-o", file, "-q", "--unit", "us", "--column", "t"]).status).toBe(0);
		const df = pl.readIPC(fs.readFileSync(file));
		expect(df.height).toBe(5);
		expect(String(df.getColumn("t").dtype)).toMatch(/Datetime.*us/i);
		expect(df.getColumn("t").nullCount()).toBe(1);
		const ints = df.getColumn("t").cast(pl.Int64).cast(pl.Utf8).toArray();
		expect(ints).toEqual(["0", null, "1107403506000000", "-1000000", String(2n ** 40n * 1000000n)]);
	});

	it("reads the IPC stream written to stdout", async () => {
		const input = values(5000);
		const root = await store({ shape: [5000], chunks: [1024], dataType: { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } }, values: input, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
		const result = runCli([root, "--to", "arrow-stream", "-o", "-"]);
		expect(result.status).toBe(0);
		const file = path.join(work, "stream.arrows");
		fs.writeFileSync(file, result.stdout);
		const df = pl.readIPCStream(fs.readFileSync(file));
		expect(df.height).toBe(5000);
		expect(String(df.getColumn(df.columns[0]).dtype)).toMatch(/Datetime.*ns/i);
		const ints = df.getColumn(df.columns[0]).cast(pl.Int64).cast(pl.Utf8).toArray();
		expect(ints).toEqual(Array.from(input, (x) => (x === NAT ? null : x.toString())));
	});
});

describe("numpy.timedelta64 as Arrow Duration (zarr-python fixtures)", () => {
	const present = fs.existsSync(FIXTURES);
	const ARROW_UNIT = { ms: "MILLISECOND", us: "MICROSECOND", ns: "NANOSECOND" } as const;
	for (const [name, unit, divisor] of TIMEDELTA_FIXTURE_CASES) {
		it.skipIf(!present)(name, () => {
			const { values: out, file } = exportRaw(path.join(FIXTURES, name));
			expect(readArrow(file).schema.fields[0].type.toString()).toBe(`Duration<${ARROW_UNIT[unit]}>`);
			expect(out).toEqual([...TIMEDELTA_FIXTURE_NS.map((v) => v / divisor), NAT]);
		});
	}
	it.skipIf(!present)("timedelta64[ps].zarr: 8760 h does not fit int64 ps, so numpy wrapped it when writing; the stored count is exported as is", () => {
		const { values: out } = exportRaw(path.join(FIXTURES, "timedelta64[ps].zarr"), ["--allow-truncate"]);
		expect(out).toEqual([TIMEDELTA_PS_FIRST_NS, ...TIMEDELTA_FIXTURE_NS.slice(1), NAT]);
	});
});

describe("library options: timezone", () => {
	const weather = path.join(REPO, "data/weather-station.zarr");
	const timezoneOf = (schema: Schema) => (schema.fields[0].type as Timestamp).timezone;

	it("is written in its canonical spelling (offsets kept), by the single and the table stages", async () => {
		const array = await openTimeArray(weather);
		const table = await openTable(path.join(REPO, "data/observations.zarr"), { columns: ["time"] });
		for (const [given, written] of [["europe/paris", "Europe/Paris"], ["utc", "UTC"], ["+01:00", "+01:00"], [null, null], [undefined, null]] as const) {
			expect(timezoneOf(createTableExportStages(tableOfTimeArray(array), { timezone: given }).batcher.schema)).toBe(written);
			expect(timezoneOf(createTableExportStages(table, { timezone: given }).batcher.schema)).toBe(written);
		}
	});

	it("is written as IANA's current name of a renamed zone, never as the old name ICU resolves it to", async () => {
		const array = await openTimeArray(weather);
		const renamed = [["Asia/Kolkata", "Asia/Kolkata"], ["asia/calcutta", "Asia/Kolkata"], ["Europe/Kyiv", "Europe/Kyiv"], ["Asia/Kathmandu", "Asia/Kathmandu"], ["America/Nuuk", "America/Nuuk"], ["Asia/Ho_Chi_Minh", "Asia/Ho_Chi_Minh"], ["pacific/yap", "Pacific/Chuuk"]];
		// A zone IANA merged into another keeps its name, as ICU keeps it.
		for (const [given, written] of [...renamed, ["Europe/Oslo", "Europe/Oslo"]]) expect(timezoneOf(createTableExportStages(tableOfTimeArray(array), { timezone: given }).batcher.schema), given).toBe(written);
	});

	it("an unknown zone or an impossible offset is a UsageError, before anything is read", async () => {
		const sink = new PassThrough();
		for (const timezone of ["Mars/Olympus_Mons", "+25:00"]) {
			await expect(exportTable("/nonexistent.zarr", sink, { timezone })).rejects.toThrow(UsageError);
			await expect(exportTable("/nonexistent.zarr", sink, { timezone, index: true })).rejects.toThrow(UsageError);
			expect(thrown(() => planExport({ timezone }))).toMatchObject({ code: "USAGE", option: "timezone", value: timezone });
		}
		const array = await openTimeArray(weather);
		expect(() => createTableExportStages(tableOfTimeArray(array), { timezone: "Mars/Olympus_Mons" })).toThrow(
			'timezone "Mars/Olympus_Mons": unknown time zone (use an IANA name such as UTC or Europe/Paris, or an offset like +01:00)',
		);
	});
});

describe("option names", () => {
	it("a misspelt or unknown option is a UsageError naming it, before anything is read, never an ignored option", async () => {
		const sink = new PassThrough();
		await expect(exportTable("/nonexistent.zarr", sink, { unti: "s" } as never)).rejects.toMatchObject({ code: "USAGE", option: "unti", message: 'unknown option "unti" (did you mean unit?)' });
		await expect(exportToFile("/nonexistent.zarr", "/nonexistent/x.arrow", { overwrite: true, timeZone: "UTC" } as never)).rejects.toMatchObject({ code: "USAGE", message: 'unknown option "timeZone" (did you mean timezone?)' });
		expect(thrown(() => planExport({ frobnicate: 1 } as never))).toMatchObject({ code: "USAGE", message: 'unknown option "frobnicate"' });
		// Every documented option, and overwrite, passes the check.
		expect(() => planExport({ overwrite: false, unit: "auto", index: true, order: "chunk", concurrency: 2 } as never)).not.toThrow();
	});

	it("concurrency is 1 to 1024: past it a chunk more in flight costs memory and buys nothing (trial 28: 04)", () => {
		expect(() => planExport({ concurrency: 1024 })).not.toThrow();
		expect(thrown(() => planExport({ concurrency: 1025 }))).toMatchObject({ code: "USAGE", option: "concurrency", message: "invalid concurrency 1025: must be an integer from 1 to 1024" });
		expect(thrown(() => planExport({ concurrency: 0 }))).toMatchObject({ code: "USAGE", option: "concurrency" });
	});

	it("request options are checked whatever the store, and internal or inapplicable ones are refused, naming them", async () => {
		const local = path.join(REPO, "data/weather-station.zarr");
		const refused = async (options: Record<string, unknown>) => {
			const sink = new PassThrough();
			sink.resume();
			return exportTable(local, sink, options as never).then(
				() => "exported",
				(error: Dt64ExportError) => `${error.code} ${error.option} ${error.message}`,
			);
		};
		expect(await refused({ retries: -1 })).toBe("USAGE retries invalid retries -1: expected a whole number >= 0");
		expect(await refused({ timeoutMs: -1 })).toBe("USAGE timeoutMs invalid timeoutMs -1: expected a number of milliseconds >= 0 (0: no limit)");
		expect(await refused({ timeoutMs: Number.NaN })).toBe("USAGE timeoutMs invalid timeoutMs NaN: expected a number of milliseconds >= 0 (0: no limit)");
		expect(await refused({ timeoutMs: 0 })).toBe("exported");
		expect(await refused({ headers: { "bad name": "x" } })).toBe('USAGE headers invalid header name "bad name"');
		expect(await refused({ bufferPool: {} })).toBe("USAGE bufferPool bufferPool is internal to dt64-export's own stages: leave it out");
		expect(await refused({ parts: 3 })).toBe("USAGE parts parts goes with `part` auto (a Kubernetes Indexed Job's completions)");
		expect(await refused({ columns: "time,temperature" })).toBe('USAGE columns columns: an array of names or "all", not the string "time,temperature" (["time","temperature"]?)');
		expect(await refused({ retries: 0, timeoutMs: 1000, headers: { "X-Ok": "1" } })).toBe("exported");
	});
});

describe("the caller's destination", () => {
	const big = path.join(REPO, "data/weather-station.zarr");

	// exportSelection (a part of the rows here) as exportTable: the second trial found its destination's errors raw.
	const toDestination = [
		["exportTable", (destination: Writable) => exportTable(big, destination, { format: "arrow-stream" })],
		["exportSelection", (destination: Writable) => exportSelection(big, destination, { format: "arrow-stream", part: "0/2" })],
	] as const;
	it.each(toDestination)("%s, failing or closed mid-export: a WRITE_FAILED Dt64ExportError, the destination's own error kept as its cause", async (_name, run) => {
		const broken = new Error("disk gone\nfor good");
		let writes = 0;
		const failing = new Writable({
			write(_chunk, _encoding, callback) {
				callback(++writes === 2 ? broken : null);
			},
		});
		const failed = await run(failing).then(() => undefined, (error: unknown) => error);
		expect(failed).toBeInstanceOf(Dt64ExportError);
		expect(failed).toMatchObject({ code: "WRITE_FAILED", message: "cannot write to the output stream: disk gone for good", cause: broken });

		const closing = new Writable({
			write(_chunk, _encoding, callback) {
				callback();
				this.destroy();
			},
		});
		const closed = await run(closing).then(() => undefined, (error: unknown) => error);
		expect(closed).toMatchObject({ code: "WRITE_FAILED", message: "cannot write to the output stream: it was closed before the export finished" });
	});

	it("the export's own errors are as they were", async () => {
		await expect(exportTable("/nonexistent.zarr", new PassThrough())).rejects.toMatchObject({ code: "STORE_NOT_FOUND" });
	});
});

describe("exportToFile and exportDataset: the format, and what they never replace", () => {
	const weather = path.join(REPO, "data/weather-station.zarr");
	const observations = path.join(REPO, "data/observations.zarr");
	const magic = (file: string) => fs.readFileSync(file).subarray(0, 4).toString("latin1");

	it("exportToFile writes the format the file's extension names, as -o does; a conflicting or missing one is refused", async () => {
		const dir = tempDir();
		await exportToFile(weather, path.join(dir, "t.parquet"));
		expect(magic(path.join(dir, "t.parquet"))).toBe("PAR1");
		await exportToFile(weather, path.join(dir, "t.arrow"));
		expect(magic(path.join(dir, "t.arrow"))).toBe("ARRO");
		await exportToFile(weather, path.join(dir, "t.bin"), { format: "parquet" });
		expect(magic(path.join(dir, "t.bin"))).toBe("PAR1");
		await expect(exportToFile(weather, path.join(dir, "u.parquet"), { format: "arrow" })).rejects.toMatchObject({ code: "USAGE", option: "format", message: `path ${path.join(dir, "u.parquet")} names parquet output but format is arrow: change the extension or format` });
		await expect(exportToFile(weather, path.join(dir, "u.bin"))).rejects.toMatchObject({ code: "USAGE", option: "format", message: expect.stringMatching(/has the extension \.bin, which names no format: .*format arrow\|arrow-stream\|parquet$/) });
		expect(fs.readdirSync(dir).sort()).toEqual(["t.arrow", "t.bin", "t.parquet"]);
	});

	it("exportToFile refuses to replace a FIFO (or a device): the rename would put a file in its place", async () => {
		const dir = tempDir();
		const fifo = path.join(dir, "fifo");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		await expect(exportToFile(weather, fifo, { overwrite: true })).rejects.toMatchObject({ code: "OUTPUT_INVALID", message: expect.stringMatching(/is not a regular file \(a device, a pipe or a socket\)/) });
		expect(fs.statSync(fifo).isFIFO()).toBe(true);
		expect(fs.readdirSync(dir)).toEqual(["fifo"]);
	});

	it("exportDataset writes Parquet unless `format` says otherwise, as --partition-by does", async () => {
		const dir = path.join(tempDir(), "ds");
		const summary = await exportDataset(observations, dir, { columns: ["time", "temperature"], index: true, partitionBy: "day" });
		expect(summary.files.length).toBeGreaterThan(1);
		for (const file of summary.files) {
			expect(file.path).toMatch(/\.parquet$/);
			expect(magic(path.join(dir, file.path))).toBe("PAR1");
		}
	});
});

describe("Zarr v3 extension members", () => {
	it("one that says \"must_understand\": false is ignored, as the v3 spec allows (others are refused: faults.test.ts)", async () => {
		const root = path.join(work, "optional-extension.zarr");
		await writeArray(root, "", { shape: [2], chunks: [2], values: BigInt64Array.of(1n, 2n), extraMetadata: { a_future_hint: { must_understand: false, note: "x" } } });
		const out = path.join(tempDir(), "ext.arrow");
		await exportToFile(root, out);
		expect(rawValues(out)).toEqual([1n, 2n]);
	});
});

describe("signal: an export aborted by its caller", () => {
	const weather = path.join(REPO, "data/weather-station.zarr");
	const observations = path.join(REPO, "data/observations.zarr");

	it("exportToFile rejects with Node's AbortError and leaves no file, temporary or not", async () => {
		const dir = tempDir();
		const controller = new AbortController();
		const onChunk = (chunk: number) => chunk === 1 && controller.abort(new Error("enough"));
		const error = await exportToFile(weather, path.join(dir, "t.arrow"), { signal: controller.signal, onChunk, concurrency: 1 }).then(() => undefined, (rejected: unknown) => rejected);
		expect(error).toMatchObject({ name: "AbortError", cause: { message: "enough" } });
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it("exportDataset rejects with the AbortError, commits nothing and leaves no data file", async () => {
		const dir = path.join(tempDir(), "ds");
		const controller = new AbortController();
		const onChunk = (chunk: number) => chunk === 2 && controller.abort();
		const error = await exportDataset(observations, dir, { columns: ["time", "temperature"], index: true, partitionBy: "day", signal: controller.signal, onChunk, concurrency: 1 }).then(() => undefined, (rejected: unknown) => rejected);
		expect(error).toMatchObject({ name: "AbortError" });
		const left = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).map(String) : [];
		expect(left.filter((name) => /\.(parquet|tmp)$|_SUCCESS/.test(name))).toEqual([]);
	});

	it("an export whose signal is aborted already reads nothing; a signal that is not an AbortSignal is refused", async () => {
		const written: Buffer[] = [];
		const sink = new Writable({ write: (chunk, _encoding, done) => (written.push(chunk), done()) });
		await expect(exportTable(weather, sink, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
		expect(written).toEqual([]);
		await expect(exportTable(weather, new PassThrough(), { signal: "stop" as never })).rejects.toMatchObject({ code: "USAGE", message: "invalid signal: an AbortSignal" });
	});
});
