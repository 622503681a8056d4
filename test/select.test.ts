import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatIsoTimestamp } from "../src/convert/iso8601.js";
import { hivePartitionOf } from "../src/output/hive-partition.js";
import { OpenPartitions } from "../src/output/open-partitions.js";
import { partFileName, isFileOfPart, manifestPath } from "../src/output/dataset-files.js";
import { parsePart, partFromEnvironment, partRows } from "../src/select/part.js";
import { parseTimeBound, parseTimeBounds } from "../src/select/time-bounds.js";
import { boundsInUnit } from "../src/select/time-filter.js";
import { datetime64Instants } from "../src/select/time-instants.js";
import { KEPT_BLOCKS_MAX, searchTimeRange, WHOLE_CHECK_VALUES, type TimeBlocks } from "../src/select/time-search.js";

const AS = 10n ** 18n;
const NAT = -(2n ** 63n);

describe("time bounds", () => {
	it("parse to exact instants, offsets converted to UTC", () => {
		expect(parseTimeBound("1970")).toBe(0n);
		expect(parseTimeBound("1970-01-02")).toBe(86_400n * AS);
		expect(parseTimeBound("2021-03-04T05:06:07")).toBe(BigInt(Date.UTC(2021, 2, 4, 5, 6, 7) / 1000) * AS);
		expect(parseTimeBound("2021-03-04 05:06:07.000000001")).toBe(BigInt(Date.UTC(2021, 2, 4, 5, 6, 7) / 1000) * AS + 10n ** 9n);
		expect(parseTimeBound("2021-03-04T05:06:07.123456789012345678Z")).toBe(BigInt(Date.UTC(2021, 2, 4, 5, 6, 7) / 1000) * AS + 123456789012345678n);
		expect(parseTimeBound("2021-03-04T05:00+02:00")).toBe(parseTimeBound("2021-03-04T03:00"));
		expect(parseTimeBound("2021-03-04T05:00-0130")).toBe(parseTimeBound("2021-03-04T06:30Z"));
		expect(parseTimeBound("1969-12-31T23:59:59")).toBe(-AS);
		expect(parseTimeBound("-0001-01-01")).toBe(BigInt(-719_528 - 365) * 86_400n * AS);
		expect(parseTimeBound("2000-02-29")).toBe(BigInt(Date.UTC(2000, 1, 29) / 1000) * AS);
	});

	it("refuse what is not a valid date, and an empty range", () => {
		for (const text of ["", "21-01-01", "2021-13", "2021-02-29", "2021-01-01T24:00", "2021-01-01T00:60", "yesterday", "2021-01-01T00:00+25:00"]) {
			expect(() => parseTimeBound(text), text).toThrow(expect.objectContaining({ kind: "usage" }));
		}
		// The basic format's 20220102 (pandas: 2022-01-02) is refused rather than read as the year 20220102; a signed
		// expanded year is read.
		expect(() => parseTimeBound("20220102", "end")).toThrow(
			'end "20220102": a year of 8 digits; write dates with dashes (2022-01-02: the basic format is not read), or a year past 9999 with its sign (+20220102)',
		);
		expect(() => parseTimeBound("202201")).toThrow(/a year of 6 digits/);
		expect(parseTimeBound("+10000") > parseTimeBound("9999-12-31T23:59:59")).toBe(true);
		expect(() => parseTimeBounds("2021-01-02", "2021-01-01")).toThrow(expect.objectContaining({ kind: "usage" }));
		expect(() => parseTimeBounds("2021-01-01", "2021-01-01")).toThrow(expect.objectContaining({ kind: "usage" }));
	});

	it("compare with datetime64 counts of every unit, calendar units included", () => {
		expect(datetime64Instants({ kind: "datetime64", unit: "D", scaleFactor: 1 })(1n)).toBe(86_400n * AS);
		expect(datetime64Instants({ kind: "datetime64", unit: "ms", scaleFactor: 10 })(3n)).toBe(30n * 10n ** 15n);
		expect(datetime64Instants({ kind: "datetime64", unit: "M", scaleFactor: 1 })(14n)).toBe(parseTimeBound("1971-03"));
		expect(datetime64Instants({ kind: "datetime64", unit: "Y", scaleFactor: 2 })(-1n)).toBe(parseTimeBound("1968"));
		expect(datetime64Instants({ kind: "datetime64", unit: "ns", scaleFactor: 1 })(NAT)).toBeNull();
		expect(() => datetime64Instants({ kind: "timedelta64", unit: "ns", scaleFactor: 1 })).toThrow();
	});

	it("in an output unit: exact, and refused with --allow-truncate when finer than the unit", () => {
		const bounds = { start: parseTimeBound("1970-01-01T00:00:01.5"), end: parseTimeBound("1970-01-01T00:00:03") };
		expect(boundsInUnit(bounds, "s", false)).toEqual({ low: 2n, high: 3n });
		expect(boundsInUnit(bounds, "ms", true)).toEqual({ low: 1500n, high: 3000n });
		expect(() => boundsInUnit(bounds, "s", true)).toThrow(expect.objectContaining({ kind: "usage" }));
	});
});

