/**
 * --start/--end: exact at both bounds for every time type read, and chunk pruning proven by counting the HTTP
 * requests of an export: only the chunks that overlap the range, plus the binary search's probes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC } from "apache-arrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { formatIsoTimestamp } from "../src/convert/iso8601.js";
import { exportSelection } from "../src/index.js";
import { FIXTURES, readRawInt64, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { startServer, type TestServer } from "./support/http-server.js";
import { runCliAsync } from "./support/run-cli-async.js";

const query = useDuckDB();
const work = tempDir("dt64-range-");
const HOUR_S = 3600n;
const T0 = BigInt(Date.UTC(2020, 0, 1) / 1000);
const CHUNKS = 1000;
/** 1.1M values: longer than a time column read whole first (WHOLE_CHECK_VALUES), so searched. */
const CHUNK = 1100;

/** A deterministic shuffle of 0..n-1 (an LCG-driven Fisher-Yates). */
function permutation(n: number): number[] {
	const order = Array.from({ length: n }, (_, i) => i);
	let state = 12345;
	for (let i = n - 1; i > 0; i--) {
		state = (state * 1103515245 + 12345) % 2 ** 31;
		const j = state % (i + 1);
		[order[i], order[j]] = [order[j], order[i]];
	}
	return order;
}

let server: TestServer;
beforeAll(async () => {
	// 125 years of hourly times (1.1M values) in 1,000 chunks, sorted and shuffled, each as a store's root array.
	const hours = BigInt64Array.from({ length: CHUNKS * CHUNK }, (_, i) => T0 + BigInt(i) * HOUR_S);
	const shuffled = BigInt64Array.from(permutation(hours.length), (i) => hours[i]);
	await writeArray(path.join(work, "sorted.zarr"), "", { shape: [hours.length], chunks: [CHUNK], values: hours });
	await writeArray(path.join(work, "shuffled.zarr"), "", { shape: [hours.length], chunks: [CHUNK], values: shuffled });
	// Sorted once NaT are left out: a NaT every 53 values, and a whole chunk of NaT (chunk 10, right after March 2021).
	const gaps = BigInt64Array.from(hours, (value, i) => (i % 53 === 0 || (i >= 11_000 && i < 12_100) ? -(2n ** 63n) : value));
	await writeArray(path.join(work, "sorted-nat.zarr"), "", { shape: [hours.length], chunks: [CHUNK], values: gaps });
	server = await startServer(work);
});
afterAll(() => server?.close());

/**
 * `steps` hourly times in chunks of `chunk` with a time coordinate's layout (`time`, and `v` = the row), the time of row
 * `stray` moved to 07:30; and the bounds 07:00 and 08:00, whose rows are 7 and `stray`.
 */
async function strayStore(name: string, steps: number, stray: number, chunk = 10): Promise<{ store: string; start: string; end: string }> {
	const store = path.join(work, name);
	const times = BigInt64Array.from({ length: steps }, (_, i) => T0 + BigInt(i) * HOUR_S);
	times[stray] = T0 + 7n * HOUR_S + 1800n;
	await writeArray(store, "time", { shape: [steps], chunks: [chunk], values: times, dimensionNames: ["time"] });
	await writeArray(store, "v", { shape: [steps], chunks: [chunk], values: Float64Array.from({ length: steps }, (_, i) => i), dataType: "float64", fillValue: 0, dimensionNames: ["time"] });
	return { store, start: formatIsoTimestamp((T0 + 7n * HOUR_S) * 1000n, "ms"), end: formatIsoTimestamp((T0 + 8n * HOUR_S) * 1000n, "ms") };
}

const chunkRequests = (store: string) => server.requests.filter((request) => request.path.startsWith(`/${store}/c/`));

