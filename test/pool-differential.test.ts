/**
 * The CLI exports one array through a BufferPool shared by its folder store, chunk decoders, gzip/zlib inflaters
 * and output file; a buffer handed back while a view of it is still to be written would corrupt the output
 * silently. Each case exports one store with the CLI (pooled) and with the library without a pool, asks for the
 * same bytes, and checks both against values computed here, so that they cannot be wrong together. Every value is
 * unique (chunk index and position), so a stale or reused buffer shows as wrong values.
 *
 * A use after `release` only corrupts when another chunk reuses the buffer in between, which on a fast disk is a
 * race rarely lost. So each case also runs the CLI on a slow disk (test/support/slow-writes.mjs: writes start late,
 * so a buffer handed back before its write is done is refilled first), and the library through a pool that spoils
 * every buffer the moment it comes back (PoisoningPool), which catches such a use whatever the timing.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { pipeline } from "node:stream/promises";
import { tableFromIPC, type Table } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import type { OutputFormat } from "../src/export-plan.js";
import { openTimeArray } from "../src/open-array.js";
import { tableOfTimeArray } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";
import type { BufferPool } from "../src/memory/buffer-pool.js";
import { runCliAsync } from "./support/run-cli-async.js";

// The decode threads, whose buffers go to a thread and back, whatever the size of the stores here (small arrays
// otherwise decode on the calling thread). The CLI runs inherit it.
process.env.DT64_DECODE_THREADS ??= "2";

const NAT = -(2n ** 63n);
type Codec = { name: string; configuration?: Record<string, unknown> };
const LE = { name: "bytes", configuration: { endian: "little" } };
const BE = { name: "bytes", configuration: { endian: "big" } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const ZLIB = { name: "zlib", configuration: { level: 1 } };
const ZSTD = { name: "zstd", configuration: { level: 0, checksum: false } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const CRC32C: Codec = { name: "crc32c" };
const transpose = (...order: number[]): Codec => ({ name: "transpose", configuration: { order } });
const sharding = (chunkShape: number[], codecs: Codec[], location: "end" | "start"): Codec => ({
	name: "sharding_indexed",
	configuration: { chunk_shape: chunkShape, codecs, index_codecs: [LE, CRC32C], index_location: location },
});

const work = tempDir("dt64-pool-diff-");
let counter = 0;

type Unit = "s" | "ns" | "D" | "us" | "ps";

interface Case {
	name: string;
	shape: number[];
	/** The chunk shape; for a sharded array the shard shape. */
	chunks: number[];
	/** For a sharded array: the inner chunk shape (values are made and blanked per inner chunk). */
	inner?: number[];
	codecs: Codec[];
	unit: Unit;
	scale?: number;
	/** Fill value: NaT (default) or an int64. */
	fill?: bigint;
	/** Chunks (inner chunks when sharded), by coordinates, made all fill: not written, read as the fill value. */
	blank?: (coords: number[]) => boolean;
	/**
	 * The chunks (by index in C order of the grid) that hold NaT, ~1% of their values; by default every chunk. The
	 * others are NaT-free, which the decode threads report and the conversion trusts (convert/nat-positions.ts).
	 */
	natIn?: (chunkIndex: number) => boolean;
	/** undefined: the default of both sides. */
	concurrency?: number;
	allowTruncate?: boolean;
	formats: OutputFormat[];
	/**
	 * false: no buffer comes back to the pool in this layout (the values are a part of the chunk file's buffer,
	 * crc32c stripped; N-d chunks are copied into bands and their buffers left to the collector), so no reuse is
	 * asserted. The export is compared all the same.
	 */
	reuses?: false;
}