/** A 1-D time array of `values` in blocks of `blockRows`, counting the blocks read. */
function blocksOf(values: (bigint | null)[], blockRows: number, rowSize = 1): TimeBlocks & { reads: number[] } {
	const reads: number[] = [];
	return {
		rows: values.length / rowSize,
		blockRows,
		rowSize,
		reads,
		async read(block) {
			reads.push(block);
			const slice = values.slice(block * blockRows * rowSize, (block + 1) * blockRows * rowSize);
			return { length: slice.length, instantAt: (i) => slice[i] };
		},
	};
}

/**
 * A 1-D time array of `rows` values (row i holds `valueAt(i)`) in blocks of `blockRows`, counting the blocks read.
 * Longer than WHOLE_CHECK_VALUES, it is searched rather than read whole first.
 */
function longBlocksOf(rows: number, blockRows: number, valueAt: (i: number) => bigint | null): TimeBlocks & { reads: number[] } {
	const reads: number[] = [];
	return {
		rows,
		blockRows,
		rowSize: 1,
		reads,
		async read(block) {
			reads.push(block);
			const first = block * blockRows;
			return { length: Math.min(blockRows, rows - first), instantAt: (i) => valueAt(first + i) };
		},
	};
}

/** 1,000 blocks of 1,100 values: just past what is read whole first. */
const LONG_ROWS = 1_100_000;
const LONG_BLOCK = 1_100;

