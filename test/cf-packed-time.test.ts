/**
 * Packed CF time (`scale_factor`, `add_offset`), as xarray writes it when its `encoding` asks (test/fixtures/packed-time,
 * made by test/golden/make_packed_time_fixtures.py): the counts are masked, unpacked, then decoded, as xarray's
 * decode_cf does, on every path: the array exported alone, as the index of a data variable, a time range over it and
 * inspect's first and last values. Attributes that cannot unpack are refused, never ignored.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/export.js";
import type { ExportOptions } from "../src/export-plan.js";
import { formatInspectReport, inspectReportToJson, inspectStore } from "../src/inspect.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";

const FIXTURES = path.join(REPO, "test/fixtures/packed-time");

interface PackedCase {
	dtype: string;
	attributes: Record<string, unknown>;
	instants: (string | null)[];
	from: { start: string; v: number[] };
	unpacked_dtype: string;
}

const CASES = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, PackedCase>;
const query = useDuckDB();
/** Nanoseconds per value of each Arrow TimeUnit (SECOND = 0 ... NANOSECOND = 3). */
const NS_PER_UNIT: readonly bigint[] = [1_000_000_000n, 1_000_000n, 1_000n, 1n];

const exported = (store: string, options: ExportOptions): Promise<Table> => exportedArrow((sink) => exportTable(store, sink, { format: "arrow", ...options }));

/** A column's values: exact nanoseconds (strings, null for null) for a time column, numbers otherwise. */
function column(table: Table, name: string): (string | number | null)[] {
	const index = table.schema.fields.findIndex((field) => field.name === name);
	const type = table.schema.fields[index].type as { unit?: number };
	const out: (string | number | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(index)!.data[0];
		for (let i = 0; i < data.length; i++) {
			if (!data.getValid(i)) out.push(null);
			else if (type.unit === undefined) out.push(Number(data.values[i]));
			else out.push(String((data.values as BigInt64Array)[i] * NS_PER_UNIT[type.unit]));
		}
	}
	return out;
}

