/**
 * The whole read of a short time column before a range is searched, over a remote store: bounded in requests
 * (REMOTE_WHOLE_CHECK_REQUESTS). Finding 03 of the twentieth trial: a 1-D time array of a million values in chunks
 * of 1,000 took 1,053 requests for one day, where a thousand values more took 13. Past the bound the export asks
 * whether the column is sorted rather than read it whole unasked, or search a column never checked: an archive
 * appended out of order must never silently lose rows.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { readArrow, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { serveFolder } from "./support/served-folder.js";
import { REMOTE_WHOLE_CHECK_REQUESTS } from "../src/select/time-search.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const served = tempDir("dt64-remote-time-check-");
const work = tempDir("dt64-remote-time-check-out-");
const http = serveFolder(served);
const T0 = 1_600_000_000n;

/** Minutes from T0 in chunks of 10 values: `chunks` chunks. */
async function minutes(name: string, chunks: number, order: (i: number) => number = (i) => i): Promise<void> {
	const values = BigInt64Array.from({ length: chunks * 10 }, (_, i) => T0 + BigInt(order(i)) * 60n);
	await writeArray(path.join(served, `${name}.zarr`), "", { shape: [values.length], chunks: [10], dataType: seconds, values, codecs: [LE] });
}

const iso = (minute: number) => new Date(Number(T0 + BigInt(minute) * 60n) * 1000).toISOString().slice(0, 19);
const chunkReads = () => http.server.requests.filter((request) => /\/c\/\d+$/.test(request.path)).length;
let counter = 0;

async function exportRange(name: string, from: number, to: number, ...args: string[]) {
	const out = path.join(work, `out${counter++}.arrow`);
	const run = await runCliAsync([`${http.server.url}/${name}.zarr`, "--start", iso(from), "--end", iso(to), "-o", out, ...args]);
	return { run, out };
}

const exported = (out: string) => Array.from(readArrow(out).getChildAt(0)!.toArray() as BigInt64Array, (value) => Number((value - T0) / 60n));

describe("a short time column over a remote store (trial 20, finding 03)", () => {
	it("past REMOTE_WHOLE_CHECK_REQUESTS chunks, the export asks whether it is sorted before reading any chunk", async () => {
		await minutes("t", 300);
		const { run } = await exportRange("t", 1_600, 1_700);
		expect(run.status).toBe(2);
		expect(run.stderr).toBe(
			`dt64-export: the time column "t" (3000 values in 300 chunks) is read whole to check that it is sorted before a range is searched, 300 requests to this store (more than ${REMOTE_WHOLE_CHECK_REQUESTS}): say whether it is known sorted with --time-sorted (true: searched, only the chunks the search reads and the rows exported checked; false: read whole all the same), or read and filter every row with --no-range-search [USAGE]\n`,
		);
		expect(chunkReads()).toBe(0);
	});

	it("--time-sorted searches it: a few chunks read, the rows exact", async () => {
		await minutes("t", 300);
		const { run, out } = await exportRange("t", 1_605, 1_700, "--time-sorted");
		expect(run.status, run.stderr).toBe(0);
		expect(exported(out)).toEqual(Array.from({ length: 95 }, (_, i) => 1_605 + i));
		expect(chunkReads()).toBeLessThan(25);
	});

	it("--no-time-sorted reads it whole as before: an archive appended out of order is found and every row filtered", async () => {
		// Minutes 0-1,999, then 2,500-2,999, then the backfill of 2,000-2,499 last.
		await minutes("backfill", 300, (i) => (i < 2_000 ? i : i < 2_500 ? i + 500 : i - 500));
		const { run, out } = await exportRange("backfill", 2_400, 2_600, "--no-time-sorted");
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/the time column is not sorted/);
		expect(exported(out).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => 2_400 + i));
		expect(chunkReads()).toBeGreaterThanOrEqual(300);
	});

	it("within the bound it is read whole unasked, as a local one is", async () => {
		await minutes("short", REMOTE_WHOLE_CHECK_REQUESTS);
		const { run, out } = await exportRange("short", 1_600, 1_700);
		expect(run.status, run.stderr).toBe(0);
		expect(exported(out)).toEqual(Array.from({ length: 100 }, (_, i) => 1_600 + i));
		// Each chunk once to check; the range's 10 chunks are exported from those reads (before: fetched again).
		expect(chunkReads()).toBe(REMOTE_WHOLE_CHECK_REQUESTS);
	});
});
