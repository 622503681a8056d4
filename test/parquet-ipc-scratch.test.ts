import { describe, expect, it } from "vitest";
import { Field, makeData, RecordBatch, Schema, Struct, Table, tableToIPC, TimestampNanosecond, Utf8, vectorFromArray } from "apache-arrow";
import { IpcScratch } from "../src/stream/parquet/batch-feed.js";

function timestamps(length: number, seed: number): RecordBatch {
	const type = new TimestampNanosecond("UTC");
	const values = BigInt64Array.from({ length }, (_, i) => BigInt(seed) * 1_000_000_007n + BigInt(i) * 3_600_000_000_000n);
	// A null every 7 rows, so the batch has a validity bitmap.
	const bitmap = new Uint8Array(Math.ceil(length / 8)).fill(0xff);
	let nulls = 0;
	for (let i = 0; i < length; i += 7, nulls++) bitmap[i >> 3] &= ~(1 << (i & 7));
	const time = makeData({ type, length, nullCount: nulls, data: values, nullBitmap: bitmap });
	const names = vectorFromArray(Array.from({ length }, (_, i) => (i % 5 === 0 ? null : `row ${seed}-${i}`)), new Utf8()).data[0];
	const schema = new Schema([new Field("time", type, true), new Field("name", new Utf8(), true)]);
	return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: [time, names] }));
}

describe("IpcScratch: a batch's IPC stream bytes in a buffer kept between batches", () => {
	it("gives tableToIPC's bytes, batch after batch, as the buffer grows and as batches get smaller again", () => {
		const scratch = new IpcScratch();
		for (const [length, seed] of [
			[10, 1],
			[70_000, 2],
			[3, 3],
			[0, 4],
			[200_000, 5],
			[65_536, 6],
		]) {
			const batch = timestamps(length, seed);
			const bytes = scratch.encode(batch);
			expect(Buffer.from(bytes).equals(Buffer.from(tableToIPC(new Table(batch), "stream")))).toBe(true);
		}
	});

	it("a slice of a batch (offset into its buffers) encodes as tableToIPC encodes it", () => {
		const batch = timestamps(100_000, 7);
		const slice = batch.slice(65_536, 100_000);
		expect(Buffer.from(new IpcScratch().encode(slice)).equals(Buffer.from(tableToIPC(new Table(slice), "stream")))).toBe(true);
	});
});
