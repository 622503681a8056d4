/**
 * numcodecs' Delta filter on Zarr v2 integer arrays, against what zarr-python 2 and xarray read from the same stores
 * (test/golden/make_delta_fixtures.py writes them and test/fixtures/delta/expected.json): CF time stored as
 * differences, and differences that wrap in the stored dtype, decoded by the running sum wrapping as numpy's does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { PassThrough } from "node:stream";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { exportTable, type ExportOptions } from "../src/index.js";
import { deltaCodec } from "../src/zarr/codecs/delta.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";
import { rejection } from "./support/thrown.js";

const FIXTURES = path.join(REPO, "test/fixtures/delta");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8"));

/** The export of `store` as Arrow, read back from memory. */
function exported(store: string, options: ExportOptions): Promise<Table> {
	return exportedArrow((sink) => exportTable(store, sink, options));
}

/** A column's values as strings, null for null. */
function column(table: Table, name: string): (string | null)[] {
	return Array.from(table.getChild(name)!, (value) => (value === null ? null : String(value)));
}

describe("numcodecs Delta on Zarr v2 integer arrays (zarr-python 2.13, numcodecs 0.11)", () => {
	it("CF time stored as differences decodes to xarray's instants, NaT where _FillValue", async () => {
		const table = await exported(path.join(FIXTURES, "cf.zarr"), { array: "time", unit: "ns" });
		const time = table.getChild("time")!;
		const ns = Array.from({ length: time.length }, (_, i) => (time.isValid(i) ? String((time.data[0].values as BigInt64Array)[i]) : null));
		expect(ns).toEqual(expected.cf.instants);
	});

	it("differences that wrap in the stored dtype decode as numpy's running sum does (int8, uint16, int64)", async () => {
		// As stored (zarr-python reads them so): no CF masking of the fill value 0.
		for (const name of ["i1", "u2", "i8"]) expect(column(await exported(path.join(FIXTURES, "wrap.zarr"), { columns: [name], cf: false }), name)).toEqual(expected.wrap[name]);
	});

	it("numpy times stored as differences and blosc-zstd: NaT where the running sum is, not where blosc saw one", async () => {
		const before = process.env.DT64_DECODE_THREADS;
		for (const threads of ["0", "2"]) {
			process.env.DT64_DECODE_THREADS = threads;
			try {
				const table = await exported(path.join(FIXTURES, "times.zarr"), { array: "t" });
				const t = table.getChild("t")!;
				const counts = Array.from({ length: t.length }, (_, i) => (t.isValid(i) ? String((t.data[0].values as BigInt64Array)[i]) : null));
				expect(counts, `DT64_DECODE_THREADS=${threads}`).toEqual(expected.times);
			} finally {
				if (before === undefined) delete process.env.DT64_DECODE_THREADS;
				else process.env.DT64_DECODE_THREADS = before;
			}
		}
	});

	it("differences stored in another type (astype) are refused, naming the filter", async () => {
		const error = await rejection(exportTable(path.join(FIXTURES, "refused.zarr"), new PassThrough().resume(), { columns: ["x"] }));
		expect(error).toMatchObject({ code: "COLUMN_UNSUPPORTED", field: "filters[0]", message: expect.stringMatching(/filters\[0\]: delta stores "<i2" and decodes it to "<i8": a conversion/) });
	});
});

describe("the delta codec", () => {
	it("decodes datetime64 counts whose NaT is a running sum, not a stored value: NaT where the sum is", async () => {
		const nat = -(2n ** 63n);
		// Stored differences of [10, NaT, 12]: 10, NaT - 10, 12 - NaT (wrapping).
		const stored = BigInt64Array.of(10n, BigInt.asIntN(64, nat - 10n), BigInt.asIntN(64, 12n - nat));
		const codec = deltaCodec({ dtype: "<i8" }, { shape: [3], dataType: "int64", maxDecodedBytes: 1 << 20 });
		if (codec.kind !== "array_to_array") throw new Error("not an array-to-array codec");
		const decoded = codec.decode({ data: stored, shape: [3], stride: [1] });
		expect(Array.from(decoded.data as BigInt64Array)).toEqual([10n, nat, 12n]);
		expect(Array.from(stored)).toEqual([10n, BigInt.asIntN(64, nat - 10n), BigInt.asIntN(64, 12n - nat)]);
	});
});