describe("time range search", () => {
	it("finds the exact rows of a range over 1,000 sorted blocks in O(log blocks) reads, known sorted", async () => {
		expect(LONG_ROWS).toBeGreaterThan(WHOLE_CHECK_VALUES);
		const blocks = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(i * 10));
		const result = await searchTimeRange(blocks, { start: 5_012_345n, end: 7_000_000n }, "trust");
		expect(result).toMatchObject({ sorted: true, rows: { start: 501_235, end: 700_000 } });
		// Times that grow linearly are found by interpolation: a few probes, not log2(1,000) for each bound.
		expect(result.probes).toBeLessThanOrEqual(8);
		expect(blocks.reads.length - new Set(blocks.reads).size).toBeLessThanOrEqual(2);
	});

	it("hands back each block it probed once done with it, never one it still reads, and none of a whole read it keeps", async () => {
		const released: number[] = [];
		const done = new Set<object>();
		/** Blocks whose reads after their release throw: a block handed back is a buffer another read may fill. */
		const releasing = (inner: TimeBlocks & { reads: number[] }): TimeBlocks & { reads: number[] } => ({
			...inner,
			async read(block, pass) {
				const read = await inner.read(block, pass);
				const token = {};
				return {
					length: read.length,
					instantAt: (i: number) => {
						if (done.has(token)) throw new Error(`block ${block} read after it was handed back`);
						return read.instantAt(i);
					},
					release: () => {
						expect(done.has(token), `block ${block} handed back twice`).toBe(false);
						done.add(token);
						released.push(block);
					},
				};
			},
		});
		const long = releasing(longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(Math.floor(i ** 1.5))));
		const result = await searchTimeRange(long, { start: 90_000_000n, end: 700_000_000n }, "trust");
		expect(result.sorted).toBe(true);
		// Every read handed back once (the search over, the last two too).
		expect(released.length).toBe(long.reads.length);
		// Not known sorted, a long column is read whole first, block by block, none kept: each of those reads handed back too.
		released.length = 0;
		const checked = releasing(longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(Math.floor(i ** 1.5))));
		expect((await searchTimeRange(checked, { start: 90_000_000n, end: 700_000_000n })).sorted).toBe(true);
		expect(checked.reads.length).toBeGreaterThan(1000);
		expect(released.length).toBe(checked.reads.length);
		// A small column read whole first keeps its blocks for the search: each handed back once it is over (leftovers15:
		// 1, they never were), none read after.
		released.length = 0;
		const small = releasing(longBlocksOf(5_000, 100, (i) => BigInt(i)));
		expect((await searchTimeRange(small, { start: 1_000n, end: 2_000n })).rows).toEqual({ start: 1_000, end: 2_000 });
		expect(small.reads.length).toBe(50);
		expect([...released].sort((a, b) => a - b)).toEqual([...small.reads].sort((a, b) => a - b));
		// Its blocks kept by their source (readsKept: keepingTimeChunks): none kept again, each handed back once checked,
		// a probe's read again once the search is done with it.
		released.length = 0;
		const keptBySource = { ...releasing(longBlocksOf(5_000, 100, (i) => BigInt(i))), readsKept: true };
		expect((await searchTimeRange(keptBySource, { start: 1_000n, end: 2_000n })).rows).toEqual({ start: 1_000, end: 2_000 });
		expect(keptBySource.reads.length).toBeGreaterThan(50);
		expect(released.length).toBe(keptBySource.reads.length);
	});

	it("stays within O(log blocks) probes on times far from linear, and exact", async () => {
		const valueAt = (i: number) => Math.floor(1.001 ** (i / 55));
		for (const [start, end] of [[5n, 6n], [1_000n, 1_001n], [10n ** 8n, 10n ** 8n + 10_000n], [3n, 10n ** 7n]] as const) {
			const blocks = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(valueAt(i)));
			const result = await searchTimeRange(blocks, { start, end }, "trust");
			expect(result.probes, `[${start}, ${end})`).toBeLessThanOrEqual(4 * Math.ceil(Math.log2(1000)) + 2);
			let first = 0;
			while (first < LONG_ROWS && valueAt(first) < Number(start)) first++;
			let last = first;
			while (last < LONG_ROWS && valueAt(last) < Number(end)) last++;
			expect(result.rows).toEqual({ start: first, end: last });
		}
	});

	it("a small time column (WHOLE_CHECK_VALUES at most) is read whole first, whatever its number of chunks: an archive appended a day at a time and backfilled last is found out of order", async () => {
		// xarray's to_zarr(append_dim="time") keeps the first write's chunks: one day each. Days 0-99, then 150-199,
		// then the backfill of 100-149. A range after the last block's time (day 149) was answered empty from two
		// probes, and one inside the days 150-199 found half its rows.
		const days = [...Array.from({ length: 100 }, (_, i) => i), ...Array.from({ length: 50 }, (_, i) => 150 + i), ...Array.from({ length: 50 }, (_, i) => 100 + i)];
		const archive = () => blocksOf(days.map((day) => BigInt(day) * AS), 1);
		for (const [start, end] of [[160n, 170n], [160n, undefined], [145n, 155n], [120n, 130n]] as const) {
			const blocks = archive();
			const result = await searchTimeRange(blocks, { start: start * AS, end: end === undefined ? undefined : end * AS });
			expect(result, `[${start}, ${end})`).toMatchObject({ sorted: false, rows: { start: 0, end: 200 }, reason: "block 149 and block 150 of the time array are out of order" });
			// Read in order up to the first step back.
			expect(blocks.reads).toEqual(Array.from({ length: 151 }, (_, i) => i));
		}
		// Sorted, the same layout is searched among the blocks read once, and exact.
		const sorted = blocksOf(Array.from({ length: 200 }, (_, i) => BigInt(i) * AS), 1);
		expect(await searchTimeRange(sorted, { start: 160n * AS, end: 170n * AS })).toMatchObject({ sorted: true, rows: { start: 160, end: 170 }, probes: 200 });
		expect(sorted.reads).toHaveLength(200);
	});

	it("keeps the blocks of a whole read for the search only while they are few: a small column of many tiny chunks is read whole, then its probes again (trial 28, finding 05: 10^6 blocks kept held 1 GB)", async () => {
		const count = 2 * KEPT_BLOCKS_MAX + 100;
		const blocks = blocksOf(Array.from({ length: count }, (_, i) => BigInt(i) * AS), 1);
		const result = await searchTimeRange(blocks, { start: 5000n * AS, end: 5010n * AS });
		expect(result).toMatchObject({ sorted: true, rows: { start: 5000, end: 5010 }, probes: count });
		// Every block read once, in order, to check the column sorted; none kept, the search's few probes read again.
		expect(blocks.reads.slice(0, count)).toEqual(Array.from({ length: count }, (_, i) => i));
		const again = blocks.reads.length - count;
		expect(again).toBeGreaterThan(0);
		expect(again).toBeLessThanOrEqual(2 * (2 * Math.ceil(Math.log2(count)) + 2));
		// At the bound, kept: the search reads nothing again.
		const few = blocksOf(Array.from({ length: KEPT_BLOCKS_MAX }, (_, i) => BigInt(i) * AS), 1);
		expect((await searchTimeRange(few, { start: 3000n * AS, end: 3010n * AS })).rows).toEqual({ start: 3000, end: 3010 });
		expect(few.reads).toHaveLength(KEPT_BLOCKS_MAX);
	});

	it("reads a small time column's blocks readConcurrency at a time, in order, the first failure reported", async () => {
		let inFlight = 0;
		let most = 0;
		const values = Array.from({ length: 300 }, (_, i) => BigInt(i));
		const blocks: TimeBlocks = {
			rows: 300,
			blockRows: 1,
			rowSize: 1,
			readConcurrency: 8,
			async read(block) {
				most = Math.max(most, ++inFlight);
				await new Promise((resolve) => setTimeout(resolve, 1));
				inFlight--;
				return { length: 1, instantAt: () => values[block] };
			},
		};
		expect(await searchTimeRange(blocks, { start: 10n, end: 20n })).toMatchObject({ sorted: true, rows: { start: 10, end: 20 } });
		expect(most).toBe(8);
		const failing: TimeBlocks = { ...blocks, read: async (block) => (block === 150 ? Promise.reject(new Error("chunk 150: connection reset")) : { length: 1, instantAt: () => values[block] }) };
		await expect(searchTimeRange(failing, { start: 10n, end: 20n })).rejects.toThrow("chunk 150: connection reset");
	});

	it("a long column not known sorted is read whole before the search, block by block: an archive backfilled last is found out of order whatever the range; known sorted, a range before or after every time is answered by the first (and last) block", async () => {
		// An archive appended in three stretches, the last a backfill: times 0-499,999, then 800,000-1,099,999, then
		// 500,000-799,999. Searched unchecked, a range after the last block's times but not after every time was
		// answered empty, and one inside the backfill found by probes that never meet the step back.
		const backfill = (i: number) => BigInt(i < 500_000 ? i : i < 800_000 ? i + 300_000 : i - 300_000);
		for (const bounds of [{ start: 900_000n, end: 950_000n }, { start: 600_000n, end: 600_100n }, { start: 0n, end: 10n }]) {
			const backfilled = longBlocksOf(LONG_ROWS, LONG_BLOCK, backfill);
			expect(await searchTimeRange(backfilled, bounds), `${bounds.start}`).toMatchObject({ sorted: false, rows: { start: 0, end: LONG_ROWS }, reason: "block 727 of the time array is not sorted" });
			expect(backfilled.reads.slice(0, 728)).toEqual(Array.from({ length: 728 }, (_, i) => i));
		}
		const sorted = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(1_000 + i * 10));
		expect(await searchTimeRange(sorted, { start: 0n, end: 500n })).toMatchObject({ sorted: true, rows: { start: 0, end: 0 }, probes: 1000 });
		expect(sorted.reads.slice(0, 1000)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
		const before = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(1_000 + i * 10));
		expect(await searchTimeRange(before, { start: 0n, end: 500n }, "trust")).toMatchObject({ sorted: true, rows: { start: 0, end: 0 }, probes: 1 });
		expect(before.reads).toEqual([0]);
		const after = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(1_000 + i * 10));
		expect(await searchTimeRange(after, { start: 20_000_000n, end: 30_000_000n }, "trust")).toMatchObject({ sorted: true, rows: { start: LONG_ROWS, end: LONG_ROWS }, probes: 2 });
		expect(after.reads.slice(0, 2)).toEqual([0, 999]);
		// A bound before every time alone: found at once, the other bound searched as ever.
		const from = longBlocksOf(LONG_ROWS, LONG_BLOCK, (i) => BigInt(1_000 + i * 10));
		expect((await searchTimeRange(from, { start: 0n, end: 12_345n }, "trust")).rows).toEqual({ start: 0, end: 1135 });
		expect(from.reads.length).toBeLessThanOrEqual(4);
	});

	it("keeps the value equal to start and drops the value equal to end, duplicates included", async () => {
		const values = [1n, 2n, 2n, 3n, 3n, 3n, 4n, 5n].map((v) => v * AS);
		for (const blockRows of [1, 2, 3, 8]) {
			const result = await searchTimeRange(blocksOf(values, blockRows), { start: 2n * AS, end: 4n * AS });
			expect(result.rows, String(blockRows)).toEqual({ start: 1, end: 6 });
		}
		expect((await searchTimeRange(blocksOf(values, 3), { start: 6n * AS })).rows).toEqual({ start: 8, end: 8 });
		expect((await searchTimeRange(blocksOf(values, 3), { end: 0n })).rows).toEqual({ start: 0, end: 0 });
	});

	it("keeps whole rows of an N-d time array", async () => {
		// 4 rows of 3 values each, sorted in C order.
		const values = [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n, 11n];
		expect((await searchTimeRange(blocksOf(values, 2, 3), { start: 4n, end: 7n })).rows).toEqual({ start: 1, end: 3 });
	});

	it("leaves missing times (NaT) out of the order, blocks of NaT only included", async () => {
		const values = Array.from({ length: 100 }, (_, i) => (i % 7 === 3 || (i >= 40 && i < 60) ? null : BigInt(i)));
		for (const blockRows of [1, 3, 10, 100]) {
			for (const [start, end] of [[50n, 70n], [0n, 45n], [41n, 59n], [55n, 200n], [-5n, 3n]]) {
				const result = await searchTimeRange(blocksOf(values, blockRows), { start, end });
				expect(result.sorted).toBe(true);
				const inRange = values.flatMap((v, i) => (v !== null && v >= start && v < end ? [i] : []));
				// Every time in range is among the rows found, and no time outside it lies between them and the range.
				for (const i of inRange) expect(i >= result.rows.start && i < result.rows.end, `${blockRows} [${start}, ${end}) row ${i}`).toBe(true);
				for (let i = result.rows.start; i < result.rows.end; i++) if (values[i] !== null) expect(values[i]! >= start && values[i]! < end).toBe(true);
			}
		}
	});

	it("an end (or start) bound in the block after a block of NaT only keeps that block's times before the bound", async () => {
		// The search used to stop at the NaT block's end: an end bound there lost the rows of the block after it
		// (found by the object-store trial on sparse stores: a missing chunk is NaT).
		const blockRows = 10;
		for (const gaps of [[0], [4], [4, 5], [3, 7, 8], [9], [1, 2, 3, 4, 5, 6, 7, 8]]) {
			const values = Array.from({ length: 100 }, (_, i) => (gaps.includes(Math.floor(i / blockRows)) ? null : BigInt(i)));
			for (let start = -1n; start <= 101n; start += 3n) {
				for (let end = start + 1n; end <= 102n; end += 4n) {
					for (const bounds of [{ start, end }, { end }, { start }]) {
						const result = await searchTimeRange(blocksOf(values, blockRows), bounds);
						expect(result.sorted).toBe(true);
						const label = `gaps ${gaps} [${bounds.start}, ${bounds.end})`;
						values.forEach((v, i) => {
							const inRange = v !== null && (bounds.start === undefined || v >= bounds.start) && (bounds.end === undefined || v < bounds.end);
							if (inRange) expect(i >= result.rows.start && i < result.rows.end, `${label} row ${i}`).toBe(true);
						});
					}
				}
			}
		}
	});

	it("says the time is not sorted, with the reason, instead of trusting it", async () => {
		const unsorted = Array.from({ length: 100 }, (_, i) => BigInt((i * 37) % 100));
		const result = await searchTimeRange(blocksOf(unsorted, 10), { start: 10n, end: 20n });
		expect(result).toMatchObject({ sorted: false, rows: { start: 0, end: 100 } });
		// Sorted inside each block, out of order between blocks.
		const swapped = [...Array.from({ length: 10 }, (_, i) => BigInt(i + 10)), ...Array.from({ length: 10 }, (_, i) => BigInt(i))];
		expect((await searchTimeRange(blocksOf(swapped, 10), { start: 5n, end: 15n })).sorted).toBe(false);
	});

	it("a whole read bounded in requests (a remote store) is refused past the bound, before any block is read; trusted, the column is searched; checked, read whole (trial 20, finding 03)", async () => {
		// 300 blocks of one value: a short column, read whole before the search when the bound allows it.
		const values = Array.from({ length: 300 }, (_, i) => BigInt(i) * AS);
		const refused = blocksOf(values, 1);
		const error = await searchTimeRange({ ...refused, description: "the time column \"time\" (300 values in 300 chunks)" }, { start: 160n * AS, end: 170n * AS }, { maxRequests: 256 }).catch((thrown: unknown) => thrown);
		expect(error).toMatchObject({ code: "USAGE", option: "timeSorted", value: 300 });
		expect((error as Error).message).toMatch(/^the time column "time" \(300 values in 300 chunks\) is read whole to check that it is sorted before a range is searched, 300 requests to this store \(more than 256\)/);
		expect(refused.reads).toEqual([]);
		// Within the bound (a sharded column's requests are per shard), read whole as before.
		const within = blocksOf(values, 1);
		expect(await searchTimeRange({ ...within, wholeReadRequests: 6 }, { start: 160n * AS, end: 170n * AS }, { maxRequests: 256 })).toMatchObject({ sorted: true, rows: { start: 160, end: 170 } });
		expect(within.reads).toHaveLength(300);
		const trusted = blocksOf(values, 1);
		expect(await searchTimeRange(trusted, { start: 160n * AS, end: 170n * AS }, "trust")).toMatchObject({ sorted: true, rows: { start: 160, end: 170 } });
		expect(trusted.reads.length).toBeLessThan(2 * 2 * Math.log2(300));
		const checked = blocksOf(values, 1);
		expect(await searchTimeRange(checked, { start: 160n * AS, end: 170n * AS }, "check")).toMatchObject({ sorted: true, rows: { start: 160, end: 170 }, probes: 300 });
		expect(checked.reads).toHaveLength(300);
		// A long column is read whole to check it as a short one is: bounded the same way, or trusted (an empty answer too).
		const empty = { start: 5_000_005n, end: 5_000_015n };
		const gap = (i: number) => BigInt(i < 500_000 ? i * 10 : i * 10 + 100_000);
		await expect(searchTimeRange(longBlocksOf(LONG_ROWS, LONG_BLOCK, gap), empty, { maxRequests: 256 })).rejects.toMatchObject({ code: "USAGE", option: "timeSorted", value: 1_000 });
		const trustedEmpty = longBlocksOf(LONG_ROWS, LONG_BLOCK, gap);
		expect(await searchTimeRange(trustedEmpty, empty, "trust")).toMatchObject({ sorted: true, rows: { start: 500_000, end: 500_000 } });
		expect(trustedEmpty.reads.length).toBeLessThan(40);
	});
});

