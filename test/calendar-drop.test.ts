/**
 * `dropInvalidDates` (`--drop-invalid-dates`) beside the other rules that make rows null or leave them out: a missing
 * time and an overflowed one stay null rows, seconds written to Parquet as milliseconds, rows in chunk order, N-d
 * variables over the time coordinate, unsorted time with a range, and a CF time column that is no time coordinate
 * (still refused). xarray's own rows are checked in calendar-drop-golden.test.ts.
 */
import * as path from "node:path";
import type { Table } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import type { ExportOptions } from "../src/export-plan.js";
import { exportSelection } from "../src/export-selection.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { tempDir } from "./support/cli.js";
import { useDuckDB } from "./support/duckdb.js";
import { exactNanoseconds } from "./support/exact-nanoseconds.js";

const work = tempDir("dt64-calendar-drop-");
const query = useDuckDB();
const DAY_NS = 86_400n * 10n ** 9n;
const dayNs = (iso: string) => String(BigInt(Date.parse(`${iso}T00:00:00Z`)) * 1_000_000n);

const exported = (store: string, options: ExportOptions) => {
	let summary: Awaited<ReturnType<typeof exportSelection>> | undefined;
	return exportedArrow(async (sink) => {
		summary = await exportSelection(store, sink, { format: "arrow", ...options });
	}).then((table) => ({ table, summary: summary! }));
};

/**
 * A 360_day store: time (days since 2000-01-01, int32, _FillValue -1) over `days`, and tas(time, y, x) holding the
 * flat position, chunked along time by `chunk`.
 */
async function store(name: string, days: number[], chunk: number, extra: Record<string, unknown> = {}): Promise<string> {
	const at = path.join(work, `${name}.zarr`);
	await writeGroup(at, "");
	await writeArray(at, "time", { shape: [days.length], chunks: [chunk], values: Int32Array.from(days), dataType: "int32", fillValue: -1, attributes: { units: "days since 2000-01-01", calendar: "360_day", _FillValue: -1, ...extra }, dimensionNames: ["time"] });
	await writeArray(at, "tas", { shape: [days.length, 2, 2], chunks: [chunk, 1, 2], values: Float32Array.from({ length: days.length * 4 }, (_, k) => k), dataType: "float32", fillValue: 0, dimensionNames: ["time", "y", "x"] });
	return at;
}

const tasOf = (table: Table) => Array.from(table.getChild("tas")!.toArray() as Float32Array);
/** The tas values of the time rows given: 4 per time (y, x). */
const rowsOf = (times: number[]) => times.flatMap((row) => [4 * row, 4 * row + 1, 4 * row + 2, 4 * row + 3]);

