/**
 * One CF time decoding whichever way an array is exported: alone (found, named with `--array`, or as the store root
 * itself), as a `--columns` value column, and as the `--index` coordinate of a data variable, each gives the same
 * Arrow type, values and field metadata (Arrow IPC, and Parquet read back through its ARROW:schema). The field
 * metadata is the provenance the CF time issue asks for: data type, CF attributes as written, `zarr.cf_decoded`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Writable } from "node:stream";
import { tableFromIPC, type Field, type Table } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages, exportTable } from "../src/export.js";
import type { ExportOptions } from "../src/export-plan.js";
import { inspectStore } from "../src/index.js";
import { openTable } from "../src/open-table.js";
import { REPO, runCli, tempDir } from "./support/cli.js";

const CF = path.join(REPO, "test/fixtures/cf");
const work = tempDir("dt64-cf-one-");

/** Exports through the library into memory and reads the result back (Parquet through parquet-wasm). */
async function exported(store: string, options: ExportOptions): Promise<Table> {
	const parts: Buffer[] = [];
	const sink = new Writable({
		write(chunk: Buffer, _encoding, callback) {
			parts.push(chunk);
			callback();
		},
	});
	await exportTable(store, sink, options);
	const bytes = Buffer.concat(parts);
	return tableFromIPC(options.format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes);
}

/** A column as what must agree: its Arrow type, its field metadata (sorted) and its values (exact, null for null). */
function described(table: Table, name: string) {
	const index = table.schema.fields.findIndex((field) => field.name === name);
	expect(index).toBeGreaterThanOrEqual(0);
	const field: Field = table.schema.fields[index];
	const values: (string | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(index)!.data[0];
		for (let i = 0; i < data.length; i++) values.push(data.getValid(i) ? String((data.values as BigInt64Array)[i]) : null);
	}
	return { type: String(field.type), nullable: field.nullable, metadata: Object.fromEntries([...field.metadata].sort()), values };
}

/** The same CF time array exported each way; every result must equal the first. */
async function everyWay(store: string, array: string, companion: string, format: "arrow" | "parquet" = "arrow") {
	const ways: Record<string, ExportOptions & { store?: string }> = {
		alone: { array },
		"store root": { store: path.join(store, array) },
		"--columns": { columns: [array, companion] },
		"--index coordinate": { columns: [companion], index: true },
	};
	const results: Record<string, ReturnType<typeof described>> = {};
	for (const [way, { store: at, ...options }] of Object.entries(ways)) results[way] = described(await exported(at ?? store, { ...options, format }), array);
	return results;
}

describe("a CF time array decodes the same alone, as the store root, as a column and as an index coordinate", () => {
	let v3: string;
	beforeAll(async () => {
		// Float seconds whose last chunk holds the only fraction finer than a second: --unit auto must read every chunk
		// (ms) whichever way the array is opened. -1 (_FillValue) and NaN are missing.
		v3 = path.join(work, "v3.zarr");
		await writeGroup(v3, "");
		const times = Float64Array.of(0, 60, Number.NaN, -1, 3_600, 86_400.5);
		await writeArray(v3, "time", {
			shape: [6],
			chunks: [2],
			dataType: "float64",
			fillValue: "NaN",
			values: times,
			dimensionNames: ["time"],
			attributes: { units: "seconds since 2000-01-01T00:00:00Z", calendar: "proleptic_gregorian", _FillValue: -1, long_name: "time", standard_name: "time" },
		});
		await writeArray(v3, "t2m", { shape: [6], chunks: [3], dataType: "float32", fillValue: 0, values: Float32Array.of(1, 2, 3, 4, 5, 6), dimensionNames: ["time"] });
		await writeArray(v3, "lag", { shape: [6], chunks: [6], dataType: "float32", fillValue: 0, values: Float32Array.of(0.5, 1, 2, 3, 4, 5), dimensionNames: ["time"], attributes: { units: "seconds", dtype: "timedelta64[ns]" } });
	});

	it("xarray's int64 hours (v2): Timestamp<SECOND> every way, Arrow and Parquet", async () => {
		for (const format of ["arrow", "parquet"] as const) {
			const results = await everyWay(path.join(CF, "hourly.zarr"), "time", "t2m", format);
			const first = results.alone;
			expect(first.type).toBe(format === "arrow" ? "Timestamp<SECOND>" : "Timestamp<MILLISECOND>");
			expect(first.metadata).toEqual({ calendar: "proleptic_gregorian", units: "hours since 2020-01-01 00:00:00", "zarr.cf_decoded": "true", "zarr.data_type": '"<i8"' });
			expect(first.values.slice(0, 2)).toEqual(format === "arrow" ? ["1577836800", "1577840400"] : ["1577836800000", "1577840400000"]);
			for (const [way, result] of Object.entries(results)) expect(result, way).toEqual(first);
		}
	});

	it("float counts (v3): the coarsest exact unit (ms) every way, nulls for NaN and _FillValue", async () => {
		for (const format of ["arrow", "parquet"] as const) {
			const results = await everyWay(v3, "time", "t2m", format);
			const first = results.alone;
			expect(first.type).toBe("Timestamp<MILLISECOND>");
			expect(first.metadata).toEqual({
				calendar: "proleptic_gregorian",
				long_name: "time",
				standard_name: "time",
				units: "seconds since 2000-01-01T00:00:00Z",
				"zarr.cf_decoded": "true",
				"zarr.data_type": '"float64"',
			});
			const base = 946_684_800_000;
			expect(first.values).toEqual([base, base + 60_000, null, null, base + 3_600_000, base + 86_400_500].map((v) => (v === null ? null : String(v))));
			for (const [way, result] of Object.entries(results)) expect(result, way).toEqual(first);
		}
	});

	it("xarray's timedelta form keeps its dtype attribute: alone and as a column, Arrow and Parquet", async () => {
		for (const format of ["arrow", "parquet"] as const) {
			const alone = described(await exported(v3, { array: "lag", format }), "lag");
			expect(alone).toEqual({ type: "Duration<MILLISECOND>", nullable: true, metadata: { dtype: "timedelta64[ns]", units: "seconds", "zarr.cf_decoded": "true", "zarr.data_type": '"float32"' }, values: ["500", "1000", "2000", "3000", "4000", "5000"] });
			expect(described(await exported(v3, { columns: ["t2m", "lag"], format }), "lag")).toEqual(alone);
		}
	});

	it("a table opened without reading float counts refuses --unit auto rather than guessing a unit", async () => {
		const table = await openTable(v3, { columns: ["time"], unit: "ns", indexSource: "positions" });
		expect(() => createTableExportStages(table, {})).toThrow(expect.objectContaining({ code: "USAGE", message: expect.stringMatching(/^array time: its float CF time counts were not read/) }));
		expect(createTableExportStages(table, { unit: "ns" }).batcher.schema.fields[0].type.toString()).toBe("Timestamp<NANOSECOND>");
	});

	it("a table whose only column is its index coordinate, exported without the index: that column, as the one call writes it", async () => {
		const table = await openTable(v3, { columns: ["time"], unit: "ms" });
		expect(table.columns).toEqual([]);
		const stages = createTableExportStages(table, { unit: "ms", index: false });
		expect(stages.batcher.schema.fields.map((field) => field.name)).toEqual(["time"]);
		expect(stages.table.columns.map((column) => column.name)).toEqual(["time"]);
		stages.reader.destroy();
		expect(createTableExportStages(table, { unit: "ms", index: true }).batcher.schema.fields.map((field) => field.name)).toEqual(["time"]);
	});
});