/** The value at each position of the C-order array: chunk index * 1e9 + position, shifted below 0 for the first chunks, ~1% NaT. */
function makeValues(c: Case): BigInt64Array {
	const valueChunks = c.inner ?? c.chunks;
	const grid = c.shape.map((n, d) => Math.ceil(n / valueChunks[d]));
	const length = c.shape.reduce((a, b) => a * b, 1);
	const values = new BigInt64Array(length);
	const coords = new Array<number>(c.shape.length).fill(0);
	for (let i = 0; i < length; i++) {
		const chunkCoords = coords.map((x, d) => Math.floor(x / valueChunks[d]));
		let chunkIndex = 0;
		for (let d = 0; d < grid.length; d++) chunkIndex = chunkIndex * grid[d] + chunkCoords[d];
		let value: bigint;
		if (c.blank?.(chunkCoords)) value = c.fill ?? NAT;
		else if ((c.natIn?.(chunkIndex) ?? true) && (i * 7919 + chunkIndex) % 101 === 0) value = NAT;
		else {
			value = BigInt(chunkIndex) * 1_000_000_000n + BigInt(i) - 3_000_000_000n;
			// Picoseconds: a sub-nanosecond part, floored away (--allow-truncate).
			if (c.unit === "ps") value = value * 1000n + BigInt((i * 37) % 1000);
		}
		values[i] = value;
		for (let d = coords.length - 1; d >= 0; d--) {
			if (++coords[d] < c.shape[d]) break;
			coords[d] = 0;
		}
	}
	return values;
}

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** The Arrow value of a count, by `--unit auto` (D -> s, 10us -> us, ps -> ns), NaT -> null. */
function expectedValue(c: Case, count: bigint, parquet: boolean): bigint | null {
	if (count === NAT) return null;
	const scale = BigInt(c.scale ?? 1);
	let value: bigint;
	if (c.unit === "D") value = count * scale * 86_400n;
	else if (c.unit === "ps") value = floorDiv(count * scale, 1000n);
	else value = count * scale;
	// Parquet has no seconds: second data is written as milliseconds.
	const seconds = c.unit === "s" || c.unit === "D";
	return parquet && seconds ? value * 1000n : value;
}

/** The raw int64 of each row of the first column, null for a null. */
function rawValues(table: Table): (bigint | null)[] {
	const out: (bigint | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(0)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? (data.values as BigInt64Array)[i] : null);
	}
	return out;
}

function decode(format: OutputFormat, bytes: Buffer): (bigint | null)[] {
	return rawValues(tableFromIPC(format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes));
}

/** Fails with the first differing byte, not a dump of two files. `reference`: the library's, without a pool. */
function expectSameBytes(actual: Buffer, reference: Buffer, what: string): void {
	if (actual.equals(reference)) return;
	let at = 0;
	while (at < Math.min(actual.length, reference.length) && actual[at] === reference[at]) at++;
	expect.fail(`${what}: ${actual.length} bytes, ${reference.length} without a pool; first difference at byte ${at} (${actual[at]}, ${reference[at]} without a pool)`);
}

function expectValues(actual: (bigint | null)[], expected: (bigint | null)[], what: string): void {
	expect(actual.length, `${what}: rows`).toBe(expected.length);
	const at = actual.findIndex((value, i) => value !== expected[i]);
	if (at >= 0) expect.fail(`${what}: row ${at} is ${actual[at]}, expected ${expected[at]}`);
}

/** 1-D: 20 full chunks and a ragged one, 1.6 MB of values: more than the output file buffers before it waits (1 MiB). */
const d1 = (name: string, codecs: Codec[], rest: Partial<Case> = {}): Case => ({
	name,
	shape: [205_000],
	chunks: [10_000],
	codecs,
	unit: "s",
	formats: ["arrow"],
	...rest,
});

