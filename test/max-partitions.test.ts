/**
 * `maxPartitions` (`--max-partitions`): a run whose rows fall in more Hive partitions than the bound is refused
 * (TOO_LARGE, naming the bound and how to raise it) before the first partition past it gets a file, and leaves the
 * folder as it was: nothing of a new dataset, and a dataset it was replacing (`overwrite`) still committed. A time
 * range that spans more partitions is refused before anything is read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Field, Float64, makeData, RecordBatch, Schema, Struct, Timestamp, TimeUnit } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportDataset } from "../src/index.js";
import { DatasetWriter } from "../src/output/dataset-writer.js";
import { digestOptions } from "../src/output/manifest.js";
import { partitionsSpanned } from "../src/output/partition-bound.js";
import { parseTimeBounds } from "../src/select/time-bounds.js";
import { createParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import { runCli, tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";

const T0 = BigInt(Date.UTC(2021, 0, 30) / 1000);

/** 96 hourly times from 2021-01-30 (four days), in chunks of 12 rows; `shuffled`: out of order. */
async function hourlyStore(shuffled = false): Promise<string> {
	const store = path.join(tempDir(), "hourly.zarr");
	const order = Array.from({ length: 96 }, (_, i) => (shuffled ? (i * 37) % 96 : i));
	const values = BigInt64Array.from(order, (i) => T0 + BigInt(i) * 3600n);
	await writeArray(store, "", { shape: [96], chunks: [12], values, dimensionNames: ["time"] });
	return store;
}

/** Everything under `folder`, relative, with each file's bytes. */
function contents(folder: string): Record<string, string> {
	if (!fs.existsSync(folder)) return {};
	const entries = fs.readdirSync(folder, { recursive: true, withFileTypes: true });
	return Object.fromEntries(
		entries.map((entry) => {
			const full = path.join(entry.parentPath, entry.name);
			return [path.relative(folder, full), entry.isDirectory() ? "/" : fs.readFileSync(full).toString("base64")];
		}),
	);
}

