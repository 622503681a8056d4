/**
 * numcodecs filters whose decode is the identity on the stored bytes (test/fixtures/trial18/filters.zarr, written
 * by xarray with numcodecs 0.11 by test/golden/make_trial18_fixtures.py), finding 07 of the eighteenth trial:
 * `BitRound` (xbitinfo) and `Quantize` with astype equal to dtype were refused as unknown codecs, and `--columns
 * all` failed as a whole on them. They are read now, xarray's values; `Quantize` that stores another type than it
 * decodes to (a cast on decode) is refused by name, and `--columns all` leaves such an array out with the reason, as
 * it leaves out one of a type no column holds (and one with a codec it does not know).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { isIdentityFilter } from "../src/zarr/numcodecs-v2.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";

const FIXTURES = path.join(REPO, "test/fixtures/trial18");
const STORE = path.join(FIXTURES, "filters.zarr");
const { filters } = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as {
	filters: { t2m: number[]; msl: number[]; sp: number[]; time: string[]; check: Record<string, boolean> };
};

describe("BitRound and Quantize filters written by xarray (finding 07)", () => {
	it("exports t2m (BitRound, float32) and msl (Quantize, float64) as xarray reads them", () => {
		// The generator checked that numcodecs' decode gives back the encoded bytes for these two, not for sp's.
		expect(filters.check).toEqual({ bitround: true, quantize: true, quantize_astype: false });
		const out = path.join(tempDir(), "filters.arrow");
		const run = runCli([STORE, "--columns", "t2m,msl", "--index", "--unit", "ns", "-o", out, "-q"]);
		expect([run.status, run.stderr]).toEqual([0, ""]);
		const table = readArrow(out);
		expect(Array.from(table.getChild("t2m")!.toArray() as Float32Array)).toEqual(filters.t2m);
		expect(Array.from(table.getChild("msl")!.toArray() as Float64Array)).toEqual(filters.msl);
		expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array, String)).toEqual(filters.time.flatMap((t) => [t, t, t]));
	});

	it("refuses Quantize with astype other than dtype, naming it; --columns all leaves that array out with the reason", () => {
		const refused = runCli([STORE, "--columns", "sp", "--index", "-o", path.join(tempDir(), "sp.arrow")]);
		// A named column the package cannot read is a usage error, as one of a data type no column holds.
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/^dt64-export: --columns: array sp \([^\n]*sp\/\.zarray\): filters\[0\]: quantize stores "<f4" and decodes it to "<f8": a conversion, .*\[COLUMN_UNSUPPORTED\]\n$/);
		const out = path.join(tempDir(), "all.arrow");
		const run = runCli([STORE, "--columns", "all", "--index", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/^dt64-export: columns all left out sp: filters\[0\]: quantize stores "<f4" and decodes it to "<f8"/);
		expect(readArrow(out).schema.fields.map((field) => field.name)).toEqual(["time", "lat", "msl", "t2m"]);
	});

	it("--columns all leaves out an array whose codec is unknown, with the codec named, rather than failing", () => {
		const store = path.join(tempDir(), "unknown-codec.zarr");
		fs.cpSync(STORE, store, { recursive: true });
		const zarray = path.join(store, "msl", ".zarray");
		fs.writeFileSync(zarray, JSON.stringify({ ...JSON.parse(fs.readFileSync(zarray, "utf8")), compressor: { id: "zfpy", mode: 4, tolerance: 0.01 } }));
		fs.rmSync(path.join(store, ".zmetadata"), { force: true });
		const out = path.join(tempDir(), "all.arrow");
		const run = runCli([store, "--columns", "all", "--index", "-o", out]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stderr).toMatch(/left out .*msl: compressor: codec id "zfpy" is not supported/);
		expect(readArrow(out).schema.fields.map((field) => field.name)).toEqual(["time", "lat", "t2m"]);
	});

	it("takes bitround and quantize as identity filters only as numcodecs decodes them", () => {
		expect(isIdentityFilter({ id: "bitround", keepbits: 0 }, "filters[0]")).toBe(true);
		expect(isIdentityFilter({ id: "quantize", digits: 3, dtype: "<f4", astype: "<f4" }, "filters[0]")).toBe(true);
		expect(isIdentityFilter({ id: "quantize", digits: 3, dtype: "<f8" }, "filters[0]")).toBe(true);
		expect(isIdentityFilter({ id: "quantize", digits: 3, dtype: "float64", astype: "=f8" }, "filters[0]")).toBe(true);
		expect(isIdentityFilter({ id: "zlib", level: 1 }, "filters[0]")).toBe(false);
		for (const [filter, reason] of [
			[{ id: "bitround", keepbits: -1 }, /bitround keepbits -1 is not a whole number >= 0/],
			[{ id: "quantize", digits: 2, dtype: "<f8", astype: ">f8" }, /quantize stores ">f8" and decodes it to "<f8"/],
			[{ id: "quantize", digits: 2, dtype: "<i4" }, /quantize dtype "<i4" is not a float type/],
		] as const) {
			expect(() => isIdentityFilter(filter, "filters[1]")).toThrow(expect.objectContaining({ code: "UNSUPPORTED", field: "filters[1]", message: expect.stringMatching(reason) }));
		}
	});
});
