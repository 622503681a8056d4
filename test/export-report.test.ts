/**
 * What an export tells the job that runs it: progress lines on stderr with --progress (plain lines when stderr is
 * not a terminal, as in a scheduler's log), for a dataset folder as for one file, and with --json its summary on
 * stdout as a document.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { rateText } from "../src/cli/progress.js";
import { REPO, runCli, tempDir } from "./support/cli.js";

const STORE = path.join(REPO, "data/weather-station.zarr");
const ROWS = 17_520;
const work = tempDir("dt64-export-report-");
/** A plain progress line, at either form of the rate (a loaded machine exports under 100,000 rows a second). */
const PROGRESS_LINE = /^chunks (\d+)\/(\d+) {2}rows ([\d,]+)\/([\d,]+) {2}(?:\d+\.\d M|[\d,]+) rows\/s {2}ETA \d+ s$/;

describe("--progress", () => {
	it("the lines are matched at any rate: no timing decides the tests below", () => {
		for (const rate of [2_500_000, 400_000, 43_259, 12]) expect(`chunks 1/5  rows 3,504/17,520  ${rateText(rate)}  ETA 0 s`).toMatch(PROGRESS_LINE);
	});

	for (const [what, args] of [
		["a partitioned dataset", ["--partition-by", "month"]],
		["a part of a dataset", ["--part", "0/2"]],
		["one file", []],
	] as const) {
		it(`${what}: plain progress lines on stderr, the last one at every chunk, before the summary`, () => {
			const out = path.join(work, `progress-${what.replace(/\W+/g, "-")}${args.length === 0 ? ".parquet" : ""}`);
			const result = runCli([STORE, ...args, "--progress", "-o", out]);
			expect(result.status).toBe(0);
			const lines = result.stderr.trimEnd().split("\n");
			expect(lines.join("\n")).not.toContain("does nothing");
			expect(result.stderr).not.toContain("\r");
			const progress = lines.filter((line) => PROGRESS_LINE.test(line));
			expect(progress.length).toBeGreaterThan(0);
			const [, chunk, chunks, rows, total] = PROGRESS_LINE.exec(progress[progress.length - 1])!;
			expect(chunk).toBe(chunks);
			expect(rows).toBe(total);
			expect(lines.indexOf(progress[progress.length - 1])).toBeLessThan(lines.findIndex((line) => line.startsWith("wrote ")));
		});
	}
});

describe("--json on an export", () => {
	it("a whole dataset: its summary on stdout, in place of the line on stderr", () => {
		const out = path.join(work, "whole");
		const result = runCli([STORE, "--partition-by", "month", "--json", "-o", out]);
		expect([result.status, result.stderr]).toEqual([0, ""]);
		const summary = JSON.parse(result.stdout.toString());
		expect(summary).toEqual({
			output: out,
			format: "parquet",
			rows: ROWS,
			overflowNulls: {},
			files: 25,
			partitions: 25,
			part: { index: 0, count: 1 },
			manifest: "_parts/part-0-of-1.json",
			committed: true,
			unsortedTime: null,
		});
		expect(fs.existsSync(path.join(out, "_SUCCESS"))).toBe(true);
	});

	it("a part, which leaves the commit to `dt64-export commit`; warnings stay on stderr", () => {
		const out = path.join(work, "part");
		const result = runCli([STORE, "--part", "1/2", "--json", "--tz", "UTC", "--to", "arrow", "-o", out]);
		expect(result.status).toBe(0);
		const summary = JSON.parse(result.stdout.toString());
		expect(summary).toMatchObject({ output: out, format: "arrow", files: 1, partitions: 0, part: { index: 1, count: 2 }, manifest: "_parts/part-1-of-2.json", committed: false });
		expect(summary.rows).toBeGreaterThan(0);
		expect(summary.rows).toBeLessThan(ROWS);
		expect(result.stderr).not.toContain("wrote ");
	});

	it("one file: the file, its format and its rows", () => {
		const out = path.join(work, "one.arrow");
		const result = runCli([STORE, "--json", "--start", "2023-02-01", "-o", out]);
		expect([result.status, result.stderr]).toEqual([0, ""]);
		const summary = JSON.parse(result.stdout.toString());
		expect(Object.keys(summary)).toEqual(["output", "format", "rows", "overflowNulls"]);
		expect(summary).toMatchObject({ output: out, format: "arrow", overflowNulls: {} });
		expect(summary.rows).toBeGreaterThan(0);
		expect(summary.rows).toBeLessThan(ROWS);
	});

	it("-o - writes the data to stdout: --json is refused there, DT64_EXPORT_JSON left aside", () => {
		const refused = runCli([STORE, "--json", "-o", "-"]);
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/^dt64-export: --json prints the export's summary on stdout, where -o - writes its data: .* \[USAGE\]\n$/);
		expect(refused.stdout.length).toBe(0);
		const data = runCli([STORE, "-o", "-", "--to", "arrow-stream", "-q"], { env: { DT64_EXPORT_JSON: "1" } });
		expect([data.status, data.stderr]).toEqual([0, ""]);
		expect(data.stdout.subarray(0, 4)).toEqual(Buffer.from([0xff, 0xff, 0xff, 0xff]));
	});
});
