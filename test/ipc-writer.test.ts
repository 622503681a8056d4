import { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { setTimeout as delay } from "node:timers/promises";
import { RecordBatch, Schema, Struct, Field, Timestamp, TimeUnit, makeData, tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { IpcWriter } from "../src/stream/ipc-writer.js";

const type = new Timestamp(TimeUnit.SECOND, null);
const schema = new Schema([new Field("time", type, true)]);

function batch(first: number, length: number): RecordBatch {
	const values = new BigInt64Array(length);
	for (let i = 0; i < length; i++) values[i] = BigInt(first + i);
	const column = makeData({ type, length, nullCount: 0, data: values });
	return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children: [column] }));
}

/** A source of `count` batches that records how many were pulled. */
function countingSource(count: number, rows: number) {
	const state = { pulled: 0 };
	const stream = new Readable({
		objectMode: true,
		highWaterMark: 1,
		read() {
			this.push(state.pulled < count ? batch(state.pulled++ * rows, rows) : null);
		},
	});
	return { stream, state };
}

describe("IpcWriter", () => {
	it("holds batches back while its reader is behind (backpressure), instead of encoding them all", async () => {
		const { stream, state } = countingSource(50, 100_000);
		const writer = new IpcWriter("file", schema);
		stream.pipe(writer);
		await delay(200);
		// Nobody reads the bytes: a few batches are buffered along the way, not the 50 (40 MB) of the source.
		expect(state.pulled).toBeLessThanOrEqual(5);
		expect(writer.readableLength).toBeLessThanOrEqual(2 * 800_000 + 64 * 1024);
		stream.destroy();
		writer.destroy();
	});

	for (const format of ["file", "stream"] as const) {
		it(`writes a readable IPC ${format} through a slow consumer`, async () => {
			const { stream } = countingSource(12, 10_000);
			const pieces: Buffer[] = [];
			const slow = new Writable({
				highWaterMark: 1024,
				write(chunk: Buffer, _encoding, callback) {
					pieces.push(Buffer.from(chunk));
					setImmediate(callback);
				},
			});
			await pipeline(stream, new IpcWriter(format, schema), slow);
			const table = tableFromIPC(Buffer.concat(pieces));
			expect(table.numRows).toBe(120_000);
			expect(table.getChild("time")!.get(119_999)).toBe(119_999_000);
		});
	}
});