describe("maxPartitions", () => {
	it("refuses a run whose rows fall in more partitions, leaving nothing behind", async () => {
		for (const shuffled of [false, true]) {
			const store = await hourlyStore(shuffled);
			const folder = path.join(tempDir(), "out.parquet");
			const error = await rejection(exportDataset(store, folder, { partitionBy: "day", maxPartitions: 3 }));
			expect(error).toMatchObject({ code: "TOO_LARGE", option: "maxPartitions", value: 3, path: folder });
			expect(error.message).toContain("more than 3 partitions by day");
			expect(error.message).toContain("raise `maxPartitions`");
			expect(fs.existsSync(folder)).toBe(false);
			const summary = await exportDataset(store, folder, { partitionBy: "day", maxPartitions: 4 });
			expect(summary.files).toHaveLength(4);
		}
	});

	it("opens no file for the partition past the bound", async () => {
		const HOUR_MS = 3_600_000n;
		const schema = new Schema([new Field("time", new Timestamp(TimeUnit.MILLISECOND, null), true), new Field("value", new Float64(), true)]);
		const times = BigInt64Array.from({ length: 72 }, (_, i) => T0 * 1000n + BigInt(i) * HOUR_MS);
		const children = [makeData({ type: schema.fields[0].type, length: 72, data: times }), makeData({ type: new Float64(), length: 72, data: new Float64Array(72) })];
		const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 72, nullCount: 0, children }));
		const folder = path.join(tempDir(), "out.parquet");
		let opened = 0;
		const { options, digest } = digestOptions({ partitionBy: "hour" });
		const writer = new DatasetWriter({
			folder,
			part: { index: 0, count: 1 },
			extension: "parquet",
			createFileWriter: () => {
				opened++;
				return createParquetWriter();
			},
			timeColumn: "time",
			timeUnit: "ms",
			partitionBy: "hour",
			maxPartitions: 5,
			options,
			optionsDigest: digest,
		});
		await expect(pipeline(Readable.from([batch.slice(0, 3), batch.slice(3)]), writer)).rejects.toMatchObject({ code: "TOO_LARGE", value: 5 });
		expect(opened).toBe(3);
		expect(fs.existsSync(folder)).toBe(false);
	});

	it("leaves the dataset it was replacing (overwrite) committed and untouched, with nothing staged", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "out.parquet");
		await exportDataset(store, folder, { partitionBy: "day" });
		const before = contents(folder);
		expect(Object.keys(before)).toContain("_SUCCESS");
		await expect(exportDataset(store, folder, { partitionBy: "hour", maxPartitions: 50, overwrite: true })).rejects.toMatchObject({ code: "TOO_LARGE", value: 50 });
		expect(contents(folder)).toEqual(before);
	});

	it("refuses a time range that spans more partitions before anything is read", async () => {
		// No store at all: the refusal comes before it is opened.
		const missing = path.join(tempDir(), "no-such.zarr");
		const folder = path.join(tempDir(), "out.parquet");
		const error = await rejection(exportDataset(missing, folder, { partitionBy: "month", start: "2020-01-15", end: "2021-01-01", maxPartitions: 11 }));
		expect(error).toMatchObject({ code: "TOO_LARGE", option: "maxPartitions", value: 11 });
		expect(error.message).toContain("spans 12 partitions by month");
		expect(fs.existsSync(folder)).toBe(false);
		await expect(exportDataset(missing, folder, { partitionBy: "month", start: "2020-01-15", end: "2021-01-01", maxPartitions: 12 })).rejects.toMatchObject({ code: "STORE_NOT_FOUND" });
	});

	it("counts the partitions a range spans, first and last included", () => {
		const span = (start: string, end: string, level: "year" | "month" | "day" | "hour") => partitionsSpanned(parseTimeBounds(start, end), level);
		expect(span("2020-01-01", "2021-01-01", "year")).toBe(1n);
		expect(span("2020-01-01", "2021-01-01T00:00:01", "year")).toBe(2n);
		expect(span("2020-02-01", "2020-03-01", "day")).toBe(29n);
		expect(span("2020-02-01T10:30", "2020-02-01T12:00", "hour")).toBe(2n);
		expect(span("1969-12-31T23:00", "1970-01-01T01:00", "hour")).toBe(2n);
		expect(span("2020-12-01", "2021-02-01", "month")).toBe(2n);
	});

	it("is refused without partitionBy, and is not a number of partitions below 1", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "out.parquet");
		await expect(exportDataset(store, folder, { part: "0/1", maxPartitions: 3 })).rejects.toMatchObject({ code: "USAGE", option: "maxPartitions" });
		await expect(exportDataset(store, folder, { partitionBy: "day", maxPartitions: 0 })).rejects.toMatchObject({ code: "USAGE", option: "maxPartitions" });
	});

	it("CLI: --max-partitions names itself in the refusal, and warns when given without --partition-by", async () => {
		const store = await hourlyStore();
		const folder = path.join(tempDir(), "out.parquet");
		const refused = runCli([store, "--partition-by", "day", "--max-partitions", "2", "-o", folder, "-q"]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toMatch(/more than 2 partitions by day.*raise --max-partitions.*\[TOO_LARGE\]\n$/);
		expect(refused.stderr.split("\n")).toHaveLength(2);
		expect(fs.existsSync(folder)).toBe(false);
		const ranged = runCli([store, "--partition-by", "hour", "--start", "2021-01-30", "--end", "2021-02-02", "--max-partitions", "48", "-o", folder, "-q"]);
		expect(ranged.status).toBe(1);
		expect(ranged.stderr).toContain("spans 72 partitions by hour, more than the 48 --max-partitions allows");
		const file = path.join(tempDir(), "out.arrow");
		const warned = runCli([store, "--max-partitions", "2", "-o", file, "-q"]);
		expect(warned.status).toBe(0);
		expect(warned.stderr).toContain("--max-partitions does nothing here: it applies with --partition-by");
		// Set for a job's every run, it says nothing where it does not apply.
		const quiet = runCli([store, "-o", path.join(tempDir(), "out.arrow"), "-q"], { env: { DT64_EXPORT_MAX_PARTITIONS: "2" } });
		expect(quiet).toMatchObject({ status: 0, stderr: "" });
	});
});