const CASES: Case[] = [
	d1("1-D bytes, s passed through", [LE], { concurrency: 4, formats: ["arrow", "arrow-stream", "parquet"] }),
	d1("1-D bytes big-endian", [BE]),
	d1("1-D bytes + crc32c, ns passed through", [LE, CRC32C], { unit: "ns", concurrency: 1, reuses: false }),
	d1("1-D gzip", [LE, GZIP], { concurrency: 4, formats: ["arrow", "arrow-stream"] }),
	d1("1-D zlib, 10us -> us in place", [LE, ZLIB], { unit: "us", scale: 10, concurrency: 1 }),
	d1("1-D zstd", [LE, ZSTD], { shape: [180_000], chunks: [12_000] }),
	d1("1-D blosc, ns", [LE, BLOSC], { unit: "ns", concurrency: 4 }),
	// NaT-free chunks beside chunks with NaT, in the pool's reused buffers: what a decode thread said of one chunk
	// must never be taken for another's.
	d1("1-D zstd, NaT in every third chunk, ns passed through", [LE, ZSTD], { unit: "ns", natIn: (k) => k % 3 === 2, concurrency: 2 }),
	// Swapped into a copy, so no buffer comes back; the copy keeps what the thread said (it checked both orders).
	d1("1-D zstd big-endian, NaT in every other chunk", [BE, ZSTD], { natIn: (k) => k % 2 === 1, concurrency: 4, reuses: false }),
	d1("1-D blosc, NaT in the first and last chunks only", [LE, BLOSC], { natIn: (k) => k === 0 || k === 20, concurrency: 1 }),
	d1("1-D zstd, NaT-free, D -> s in place", [LE, ZSTD], { unit: "D", natIn: () => false }),
	d1("sharded (index at the end), zstd inner chunks, NaT in some", [sharding([10_000], [LE, ZSTD], "end")], {
		shape: [200_000],
		chunks: [40_000],
		inner: [10_000],
		natIn: (k) => k % 4 === 1,
		concurrency: 2,
	}),
	d1("1-D gzip + crc32c, D -> s in place", [LE, GZIP, CRC32C], { unit: "D", formats: ["arrow", "parquet"] }),
	d1("1-D zlib, 10us -> us, larger chunks", [LE, ZLIB], { unit: "us", scale: 10, concurrency: 4, shape: [200_000], chunks: [16_384] }),
	d1("1-D gzip, ps -> ns (floored) in place", [LE, GZIP], { unit: "ps", allowTruncate: true, concurrency: 4, formats: ["arrow", "arrow-stream"] }),
	d1("1-D gzip, missing chunks, fill NaT", [LE, GZIP], { blank: ([c]) => c % 3 === 1, concurrency: 4 }),
	d1("1-D bytes, missing chunks, int64 fill, D -> s", [LE], { unit: "D", fill: 123_456_789n, blank: ([c]) => c % 4 === 2, concurrency: 1 }),
	d1("1-D zlib, missing chunks, int64 fill, passed through", [LE, ZLIB], { fill: -42n, blank: ([c]) => c === 0 || c === 7 }),
	d1("sharded (index at the end), gzip inner chunks", [sharding([10_000], [LE, GZIP], "end")], {
		shape: [195_000],
		chunks: [40_000],
		inner: [10_000],
		blank: ([c]) => c === 5,
		concurrency: 4,
	}),
	d1("sharded (index at the start), gzip inner chunks, 10us -> us", [sharding([10_000], [LE, GZIP], "start")], {
		shape: [200_000],
		chunks: [40_000],
		inner: [10_000],
		unit: "us",
		scale: 10,
		concurrency: 1,
	}),
	d1("sharded (index at the end), bytes inner chunks", [sharding([10_000], [LE], "end")], {
		shape: [180_000],
		chunks: [30_000],
		inner: [10_000],
		blank: ([c]) => c === 4,
		formats: ["arrow", "parquet"],
	}),
	d1("sharded (index at the start), bytes inner chunks, D -> s", [sharding([10_000], [LE], "start")], {
		shape: [200_000],
		chunks: [50_000],
		inner: [10_000],
		unit: "D",
		concurrency: 4,
	}),
	{ name: "2-D, whole rows per chunk, gzip", shape: [500, 400], chunks: [48, 400], codecs: [LE, GZIP], unit: "s", concurrency: 4, formats: ["arrow", "arrow-stream"] },
	{ name: "2-D, ragged edge chunks, bytes", shape: [450, 450], chunks: [100, 128], codecs: [LE], unit: "ns", concurrency: 4, formats: ["arrow"], reuses: false },
	{ name: "2-D, ragged, transpose, zlib, D -> s", shape: [450, 450], chunks: [100, 128], codecs: [transpose(1, 0), LE, ZLIB], unit: "D", concurrency: 1, formats: ["arrow"] },
	{ name: "2-D, ragged, transpose, bytes, missing chunks", shape: [460, 300], chunks: [100, 128], codecs: [transpose(1, 0), LE], unit: "s", blank: ([r, c]) => (r + c) % 3 === 0, formats: ["arrow"], reuses: false },
	{ name: "3-D, ragged, zstd", shape: [50, 60, 70], chunks: [16, 25, 32], codecs: [LE, ZSTD], unit: "s", formats: ["arrow"] },
	{ name: "3-D, ragged, transpose, gzip, 10us -> us", shape: [50, 60, 70], chunks: [16, 25, 32], codecs: [transpose(2, 0, 1), LE, GZIP], unit: "us", scale: 10, concurrency: 4, formats: ["arrow", "arrow-stream"] },
	{
		name: "2-D sharded (index at the end), transpose + gzip inner chunks",
		shape: [600, 240],
		chunks: [200, 120],
		inner: [100, 120],
		codecs: [sharding([100, 120], [transpose(1, 0), LE, GZIP], "end")],
		unit: "s",
		concurrency: 4,
		blank: ([r, c]) => r === 1 && c === 1,
		formats: ["arrow"],
		reuses: false,
	},
];