describe("parts", () => {
	it("parse K/N and refuse what is not a part", () => {
		expect(parsePart("3/16")).toEqual({ index: 3, count: 16 });
		for (const text of ["16/16", "1/0", "-1/3", "1", "a/b", "1/100000"]) expect(() => parsePart(text), text).toThrow(expect.objectContaining({ kind: "usage" }));
	});

	it("come from the batch engine's environment, refusing ambiguity", () => {
		expect(partFromEnvironment({ JOB_COMPLETION_INDEX: "2" }, 4)).toEqual({ index: 2, count: 4 });
		expect(() => partFromEnvironment({ JOB_COMPLETION_INDEX: "2" })).toThrow(/`parts`/);
		expect(partFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "0", AWS_BATCH_JOB_ARRAY_SIZE: "8" })).toEqual({ index: 0, count: 8 });
		expect(partFromEnvironment({ CLOUD_RUN_TASK_INDEX: "7", CLOUD_RUN_TASK_COUNT: "8" })).toEqual({ index: 7, count: 8 });
		expect(partFromEnvironment({ SLURM_ARRAY_TASK_ID: "5", SLURM_ARRAY_TASK_COUNT: "8", SLURM_ARRAY_TASK_MIN: "1" })).toEqual({ index: 4, count: 8 });
		expect(partFromEnvironment({ SLURM_ARRAY_TASK_ID: "0", SLURM_ARRAY_TASK_COUNT: "2" })).toEqual({ index: 0, count: 2 });
		expect(() => partFromEnvironment({})).toThrow(/no array job index/);
		expect(() => partFromEnvironment({ CLOUD_RUN_TASK_INDEX: "1", CLOUD_RUN_TASK_COUNT: "2", SLURM_ARRAY_TASK_ID: "1", SLURM_ARRAY_TASK_COUNT: "2" })).toThrow(/ambiguous/);
		expect(() => partFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "8", AWS_BATCH_JOB_ARRAY_SIZE: "8" })).toThrow(expect.objectContaining({ kind: "usage" }));
		expect(() => partFromEnvironment({ AWS_BATCH_JOB_ARRAY_INDEX: "1", AWS_BATCH_JOB_ARRAY_SIZE: "8" }, 4)).toThrow(/disagrees/);
		expect(() => partFromEnvironment({ SLURM_ARRAY_TASK_ID: "3", SLURM_ARRAY_TASK_COUNT: "2", SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_STEP: "2" })).toThrow(/step/);
	});

	it("name an engine's variable that is not set or not a whole number (trial 19: it said `got NaN`)", () => {
		const refusal = (env: NodeJS.ProcessEnv, parts?: number) => {
			try {
				partFromEnvironment(env, parts);
			} catch (error) {
				return (error as Error).message;
			}
			return "accepted";
		};
		expect(refusal({ AWS_BATCH_JOB_ARRAY_INDEX: "0" })).toBe(
			"part auto (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE): AWS_BATCH_JOB_ARRAY_SIZE is not set (not run as an array job? give `part` as K/N)",
		);
		expect(refusal({ CLOUD_RUN_TASK_INDEX: "1", CLOUD_RUN_TASK_COUNT: "four" })).toBe('part auto (CLOUD_RUN_TASK_INDEX, CLOUD_RUN_TASK_COUNT): CLOUD_RUN_TASK_COUNT is "four", not a whole number');
		expect(refusal({ SLURM_ARRAY_TASK_ID: "1" })).toMatch(/SLURM_ARRAY_TASK_COUNT is not set/);
		expect(refusal({ JOB_COMPLETION_INDEX: "x" }, 4)).toMatch(/JOB_COMPLETION_INDEX is "x", not a whole number/);
		for (const env of [{ AWS_BATCH_JOB_ARRAY_INDEX: "0" }, { CLOUD_RUN_TASK_INDEX: "0", CLOUD_RUN_TASK_COUNT: "" }, { SLURM_ARRAY_TASK_ID: "0" }]) expect(refusal(env)).not.toMatch(/NaN/);
	});

	it("are disjoint, chunk-aligned and balanced, and cover the rows", () => {
		fc.assert(
			fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 97 }), fc.integer({ min: 1, max: 40 }), (a, b, chunkRows, count) => {
				const rows = { start: Math.min(a, b), end: Math.max(a, b) };
				let next = rows.start;
				const sizes: number[] = [];
				for (let index = 0; index < count; index++) {
					const slice = partRows(rows, chunkRows, { index, count });
					if (slice.end > slice.start) {
						expect(slice.start).toBe(next);
						if (slice.start !== rows.start) expect(slice.start % chunkRows).toBe(0);
						next = slice.end;
					}
					sizes.push(Math.ceil(slice.end / chunkRows) - Math.floor(slice.start / chunkRows));
				}
				expect(next).toBe(rows.end);
				const nonEmpty = sizes.filter((_size, k) => partRows(rows, chunkRows, { index: k, count }).end > partRows(rows, chunkRows, { index: k, count }).start);
				if (nonEmpty.length > 0) expect(Math.max(...nonEmpty) - Math.min(...nonEmpty)).toBeLessThanOrEqual(2);
			}),
		);
	});
});

