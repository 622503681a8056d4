/**
 * A time column longer than WHOLE_CHECK_VALUES, not known sorted. Trial 36: a 1.2M-value column whose row 100 is NaT
 * and whose time of row 100 lies at row 840,000 (an archive rewritten in place) exported 199 of the 200 rows of
 * `--start` t(0) `--end` t(200) without a word, with `--no-time-sorted` and without it: the search read only the
 * blocks it probed, where that row is not. Unless known sorted (`--time-sorted`), the column is now read whole and
 * checked before any search, whatever its length.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { NAT, writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/index.js";
import { searchTimeRange, WHOLE_CHECK_VALUES, type TimeBlocks } from "../src/select/time-search.js";
import { readArrow, runCli, tempDir } from "./support/cli.js";

const work = tempDir("dt64-not-known-sorted-");
const ROWS = 1_200_000;
const SHARD = 300_000;
const INNER = 20_000;
const T0 = 1_609_459_200n;
const MOVED_FROM = 100;
const MOVED_TO = 840_000;

/** Seconds T0 + i, but for row 100, NaT, whose time is at row 840,000 instead: sorted in every block but one. */
function secondAt(i: number): bigint {
	if (i === MOVED_FROM) return NAT;
	return T0 + BigInt(i === MOVED_TO ? MOVED_FROM : i);
}

const iso = (second: number) => new Date(Number(T0 + BigInt(second)) * 1000).toISOString().slice(0, 19);

let stored: Promise<string> | undefined;
/** The column as a sharded v3 store: 4 shards of 15 inner chunks. */
function store(): Promise<string> {
	stored ??= (async () => {
		const folder = path.join(work, "moved.zarr");
		const values = BigInt64Array.from({ length: ROWS }, (_, i) => secondAt(i));
		const LE = { name: "bytes", configuration: { endian: "little" } };
		await writeArray(folder, "", {
			shape: [ROWS],
			chunks: [SHARD],
			values,
			dataType: { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } },
			codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [INNER], codecs: [LE], index_codecs: [LE], index_location: "end" } }],
		});
		return folder;
	})();
	return stored;
}

/** The rows of [t(0), t(200)) in store order: 0..99, 101..199, then row 840,000's t(100). */
const EXPECTED = [...Array.from({ length: 200 }, (_, i) => i).filter((i) => i !== MOVED_FROM), MOVED_FROM].map((s) => T0 + BigInt(s));

const exported = (file: string) => Array.from(readArrow(file).getChildAt(0)!.toArray() as BigInt64Array);

/** The column as the search sees it, counting the blocks read. */
function blocks(): TimeBlocks & { reads: number[] } {
	const reads: number[] = [];
	return {
		rows: ROWS,
		blockRows: INNER,
		rowSize: 1,
		reads,
		async read(block) {
			reads.push(block);
			const first = block * INNER;
			return { length: INNER, instantAt: (i) => (secondAt(first + i) === NAT ? null : secondAt(first + i)) };
		},
	};
}

describe("a long time column not known sorted", () => {
	it("is read whole before the search, and found out of order; known sorted (`trust`), only the blocks the search reads are checked", async () => {
		expect(ROWS).toBeGreaterThan(WHOLE_CHECK_VALUES);
		const bounds = { start: T0, end: T0 + 200n };
		const trusted = blocks();
		expect(await searchTimeRange(trusted, bounds, "trust")).toMatchObject({ sorted: true, rows: { start: 0, end: 200 } });
		expect(trusted.reads.length).toBeLessThan(10);
		const whole = blocks();
		const result = await searchTimeRange(whole, bounds, "check");
		expect(result).toMatchObject({ sorted: false, rows: { start: 0, end: ROWS } });
		expect(result.sorted === false && result.reason).toBe("block 41 and block 42 of the time array are out of order");
		// Read in order up to the block out of order (row 840,000 starts block 42), each once.
		expect(whole.reads).toEqual(Array.from({ length: 43 }, (_, i) => i));
	});

	it("sorted, it is read once and then searched: exact", async () => {
		const sorted: TimeBlocks & { reads: number[] } = { ...blocks(), reads: [] };
		sorted.read = async (block) => {
			sorted.reads.push(block);
			return { length: INNER, instantAt: (i) => T0 + BigInt(block * INNER + i) };
		};
		const result = await searchTimeRange(sorted, { start: T0 + 500_000n, end: T0 + 500_010n }, "check");
		expect(result).toMatchObject({ sorted: true, rows: { start: 500_000, end: 500_010 } });
		expect(new Set(sorted.reads.slice(0, ROWS / INNER))).toHaveProperty("size", ROWS / INNER);
	});

	it("exports every row of the range (199 of 200 before) by default, with --no-time-sorted and with --no-range-search; --time-sorted trusts it, as documented", async () => {
		const folder = await store();
		for (const flags of [[], ["--no-time-sorted"], ["--no-range-search"]]) {
			const out = path.join(work, `range${flags.join("")}.arrow`);
			const run = runCli([folder, "--start", iso(0), "--end", iso(200), ...flags, "-o", out]);
			expect(run.status, run.stderr).toBe(0);
			expect(exported(out), flags.join(" ")).toEqual(EXPECTED);
		}
		// Said sorted, the long column is searched: only the blocks read are checked.
		const out = path.join(work, "searched.arrow");
		expect(runCli([folder, "--start", iso(0), "--end", iso(200), "--time-sorted", "-o", out]).status).toBe(0);
		expect(exported(out)).toHaveLength(199);
	});

	it("the library's default and timeSorted: false are the same", async () => {
		for (const options of [{}, { timeSorted: false }]) {
			const out = path.join(work, `library${Object.keys(options).length}.arrow`);
			await exportToFile(await store(), out, { start: iso(0), end: iso(200), ...options });
			expect(exported(out)).toEqual(EXPECTED);
		}
	});
});