describe("dropInvalidDates", () => {
	// 2000-02-28, -29 (no proleptic date? 2000 is leap: it exists), -30 (does not), missing, 2000-03-01, 2300-01-01 (past ns).
	const days = [57, 58, 59, -1, 60, 300 * 360];

	it("a missing time and an overflowed one stay null rows (--on-overflow null counts its rows), only the date that does not exist is left out, every y and x of it", async () => {
		const at = await store("nulls", days, 4);
		const { table, summary } = await exported(at, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true, unit: "ns", onOverflow: "null" });
		expect(exactNanoseconds(table, "time")).toEqual([dayNs("2000-02-28"), dayNs("2000-02-29"), null, dayNs("2000-03-01"), null].flatMap((time) => [time, time, time, time]));
		expect(tasOf(table)).toEqual(rowsOf([0, 1, 3, 4, 5]));
		expect(summary).toMatchObject({ rows: 20, droppedInvalidDates: 4, overflowNulls: { time: 4 } });
	});

	it("seconds written to Parquet as milliseconds, and rows in chunk order, leave the same rows out", async () => {
		const at = await store("parquet", days.slice(0, 5), 2);
		const file = path.join(work, "seconds.parquet");
		const { exportToFile } = await import("../src/export.js");
		const written = await exportToFile(at, file, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true, unit: "s", order: "chunk" });
		expect(written.droppedInvalidDates).toBe(4);
		const rows = await query(`SELECT epoch_ms("time"), tas FROM read_parquet('${file}') ORDER BY tas`);
		expect(rows.map((row) => [row[0] === null ? null : String(BigInt(row[0] as number) * 1_000_000n), Number(row[1])])).toEqual(
			[0, 1, 3, 4].flatMap((row) => rowsOf([row]).map((tas) => [[dayNs("2000-02-28"), dayNs("2000-02-29"), null, null, dayNs("2000-03-01")][row], tas])),
		);
	});

	it("unsorted time with a range: every row filtered, a date left out counted only in the range of its month", async () => {
		// 2001-02-30 between 2001-03 and 2000-01 dates: no sorted search.
		const unsorted = [360 + 70, 360 + 59, 5, 360 + 57];
		const at = await store("unsorted", unsorted, 2);
		const febOnly = await exported(at, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true, start: "2001-02-01", end: "2001-03-01" });
		expect(febOnly.summary).toMatchObject({ rows: 4, droppedInvalidDates: 4, selection: { sorted: false } });
		expect(tasOf(febOnly.table)).toEqual(rowsOf([3]));
		const march = await exported(at, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true, start: "2001-03-01" });
		expect(march.summary).toMatchObject({ rows: 4, droppedInvalidDates: 0 });
		expect(tasOf(march.table)).toEqual(rowsOf([0]));
	});

	it("a batch whose every row is left out writes nothing, the export goes on; a table of no row left is an empty file with the columns", async () => {
		const at = await store("all-dropped", [59, 58 + 360, 59 + 360, 60 + 360], 1);
		const { table, summary } = await exported(at, { array: "time", convertCalendar: true, dropInvalidDates: true });
		expect(exactNanoseconds(table, "time")).toEqual([dayNs("2001-03-01")]);
		expect(summary).toMatchObject({ rows: 1, droppedInvalidDates: 3 });
		const none = await store("none-left", [59, 59 + 360], 1);
		const empty = await exported(none, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true });
		expect(empty.table.numRows).toBe(0);
		expect(empty.table.schema.fields.map((field) => field.name)).toEqual(["time", "y", "x", "tas"]);
		expect(empty.summary).toMatchObject({ rows: 0, droppedInvalidDates: 8 });
	});

	it("the time coordinate named among the columns, without index columns, leaves the rows of its dates out too", async () => {
		const at = await store("named", days.slice(0, 5), 2);
		const { table, summary } = await exported(at, { columns: ["time", "tas"], convertCalendar: true, dropInvalidDates: true });
		expect(table.schema.fields.map((field) => field.name)).toEqual(["time", "tas"]);
		expect(tasOf(table)).toEqual(rowsOf([0, 1, 3, 4]));
		expect(summary.droppedInvalidDates).toBe(4);
	});

	it("a CF time column that is no time coordinate (an auxiliary time) still refuses a date that does not exist", async () => {
		const at = await store("aux", [57, 58], 2);
		await writeArray(at, "valid_time", { shape: [2], chunks: [2], values: Int32Array.from([59, 60]), dataType: "int32", fillValue: -1, attributes: { units: "days since 2000-01-01", calendar: "360_day" }, dimensionNames: ["time"] });
		await expect(exported(at, { columns: ["tas", "valid_time"], index: true, convertCalendar: true, dropInvalidDates: true })).rejects.toMatchObject({ code: "VALUE_INVALID", message: expect.stringContaining("valid_time") });
	});

	it("the marks never reach a reader: the slots under the time column's nulls, as written, are 0 or the overflow mark", async () => {
		const at = await store("slots", days, 3);
		const { table } = await exported(at, { columns: ["tas"], index: true, convertCalendar: true, dropInvalidDates: true, unit: "ns", onOverflow: "null" });
		const slots = table.batches.flatMap((batch) => Array.from(batch.getChild("time")!.data[0].values as BigInt64Array));
		expect(slots.every((slot) => slot >= 0n && (slot % DAY_NS === 0n || slot === 2n ** 63n - 1n))).toBe(true);
	});
});