describe("Hive partitions", () => {
	it("are computed in integers, without zero padding, for every unit", () => {
		const value = BigInt(Date.UTC(2021, 0, 5, 7, 30)) * 1_000_000n;
		expect(hivePartitionOf(value, "ns", "day")).toEqual({ path: "year=2021/month=1/day=5", low: BigInt(Date.UTC(2021, 0, 5)) * 1_000_000n, high: BigInt(Date.UTC(2021, 0, 6)) * 1_000_000n });
		expect(hivePartitionOf(value / 1_000_000n, "ms", "hour").path).toBe("year=2021/month=1/day=5/hour=7");
		expect(hivePartitionOf(-1n, "s", "month")).toEqual({ path: "year=1969/month=12", low: BigInt(Date.UTC(1969, 11, 1) / 1000), high: 0n });
		expect(hivePartitionOf(2n ** 63n - 1n, "ns", "year").path).toBe("year=2262");
		expect(hivePartitionOf(-(2n ** 63n), "s", "day").path).toBe("year=-292277022657/month=1/day=27");
	});

	it("agree with the ISO text of the value, and hold it", () => {
		fc.assert(
			fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom("s", "ms", "us", "ns" as const), (value, unit) => {
				const iso = formatIsoTimestamp(value, unit);
				const [, year, month, day, hour] = /^([+-]?\d+)-(\d\d)-(\d\d)T(\d\d)/.exec(iso)!;
				const partition = hivePartitionOf(value, unit, "hour");
				expect(partition.path).toBe(`year=${BigInt(year)}/month=${Number(month)}/day=${Number(day)}/hour=${Number(hour)}`);
				for (const level of ["year", "month", "day", "hour"] as const) {
					const { low, high } = hivePartitionOf(value, unit, level);
					expect(low <= value && value < high).toBe(true);
					expect(hivePartitionOf(low, unit, level).path).toBe(hivePartitionOf(value, unit, level).path);
					expect(hivePartitionOf(low - 1n, unit, level).path).not.toBe(hivePartitionOf(value, unit, level).path);
				}
			}),
		);
	});
});