const EXTENSIONS: Record<OutputFormat, string> = { arrow: "arrow", "arrow-stream": "arrows", parquet: "parquet" };

async function exportWithLibrary(store: string, out: string, c: Case, format: OutputFormat, bufferPool?: BufferPool): Promise<void> {
	const array = await openTimeArray(store, { bufferPool });
	const { reader, batcher, writer } = createTableExportStages(tableOfTimeArray(array), { format, concurrency: c.concurrency, allowTruncate: c.allowTruncate });
	await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool }));
}

/** Preloaded by the CLI for `slowDisk` (see the module). */
const SLOW_WRITES = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "support/slow-writes.mjs")).href;

async function exportWithCli(store: string, out: string, c: Case, format: OutputFormat, slowDisk = false): Promise<void> {
	const args = [store, "-o", out, "-q", "--to", format];
	if (c.concurrency !== undefined) args.push("--concurrency", String(c.concurrency));
	if (c.allowTruncate) args.push("--allow-truncate");
	const env = slowDisk ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${SLOW_WRITES}`.trim() } : undefined;
	const result = await runCliAsync(args, { env });
	expect(result.stderr).toBe("");
	expect(result.status).toBe(0);
}

describe.concurrent("CLI exports through the buffer pool are byte for byte the library's without one", () => {
	for (const c of CASES) {
		it(`${c.name}${c.concurrency === undefined ? "" : `, --concurrency ${c.concurrency}`}: ${c.formats.join(", ")}`, async () => {
			const values = makeValues(c);
			const store = path.join(work, `${counter++}.zarr`);
			await writeArray(store, "", {
				shape: c.shape,
				chunks: c.chunks,
				values,
				codecs: c.codecs,
				dataType: { name: "numpy.datetime64", configuration: { unit: c.unit, scale_factor: c.scale ?? 1 } },
				fillValue: c.fill ?? NAT,
			});
			if (c.blank !== undefined && c.inner === undefined) {
				// The blank chunks are not in the store: read as the fill value, not decoded.
				const files = fs.readdirSync(path.join(store, "c"), { recursive: true }).filter((f) => fs.statSync(path.join(store, "c", String(f))).isFile());
				const total = c.shape.reduce((n, s, d) => n * Math.ceil(s / c.chunks[d]), 1);
				expect(files.length).toBeLessThan(total);
			}
			for (const format of c.formats) {
				const viaCli = path.join(work, `${counter++}.${EXTENSIONS[format]}`);
				const plain = path.join(work, `${counter++}.${EXTENSIONS[format]}`);
				await Promise.all([exportWithCli(store, viaCli, c, format), exportWithLibrary(store, plain, c, format)]);
				const cliBytes = fs.readFileSync(viaCli);
				const plainBytes = fs.readFileSync(plain);
				const expected = Array.from(values, (count) => expectedValue(c, count, format === "parquet"));
				// Values first: on a difference they say which row went wrong, on which side.
				expectValues(decode(format, cliBytes), expected, `${format} via the CLI`);
				expectValues(decode(format, plainBytes), expected, `${format} via the library`);
				expectSameBytes(cliBytes, plainBytes, `${format} via the CLI`);
				if (format === c.formats[0]) {
					// Again on a slow disk: a buffer handed back before its write is done is refilled before it is written.
					const slow = path.join(work, `${counter++}.${EXTENSIONS[format]}`);
					await exportWithCli(store, slow, c, format, true);
					const slowBytes = fs.readFileSync(slow);
					expectValues(decode(format, slowBytes), expected, `${format} via the CLI on a slow disk`);
					expectSameBytes(slowBytes, plainBytes, `${format} via the CLI on a slow disk`);
				}
				// The same export in this process, through a pool that spoils every buffer handed back: a buffer still in
				// use when it comes back shows, whatever the timing. Its reuse count says the layout does reuse buffers.
				const pool = new PoisoningPool();
				const pooled = path.join(work, `${counter++}.${EXTENSIONS[format]}`);
				await exportWithLibrary(store, pooled, c, format, pool);
				expectSameBytes(fs.readFileSync(pooled), plainBytes, `${format} through a poisoning pool in process`);
				if (c.reuses !== false) expect(pool.reused, "buffers reused").toBeGreaterThan(0);
			}
		});
	}
});