describe("packed CF time written by xarray", () => {
	it.each(Object.keys(CASES))("%s: every value is the instant xarray decodes", async (name) => {
		const table = await exported(path.join(FIXTURES, `${name}.zarr`), { array: "time" });
		expect(column(table, "time")).toEqual(CASES[name].instants);
	});

	it.each(Object.keys(CASES))("%s: the index of its data variable, and a time range over it, as xarray selects", async (name) => {
		const store = path.join(FIXTURES, `${name}.zarr`);
		const whole = await exported(store, { columns: ["v"], index: true });
		expect(column(whole, "time")).toEqual(CASES[name].instants);
		const { start, v } = CASES[name].from;
		const selected = await exported(store, { columns: ["v"], index: true, start });
		expect(column(selected, "v")).toEqual(v);
	});

	it("chooses --unit auto's unit from the unpacked counts", async () => {
		const unitOf = async (name: string) => String((await exported(path.join(FIXTURES, `${name}.zarr`), { array: "time" })).schema.fields[0].type);
		expect(await unitOf("int16-scale")).toBe("Timestamp<SECOND>");
		expect(await unitOf("int16-quarter-seconds")).toBe("Timestamp<MILLISECOND>");
		expect(await unitOf("int32-offset-fill")).toBe("Timestamp<SECOND>");
	});

	it("shows the unpacked first and last values in inspect", async () => {
		const report = await inspectStore(path.join(FIXTURES, "int16-scale.zarr"));
		const time = report.nodes.find((node) => node.path === "time")!;
		expect(time.first).toMatchObject({ status: "found", row: 0, iso: "2000-01-01T00:00:00" });
		expect(time.last).toMatchObject({ status: "found", row: 5, iso: "2000-01-03T12:00:00" });
	});

	it.each(Object.keys(CASES))("%s: inspect says how the counts unpack, in the type xarray unpacks them to, and the Arrow type they decode to", async (name) => {
		const report = await inspectStore(path.join(FIXTURES, `${name}.zarr`));
		const time = report.nodes.find((node) => node.path === "time")!;
		const { scale_factor: scaleFactor, add_offset: addOffset } = CASES[name].attributes;
		const countType = { "<i2": "int16", "<i4": "int32" }[CASES[name].dtype];
		expect(time.cfPacking).toEqual({ countType, scaleFactor, ...(addOffset === undefined ? {} : { addOffset }), unpackedType: CASES[name].unpacked_dtype });
		const json = JSON.parse(inspectReportToJson(report)) as { nodes: { path: string; cfPacking?: unknown; arrowType?: string }[] };
		expect(json.nodes.find((node) => node.path === "time")).toMatchObject({ cfPacking: time.cfPacking, arrowType: time.arrowType });
		const offset = addOffset === undefined ? "" : ` + add_offset ${addOffset}`;
		expect(formatInspectReport(report)).toContain(`  packed      ${countType} counts × scale_factor ${scaleFactor}${offset}, unpacked in ${CASES[name].unpacked_dtype} (CF's rule), then decoded to ${time.arrowType}\n`);
		// A CF time array is no companion column: nothing of the companion's decoding describes it (trial 23b, 09).
		expect(json.nodes.find((node) => node.path === "time")).not.toHaveProperty("cfDecoding");
		expect(formatInspectReport(report)).not.toContain("as stored without CF decoding");
	});

	it("keeps scale_factor and add_offset in the field metadata, in Arrow IPC and in Parquet's ARROW:schema", async () => {
		const work = tempDir("dt64-packed-meta-");
		const store = path.join(FIXTURES, "int32-offset-fill.zarr");
		const ipc = path.join(work, "time.arrow");
		expect(runCli([store, "--columns", "v", "--index", "-o", ipc]).status).toBe(0);
		const metadata = readArrow(ipc).schema.fields.find((field) => field.name === "time")!.metadata;
		expect([metadata.get("scale_factor"), metadata.get("add_offset"), metadata.get("units"), metadata.get("zarr.cf_decoded")]).toEqual(["0.5", "-60", "minutes since 2000-01-01", "true"]);
		const parquet = path.join(work, "time.parquet");
		expect(runCli([store, "--array", "time", "-o", parquet]).status).toBe(0);
		const rows = await query(`SELECT value FROM parquet_kv_metadata('${parquet}') WHERE key = 'ARROW:schema'`);
		// The base64 text of the Arrow IPC schema message, whose field metadata keys and values are plain bytes.
		const schema = Buffer.from(Buffer.from((rows[0][0] as { bytes: Uint8Array }).bytes).toString("latin1"), "base64").toString("latin1");
		for (const text of ["scale_factor", "0.5", "add_offset", "-60", "zarr.cf_decoded"]) expect(schema).toContain(text);
		// Without an add_offset, none is recorded.
		const scaled = path.join(work, "scaled.arrow");
		expect(runCli([path.join(FIXTURES, "int16-scale.zarr"), "--array", "time", "-o", scaled]).status).toBe(0);
		const scaledMetadata = readArrow(scaled).schema.fields[0].metadata;
		expect([scaledMetadata.get("scale_factor"), scaledMetadata.has("add_offset")]).toEqual(["12", false]);
	});
});

describe("packing attributes that cannot unpack", () => {
	const work = tempDir("dt64-packed-time-");
	const store = async (name: string, attributes: Record<string, unknown>) => {
		const root = path.join(work, `${name}.zarr`);
		await writeArray(root, "", { shape: [4], chunks: [4], dataType: "int64", fillValue: 0n, values: BigInt64Array.of(0n, 1n, 2n, 3n), attributes: { units: "days since 2000-01-01", ...attributes } });
		return root;
	};

	it("refuses a scale_factor that is no finite number, naming it", async () => {
		await expect(exported(await store("nan", { scale_factor: "NaN" }), {})).rejects.toMatchObject({ code: "METADATA_INVALID", field: "scale_factor", message: expect.stringMatching(/scale_factor must be a finite number, got "NaN"/) });
	});

	it("refuses counts that unpack outside every unit, naming the stored count and its unpacking", async () => {
		await expect(exported(await store("huge", { add_offset: 1e308 }), {})).rejects.toMatchObject({ code: "OVERFLOW", message: expect.stringMatching(/^value 0 \(unpacked to 1e\+308\) of int64 CF time \(days since 2000-01-01, standard, add_offset 1e\+308\) at /) });
	});

	it("unpacks a zero scale_factor to the reference, as xarray does", async () => {
		const table = await exported(await store("zero", { scale_factor: 0 }), {});
		expect(column(table, table.schema.fields[0].name)).toEqual(Array(4).fill("946684800000000000"));
	});
});
