/**
 * CopiedRows, the copies a dataset writer holds of a partition's rows: runs of rows of sliced batches, of every
 * column layout the exports produce (64-bit and narrower numbers, bits, text, nulls), come out as one batch of the
 * same values, whose memory is its own.
 */
import { Bool, Field, Float32, Int32, makeData, RecordBatch, Schema, Struct, Timestamp, TimeUnit, Uint64, Utf8, type Data } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { CopiedRows } from "../src/arrow/copied-rows.js";

const schema = new Schema([
	new Field("time", new Timestamp(TimeUnit.NANOSECOND, null), true),
	new Field("big", new Uint64(), false),
	new Field("count", new Int32(), false),
	new Field("ratio", new Float32(), true),
	new Field("ok", new Bool(), false),
	new Field("name", new Utf8(), false),
]);

interface Row {
	time: bigint | null;
	big: bigint;
	count: number;
	ratio: number | null;
	ok: boolean;
	name: string;
}

const rowAt = (i: number): Row => ({
	time: i % 7 === 3 ? null : 2n ** 62n + BigInt(i) * 1_000_000_007n,
	big: 2n ** 64n - 1n - BigInt(i),
	count: i - 50,
	ratio: i % 5 === 0 ? null : i / 4,
	ok: i % 3 === 1,
	name: i % 4 === 0 ? "" : `é${"x".repeat(i % 9)}${i}`,
});

function bitsOf(flags: boolean[]): Uint8Array {
	const bits = new Uint8Array(Math.ceil(flags.length / 8));
	flags.forEach((flag, i) => (bits[i >> 3] |= flag ? 1 << (i & 7) : 0));
	return bits;
}

function batchOf(rows: Row[]): RecordBatch {
	const text = rows.map((row) => Buffer.from(row.name, "utf8"));
	const offsets = new Int32Array(rows.length + 1);
	text.forEach((bytes, i) => (offsets[i + 1] = offsets[i] + bytes.length));
	const timeNulls = rows.filter((row) => row.time === null).length;
	const ratioNulls = rows.filter((row) => row.ratio === null).length;
	const children: Data[] = [
		makeData({ type: schema.fields[0].type, length: rows.length, nullCount: timeNulls, nullBitmap: bitsOf(rows.map((row) => row.time !== null)), data: BigInt64Array.from(rows, (row) => row.time ?? 0n) } as never),
		makeData({ type: new Uint64(), length: rows.length, data: BigUint64Array.from(rows, (row) => row.big) }),
		makeData({ type: new Int32(), length: rows.length, data: Int32Array.from(rows, (row) => row.count) }),
		makeData({ type: new Float32(), length: rows.length, nullCount: ratioNulls, nullBitmap: bitsOf(rows.map((row) => row.ratio !== null)), data: Float32Array.from(rows, (row) => row.ratio ?? 0) }),
		makeData({ type: new Bool(), length: rows.length, data: bitsOf(rows.map((row) => row.ok)) }),
		makeData({ type: new Utf8(), length: rows.length, valueOffsets: offsets, data: new Uint8Array(Buffer.concat(text)) }),
	];
	return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children }));
}

const rowsOf = (batch: RecordBatch) => batch.toArray().map((row) => ({ ...row.toJSON() }));

describe("copied rows", () => {
	it("hold runs of rows of sliced batches, bits and text at any offset, nulls where they were", () => {
		const all = Array.from({ length: 100 }, (_, i) => rowAt(i));
		// A batch of rows 0..99 sliced at 13, so that every column has an offset (bits not on a byte boundary).
		const batch = batchOf(all).slice(13, 100);
		const runs: [number, number][] = [
			[0, 1],
			[5, 6],
			[2, 4],
			[10, 40],
			[40, 41],
			[60, 87],
			[41, 41],
		];
		const copied = new CopiedRows(schema);
		for (const [from, to] of runs) copied.append(batch, from, to);
		const expected = runs.flatMap(([from, to]) => all.slice(13 + from, 13 + to));
		expect(copied.rows).toBe(expected.length);
		const result = copied.toBatch();
		expect(result.schema.fields).toEqual(schema.fields);
		expect(rowsOf(result)).toEqual(rowsOf(batchOf(expected)));
		expect(result.getChild("time")!.nullCount).toBe(expected.filter((row) => row.time === null).length);
	});

	it("have no validity bits until a null comes, and say the memory they take", () => {
		const copied = new CopiedRows(schema);
		const withoutNulls = batchOf(Array.from({ length: 20 }, (_, i) => rowAt(i * 7 + 1)).map((row) => ({ ...row, ratio: 1.5 })));
		copied.append(withoutNulls, 0, 20);
		expect(copied.toBatch().getChild("ratio")!.data[0].nullBitmap).toHaveLength(0);
		const before = copied.bytes;
		const more = Array.from({ length: 300 }, (_, i) => rowAt(i));
		copied.append(batchOf(more), 0, 300);
		expect(copied.bytes).toBeGreaterThan(before + 300 * (8 + 8 + 4 + 4));
		expect(rowsOf(copied.toBatch())).toEqual(rowsOf(batchOf([...Array.from({ length: 20 }, (_, i) => ({ ...rowAt(i * 7 + 1), ratio: 1.5 })), ...more])));
	});
});