describe("a CF time array that is the store root", () => {
	it("exports through the CLI, v2 (xarray) and v3 (by hand), as a root datetime64 array does", async () => {
		const v3 = path.join(work, "root-v3.zarr");
		await writeArray(v3, "", { shape: [3], chunks: [2], dataType: "int32", fillValue: -9, values: Int32Array.of(0, -9, 90), attributes: { units: "minutes since 2000-01-01", calendar: "standard", _FillValue: -9 } });
		for (const [store, column, expected] of [
			[path.join(CF, "hourly.zarr/time"), "time", ["1577836800", "1577840400"]],
			[v3, "root-v3", ["946684800", null]],
		] as const) {
			const output = path.join(work, `${column}.arrow`);
			const result = runCli([store, "-o", output]);
			expect(result.stderr).toMatch(/^wrote \d+ rows to /);
			expect(result.status).toBe(0);
			const table = tableFromIPC(fs.readFileSync(output));
			const column0 = described(table, column);
			expect(column0.type).toBe("Timestamp<SECOND>");
			expect(column0.metadata["zarr.cf_decoded"]).toBe("true");
			expect(column0.values.slice(0, 2)).toEqual(expected);
		}
	});

	it("a refused root CF array is one line naming it, exit 1, nothing at -o", () => {
		const output = path.join(work, "refused.arrow");
		const result = runCli([path.join(CF, "months-since.zarr/time"), "-o", output]);
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^dt64-export: array \(the store root\): units "months since 2000-01-01": months are not a fixed duration[^\n]*\n$/);
		expect(fs.existsSync(output)).toBe(false);
	});
});

describe("a CF time array whose codec this package does not read", () => {
	// A v2 int64 CF time array with a numcodecs filter this package lacks: whether it is a time array is a question of
	// its data type and attributes, so every path says it is one and refuses it for the codec, naming it.
	const FILTER = /filters\[0\]: codec id "fixedscaleoffset" is not supported/;
	let store: string;
	beforeAll(() => {
		store = path.join(work, "cf-unsupported-filter.zarr");
		fs.mkdirSync(path.join(store, "time"), { recursive: true });
		fs.writeFileSync(path.join(store, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
		const filter = { id: "fixedscaleoffset", offset: 0, scale: 1, dtype: "<i8" };
		fs.writeFileSync(path.join(store, "time/.zarray"), JSON.stringify({ zarr_format: 2, shape: [2], chunks: [2], dtype: "<i8", fill_value: -1, order: "C", compressor: null, filters: [filter] }));
		fs.writeFileSync(path.join(store, "time/.zattrs"), JSON.stringify({ units: "seconds since 2000-01-01", calendar: "standard", _ARRAY_DIMENSIONS: ["time"] }));
	});

	it("is found, named or the store root: UNSUPPORTED naming the codec, not 'no CF time array' or 'not a time'", async () => {
		for (const [at, options] of [
			[store, {}],
			[store, { array: "time" }],
			[path.join(store, "time"), {}],
		] as const) {
			const error = await exported(at, options).then(
				() => undefined,
				(thrown: unknown) => thrown as { code?: string; message: string },
			);
			expect(error?.code).toBe("UNSUPPORTED");
			expect(error?.message).toMatch(FILTER);
		}
	});

	it("inspect shows it as a CF time array, not exportable for the codec", async () => {
		const report = await inspectStore(store);
		const node = report.nodes.find((entry) => entry.path === "time");
		expect(node).toMatchObject({ cfTime: "seconds since 2000-01-01, standard", exportable: false, reason: expect.stringMatching(FILTER) });
	});
});