describe("chunk pruning over HTTP", () => {
	it("a one-month range of a sorted 1.1M-value array, known sorted, fetches the overlapping chunks and O(log chunks) probes", async () => {
		const out = path.join(tempDir(), "march.parquet");
		server.requests.length = 0;
		const run = await runCliAsync([`${server.url}/sorted.zarr`, "--start", "2021-03-01", "--end", "2021-04-01", "--time-sorted", "--to", "parquet", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toBe("wrote 744 rows to " + out + "\n");
		const first = Number((BigInt(Date.UTC(2021, 2, 1) / 1000) - T0) / HOUR_S);
		const overlapping = Math.ceil((first + 744) / CHUNK) - Math.floor(first / CHUNK);
		const fetched = chunkRequests("sorted.zarr").length;
		expect(fetched).toBeLessThanOrEqual(overlapping + 2 * Math.ceil(Math.log2(CHUNKS)) + 2);
		expect(fetched).toBeGreaterThanOrEqual(overlapping);
		const rows = await query(`SELECT count(*), min(sorted)::VARCHAR, max(sorted)::VARCHAR FROM read_parquet('${out}')`);
		expect(rows[0].map(String)).toEqual(["744", "2021-03-01 00:00:00", "2021-03-31 23:00:00"]);
	});

	it("NaT (single values, whole chunks) leave the time sorted: still pruned, and left out", async () => {
		const out = path.join(tempDir(), "march.parquet");
		server.requests.length = 0;
		const run = await runCliAsync([`${server.url}/sorted-nat.zarr`, "--start", "2021-03-01", "--end", "2021-04-01", "--time-sorted", "--to", "parquet", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		const first = Number((BigInt(Date.UTC(2021, 2, 1) / 1000) - T0) / HOUR_S);
		const expected = Array.from({ length: 744 }, (_, k) => first + k).filter((i) => i % 53 !== 0).length;
		expect(run.stderr).toBe(`wrote ${expected} rows to ${out}\n`);
		const overlapping = Math.ceil((first + 744) / CHUNK) - Math.floor(first / CHUNK);
		expect(chunkRequests("sorted-nat.zarr").length).toBeLessThanOrEqual(overlapping + 2 * Math.ceil(Math.log2(CHUNKS)) + 2);
	});

	it("an unsorted array is read whole and filtered exactly, saying so once; not known sorted, its 1,000 requests are asked for first", async () => {
		const refused = await runCliAsync([`${server.url}/shuffled.zarr`, "--start", "2021-03-01", "--end", "2021-04-01", "--to", "parquet", "-o", path.join(tempDir(), "refused.parquet")]);
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/1000 requests to this store \(more than 256\): say whether it is known sorted with --time-sorted.*\[USAGE\]\n$/);
		const out = path.join(tempDir(), "march.parquet");
		server.requests.length = 0;
		const run = await runCliAsync([`${server.url}/shuffled.zarr`, "--start", "2021-03-01", "--end", "2021-04-01", "--no-time-sorted", "--to", "parquet", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr.match(/the time column is not sorted/g)).toHaveLength(1);
		expect(run.stderr).toMatch(/wrote 744 rows/);
		const rows = await query(`SELECT count(DISTINCT shuffled), min(shuffled)::VARCHAR, max(shuffled)::VARCHAR FROM read_parquet('${out}')`);
		expect(rows[0].map(String)).toEqual(["744", "2021-03-01 00:00:00", "2021-03-31 23:00:00"]);
	});
});

/** The raw int64 rows of an IPC export of `args`. */
function exported(args: string[]): (bigint | null)[] {
	const out = path.join(tempDir(), "out.arrow");
	const run = runCli([...args, "-o", out, "-q"]);
	expect(run.status, run.stderr).toBe(0);
	return readRawInt64(out);
}

describe("bounds are exact: the value equal to start is in, the one equal to end is out", () => {
	it("datetime64[ns], sorted (pruned) and not (filtered), with an offset bound converted to UTC", async () => {
		const start = BigInt(Date.UTC(2021, 5, 1) / 1000) * 1_000_000_000n + 123_456_789n;
		const end = start + 5_000n;
		const values = [start - 2n, start - 1n, start, start + 1n, end - 1n, end, end + 1n];
		const startIso = `${formatIsoTimestamp(start, "ns")}`;
		const endIso = `${formatIsoTimestamp(end - 7_200_000_000_000n, "ns")}-02:00`;
		const type = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
		for (const [name, order, chunk] of [["sorted", values, 2], ["unsorted", [values[5], -(2n ** 63n), ...values.slice(0, 5), values[6]], 3]] as const) {
			const store = path.join(work, `bounds-${name}.zarr`);
			await writeArray(store, "", { shape: [order.length], chunks: [chunk], values: BigInt64Array.from(order), dataType: type });
			const rows = exported([store, "--start", startIso, "--end", endIso]);
			expect(rows, name).toEqual([start, start + 1n, end - 1n]);
		}
	});

	it("a v2 >M8[10us] array (2-D, F order, a NaT) written by zarr-python", () => {
		const store = path.join("test/fixtures/v2", "be-10us-zlib-F.zarr");
		const { values } = JSON.parse(fs.readFileSync("test/fixtures/v2/expected.json", "utf8")).arrays["be-10us-zlib-F.zarr"] as { values: (string | null)[] };
		const us = values.map((value) => (value === null ? null : BigInt(value)));
		const rows = exported([store, "--start", formatIsoTimestamp(us[1]!, "us"), "--end", formatIsoTimestamp(us[3]!, "us")]);
		expect(rows).toEqual([us[1], us[2]]);
	});

	it.skipIf(!fs.existsSync(FIXTURES))("calendar units: datetime64[Y] and [D] written by zarr-python 3", () => {
		expect(exported([path.join(FIXTURES, "datetime64[Y].zarr"), "--start", "2005"])).toEqual([35n * 0n + BigInt(Date.UTC(2005, 0, 1) / 1000)].flatMap((v) => [v, v, v]));
		expect(exported([path.join(FIXTURES, "datetime64[Y].zarr"), "--end", "2005"])).toEqual([0n]);
		expect(exported([path.join(FIXTURES, "datetime64[D].zarr"), "--start", "2005-02-03", "--end", "2005-02-03T00:00:00.000000001"])).toEqual([12817n * 86400n, 12817n * 86400n, 12817n * 86400n]);
		expect(exported([path.join(FIXTURES, "datetime64[D].zarr"), "--start", "2005-02-03T00:00:00.000000001"])).toEqual([]);
	});
});

describe("a time coordinate of an xarray-like dataset", () => {
	it("selects the rows of an N-d variable over its 1-D time coordinate (an index column)", async () => {
		const store = path.join(work, "dataset.zarr");
		const steps = 50;
		const times = BigInt64Array.from({ length: steps }, (_, i) => T0 + BigInt(i) * HOUR_S);
		await writeArray(store, "time", { shape: [steps], chunks: [8], values: times, dimensionNames: ["time"] });
		const temp = Float64Array.from({ length: steps * 6 }, (_, i) => i);
		await writeArray(store, "temp", { shape: [steps, 2, 3], chunks: [5, 2, 2], values: temp, dataType: "float64", fillValue: 0, dimensionNames: ["time", "y", "x"] });
		const out = path.join(tempDir(), "range.parquet");
		const start = formatIsoTimestamp((T0 + 12n * HOUR_S) * 1000n, "ms");
		const end = formatIsoTimestamp((T0 + 31n * HOUR_S) * 1000n, "ms");
		const run = runCli([store, "--columns", "temp", "--index", "--start", start, "--end", end, "--to", "parquet", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		const rows = await query(`SELECT count(*), min(temp), max(temp), count(DISTINCT time) FROM read_parquet('${out}')`);
		expect(rows[0].map(Number)).toEqual([19 * 6, 12 * 6, 31 * 6 - 1, 19]);
		const refused = runCli([store, "--columns", "temp", "--start", start, "-o", path.join(tempDir(), "x.parquet")]);
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/no time column .*: --index\) \[USAGE\]$/m);
		const positions = runCli([store, "--columns", "temp", "--index", "positions", "--start", start, "-o", path.join(tempDir(), "x.parquet")]);
		expect(positions.status).toBe(2);
		expect(positions.stderr).toMatch(/no time column .* \(time, y, x are position indexes, which hold no time: .*--index without positions\) \[USAGE\]$/m);
		// Chunk order: the rows come box by box (the temp chunks split y and x), each box starting over in time.
		const byChunk = path.join(tempDir(), "range-chunk.parquet");
		const chunked = runCli([store, "--columns", "temp", "--index", "--order", "chunk", "--start", start, "--end", end, "--to", "parquet", "-o", byChunk]);
		expect(chunked.status, chunked.stderr).toBe(0);
		const same = await query(`SELECT count(*) FROM ((SELECT * FROM read_parquet('${out}') EXCEPT ALL SELECT * FROM read_parquet('${byChunk}')) UNION ALL (SELECT * FROM read_parquet('${byChunk}') EXCEPT ALL SELECT * FROM read_parquet('${out}')))`);
		expect(Number(same[0][0])).toBe(0);
		const first = await query(`SELECT count(*) FROM read_parquet('${byChunk}')`);
		expect(Number(first[0][0])).toBe(19 * 6);
	});

	it("a small time coordinate (WHOLE_CHECK_VALUES values at most) is checked whole first: a time out of order in a chunk the search would skip is found, and every row filtered", async () => {
		// Row 135 (in chunk 13, which a search for 07:00-08:00 never reads) is at 07:30.
		const { store, start, end } = await strayStore("stray.zarr", 200, 135);
		for (const order of ["c", "chunk"]) {
			const out = path.join(tempDir(), `stray-${order}.parquet`);
			const run = runCli([store, "--columns", "v", "--index", "--order", order, "--start", start, "--end", end, "--to", "parquet", "-o", out]);
			expect(run.status, run.stderr).toBe(0);
			expect(run.stderr).toMatch(/the time column is not sorted \(block 13 of the time array is not sorted\): every row was read and filtered/);
			const rows = await query(`SELECT v FROM read_parquet('${out}') ORDER BY v`);
			expect(rows.map((row) => Number(row[0]))).toEqual([7, 135]);
		}
	});

	it("a range ending in the chunk after a chunk of NaT only (a sparse store's missing chunk) keeps that chunk's rows", async () => {
		const store = path.join(work, "gap.zarr");
		const steps = 1000;
		// Chunk 40 of 100 is missing: its 10 times read as NaT (the fill value).
		const times = BigInt64Array.from({ length: steps }, (_, i) => T0 + BigInt(i) * HOUR_S);
		await writeArray(store, "", { shape: [steps], chunks: [10], values: times, fillValue: "NaT", omitChunks: (coords: number[]) => coords[0] === 40 });
		const bound = (hour: number) => formatIsoTimestamp((T0 + BigInt(hour) * HOUR_S) * 1000n, "ms");
		for (const [start, end, rows] of [[412, 416, 4], [395, 415, 5 + 5], [405, 409, 0]] as const) {
			const out = path.join(tempDir(), `gap-${start}.arrow`);
			const run = runCli([store, "--start", bound(start), "--end", bound(end), "-q", "-o", out]);
			expect(run.status, run.stderr).toBe(0);
			expect(readRawInt64(out), `[${start}, ${end})`).toHaveLength(rows);
		}
	});

	it("--no-range-search (rangeSearch: false) reads every row of a long time column and filters it: a time out of order in a chunk the search skips is kept", async () => {
		// 1.1M values: past WHOLE_CHECK_VALUES; row 555,555 (chunk 55, which a search for 07:00-08:00 never reads) is at
		// 07:30.
		const steps = 1_100_000;
		const { store, start, end } = await strayStore("long-stray.zarr", steps, 555_555, 10_000);
		const rowsOf = async (out: string) => (await query(`SELECT v FROM read_parquet('${out}') ORDER BY v`)).map((row) => Number(row[0]));
		// Said sorted (--time-sorted), the search's limit, as the README says: the stray row is not seen.
		const searched = path.join(tempDir(), "searched.parquet");
		expect(runCli([store, "--columns", "v", "--index", "--start", start, "--end", end, "--time-sorted", "-q", "-o", searched]).status).toBe(0);
		expect(await rowsOf(searched)).toEqual([7]);
		// Not said sorted, the column is checked whole first: found unsorted, every row filtered.
		const checked = path.join(tempDir(), "checked.parquet");
		const run = runCli([store, "--columns", "v", "--index", "--start", start, "--end", end, "-o", checked]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/the time column is not sorted/);
		expect(await rowsOf(checked)).toEqual([7, 555_555]);
		// Without the search: xarray's rows (ds.where over every time), in both orders, and no notice (nothing was found unsorted).
		for (const order of ["c", "chunk"]) {
			const out = path.join(tempDir(), `scanned-${order}.parquet`);
			const run = runCli([store, "--columns", "v", "--index", "--order", order, "--start", start, "--end", end, "--no-range-search", "-o", out]);
			expect([run.status, run.stderr]).toEqual([0, `wrote 2 rows to ${out}\n`]);
			expect(await rowsOf(out)).toEqual([7, 555_555]);
		}
		// The library's spelling, to a stream.
		const chunks: Buffer[] = [];
		const sink = new Writable({ write: (chunk: Buffer, _encoding, callback) => void (chunks.push(chunk), callback()) });
		const summary = await exportSelection(store, sink, { columns: ["v"], index: true, start, end, rangeSearch: false, format: "arrow-stream" });
		expect(summary.selection).toMatchObject({ sorted: false, probes: 0, rows: { start: 0, end: steps } });
		expect(summary.selection.unsortedReason).toBeUndefined();
		expect(Array.from(tableFromIPC(Buffer.concat(chunks)).getChild("v")!.toArray())).toEqual([7, 555_555]);
		await expect(exportSelection(store, new Writable(), { start, rangeSearch: "no" as unknown as boolean })).rejects.toMatchObject({ code: "USAGE", option: "rangeSearch" });
		// Without a range it does nothing, and says so.
		const plain = runCli([store, "--columns", "v", "--no-range-search", "-q", "-o", path.join(tempDir(), "plain.arrow")]);
		expect([plain.status, plain.stderr]).toEqual([0, "dt64-export: warning: --no-range-search does nothing here: it applies with --start or --end\n"]);
	});

	it("known sorted (--time-sorted), refuses, in C order and in chunk order, a time coordinate unsorted in a block the search skipped", async () => {
		const store = path.join(work, "hidden-unsorted.zarr");
		// Said sorted: searched, only the blocks probed checked.
		const steps = 1_100_000;
		const times = BigInt64Array.from({ length: steps }, (_, i) => T0 + BigInt(i) * HOUR_S);
		// Two times swapped inside block 1 (rows 1024-2047): between the blocks the search probes for these bounds.
		[times[1333], times[1334]] = [times[1334], times[1333]];
		await writeArray(store, "time", { shape: [steps], chunks: [1024], values: times, dimensionNames: ["time"] });
		const temp = Float64Array.from({ length: steps * 2 }, (_, i) => i);
		await writeArray(store, "temp", { shape: [steps, 1, 2], chunks: [1024, 1, 1], values: temp, dataType: "float64", fillValue: 0, dimensionNames: ["time", "y", "x"] });
		const start = formatIsoTimestamp((T0 + 400n * HOUR_S) * 1000n, "ms");
		const end = formatIsoTimestamp((T0 + 3600n * HOUR_S) * 1000n, "ms");
		for (const order of ["c", "chunk"]) {
			const out = path.join(tempDir(), `hidden-${order}.arrow`);
			const run = runCli([store, "--columns", "temp", "--index", "--order", order, "--start", start, "--end", end, "--time-sorted", "-o", out]);
			expect(run.status, run.stderr).toBe(1);
			expect(run.stderr.trim().split("\n")).toHaveLength(1);
			expect(run.stderr).toMatch(/the time column .*is not sorted after all .*rows in range may lie in chunks it skipped; without --time-sorted the time column is checked whole before the search, and --no-range-search reads and filters every row, whatever the order \[TIME_NOT_SORTED\]$/m);
			// The flag the message names exports the range, exactly.
			const filtered = runCli([store, "--columns", "temp", "--index", "--order", order, "--start", start, "--end", end, "--no-range-search", "-o", out]);
			expect(filtered.status, filtered.stderr).toBe(0);
			fs.rmSync(out);
			if (order === "chunk") expect(run.stderr).toMatch(/block 1 of the time array is not sorted/);
			expect(fs.existsSync(out)).toBe(false);
		}
		// Sorted again, both orders export the same rows.
		[times[1333], times[1334]] = [times[1334], times[1333]];
		await writeArray(store, "time", { shape: [steps], chunks: [1024], values: times, dimensionNames: ["time"] });
		for (const order of ["c", "chunk"]) {
			const run = runCli([store, "--columns", "temp", "--index", "--order", order, "--start", start, "--end", end, "-o", path.join(tempDir(), `sorted-${order}.arrow`)]);
			expect(run.status, run.stderr).toBe(0);
			expect(run.stderr).toMatch(/wrote 6,400 rows/);
		}
	});

});