describe("open partition files", () => {
	function tracker(limit: number) {
		const events: string[] = [];
		const partitions = new OpenPartitions<{ name: string; rows: number }>({
			limit,
			open: (partition, sequence) => {
				events.push(`open ${partition}#${sequence}`);
				return { name: `${partition}#${sequence}`, rows: 0 };
			},
			close: async (file) => void events.push(`close ${file.name}`),
			discard: (file) => void events.push(`discard ${file.name}`),
		});
		return { events, partitions };
	}

	it("close a partition once sorted time has passed it, never the partition of null times", async () => {
		const { events, partitions } = tracker(4);
		await partitions.notePosition({ low: 0n, high: 10n }, 0n);
		await partitions.fileFor("a", { low: 0n, high: 10n });
		await partitions.fileFor("null", undefined);
		await partitions.notePosition({ low: 10n, high: 20n }, 10n);
		await partitions.fileFor("b", { low: 10n, high: 20n });
		expect(partitions.openCount).toBe(2);
		await partitions.fileFor("null", undefined);
		await partitions.notePosition({ low: 20n, high: 30n }, 25n);
		await partitions.fileFor("c", { low: 20n, high: 30n });
		await partitions.closeAll();
		expect(events).toEqual(["open a#0", "open null#0", "close a#0", "open b#0", "close b#0", "open c#0", "close null#0", "close c#0"]);
	});

	it("keep at most `limit` open for unsorted time, least recently used closed first, reopened as a new file", async () => {
		const { events, partitions } = tracker(2);
		await partitions.notePosition({ low: 10n, high: 20n }, 15n);
		await partitions.fileFor("b", { low: 10n, high: 20n });
		await partitions.notePosition({ low: 0n, high: 10n }, 5n);
		await partitions.fileFor("a", { low: 0n, high: 10n });
		await partitions.notePosition({ low: 10n, high: 20n }, 12n);
		await partitions.fileFor("b", { low: 10n, high: 20n });
		await partitions.notePosition({ low: 20n, high: 30n }, 21n);
		await partitions.fileFor("c", { low: 20n, high: 30n });
		expect(partitions.openCount).toBe(2);
		await partitions.notePosition({ low: 0n, high: 10n }, 1n);
		await partitions.fileFor("a", { low: 0n, high: 10n });
		partitions.discardAll();
		expect(events).toEqual(["open b#0", "open a#0", "close a#0", "open c#0", "close b#0", "open a#1", "discard c#0", "discard a#1"]);
	});

	it("are named after their part, deterministically", () => {
		expect(partFileName({ index: 3, count: 16 }, 0, "parquet")).toBe("part-00003-of-00016.parquet");
		expect(partFileName({ index: 3, count: 16 }, 2, "arrow")).toBe("part-00003-of-00016-00002.arrow");
		expect(manifestPath({ index: 3, count: 16 })).toBe("_parts/part-3-of-16.json");
		expect(isFileOfPart("year=2021/part-00003-of-00016-00002.parquet", { index: 3, count: 16 })).toBe(true);
		expect(isFileOfPart("year=2021/.part-00003-of-00016.parquet.123.ab.tmp", { index: 3, count: 16 })).toBe(true);
		expect(isFileOfPart("part-00013-of-00016.parquet", { index: 3, count: 16 })).toBe(false);
	});
});
