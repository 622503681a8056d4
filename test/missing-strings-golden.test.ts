/**
 * A missing chunk of a string variable as xarray writes one (a v2 object array, vlen-utf8, `fill_value: null`): its
 * rows are nulls, as zarr-python 2 reads None there and xarray keeps it (test/golden/make_missing_strings_fixtures.py).
 * An object array with zarr-python's own default fill value, 0, still refuses a missing chunk: zarr reads the integer
 * 0 there, which is no string.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { useDuckDB } from "./support/duckdb.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";

const FIXTURES = path.join(REPO, "test/fixtures/missing-strings");
const STORE = path.join(FIXTURES, "missing-strings.zarr");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as {
	columns: { name: string; values: (string | number | null)[] }[];
	zero: string[];
};
const work = tempDir("dt64-missing-strings-");
const query = useDuckDB();
const stationOf = () => expected.columns.find((column) => column.name === "station")!.values;

describe("a missing chunk of an object-string variable without a fill value", () => {
	it("is null in a nullable Utf8 column, as xarray reads it", () => {
		const out = path.join(work, "table.arrow");
		const run = runCli([STORE, "--columns", "t2m,station", "--index", "-q", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		const table = readArrow(out);
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", "t2m", "station"]);
		const station = table.schema.fields[2];
		expect(String(station.type)).toBe("Utf8");
		expect(station.nullable).toBe(true);
		expect([...table.getChild("station")!]).toEqual(stationOf());
		expect([...table.getChild("t2m")!]).toEqual(expected.columns.find((column) => column.name === "t2m")!.values);
	});

	it("reads back as nulls in DuckDB, from Parquet", async () => {
		const out = path.join(work, "table.parquet");
		expect(runCli([STORE, "--columns", "t2m,station", "--index", "-q", "-o", out]).status).toBe(0);
		const rows = await query(`SELECT station FROM read_parquet('${out}') ORDER BY time`);
		expect(rows.map(([value]) => value)).toEqual(stationOf());
	});

	it("a range and a dataset of parts keep the nulls of their rows", async () => {
		const out = path.join(work, "parts");
		for (const part of ["0/2", "1/2"]) {
			const run = runCli([STORE, "--columns", "station", "--index", "--start", "2024-01-01T02:00", "--end", "2024-01-01T10:00", "--part", part, "-q", "-o", out]);
			expect(run.status, run.stderr).toBe(0);
		}
		expect(runCli(["commit", out, "-q"]).status).toBe(0);
		const rows = await query(`SELECT station FROM read_parquet('${out}/**/*.parquet') ORDER BY time`);
		expect(rows.map(([value]) => value)).toEqual(stationOf().slice(2, 10));
	});

	it("inspect says what a missing chunk of each holds", () => {
		const run = runCli(["inspect", STORE]);
		const stdout = String(run.stdout);
		expect(stdout).toMatch(/station {2}array[\s\S]*fill value {2}null \(none: a missing chunk's strings are nulls, as zarr-python reads None there\)/);
		expect(stdout).toMatch(/zero {2}array[\s\S]*fill value {2}0 \(no string: a missing chunk cannot be read, zarr-python 2 reads the integer 0 there\)\n/);
	});

	it("inspect and the export read a missing chunk alike, by one rule: the store as written, and with the fill values of station and zero swapped", async () => {
		// The copy: station's fill value zarr-python's default 0, zero's null, in .zarray and the consolidated metadata.
		const swapped = path.join(work, "swapped.zarr");
		fs.cpSync(STORE, swapped, { recursive: true });
		const fills: Record<string, number | null> = { station: 0, zero: null };
		const consolidated = JSON.parse(fs.readFileSync(path.join(swapped, ".zmetadata"), "utf8"));
		for (const [name, fill] of Object.entries(fills)) {
			const file = path.join(swapped, name, ".zarray");
			fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), fill_value: fill }));
			consolidated.metadata[`${name}/.zarray`].fill_value = fill;
		}
		fs.writeFileSync(path.join(swapped, ".zmetadata"), JSON.stringify(consolidated));
		const seen: string[] = [];
		for (const store of [STORE, swapped]) {
			const report = await inspectStore(store);
			for (const name of ["station", "zero", "t2m"]) {
				const node = report.nodes.find((candidate) => candidate.path === name)!;
				let exported: string;
				try {
					await exportToFile(store, path.join(work, `${name}-${seen.length}.arrow`), { columns: [name], overwrite: true });
					exported = "read";
				} catch (error) {
					exported = (error as { code?: string }).code ?? String(error);
				}
				// What the export did, as inspect says it would: nulls or the fill value are read, a refusal is CHUNK_MISSING.
				expect(exported, `${name} in ${path.basename(store)}`).toBe(node.missingChunks === "refused" ? "CHUNK_MISSING" : "read");
				seen.push(`${path.basename(store)} ${name} ${node.missingChunks ?? "fill"} ${exported}`);
			}
		}
		expect(seen).toEqual([
			"missing-strings.zarr station null read",
			"missing-strings.zarr zero refused CHUNK_MISSING",
			"missing-strings.zarr t2m fill read",
			"swapped.zarr station refused CHUNK_MISSING",
			"swapped.zarr zero null read",
			"swapped.zarr t2m fill read",
		]);
		const lines = String(runCli(["inspect", swapped]).stdout);
		expect(lines).toMatch(/station {2}array[\s\S]*fill value {2}0 \(no string: a missing chunk cannot be read, zarr-python 2 reads the integer 0 there\)/);
		expect(lines).toMatch(/zero {2}array[\s\S]*fill value {2}null \(none: a missing chunk's strings are nulls, as zarr-python reads None there\)/);
	});

	it("zarr-python's default fill value of object arrays, 0, still refuses a missing chunk: zarr reads the integer 0", () => {
		expect(expected.zero.slice(4, 8)).toEqual(["0", "0", "0", "0"]);
		const run = runCli([STORE, "--columns", "zero", "--index", "-o", path.join(work, "zero.arrow")]);
		expect(run.status).toBe(1);
		expect(run.stderr).toMatch(/chunk zero\/1: missing, and the array has no string fill value \(zarr-python 2's default fill_value 0, which it reads as the integer 0\) to stand for it .*\[CHUNK_MISSING\]\n$/);
	});
});
