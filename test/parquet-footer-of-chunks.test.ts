import { describe, expect, it } from "vitest";
import { footerOfChunks, footerRowCount } from "../src/stream/parquet/footer.js";
import { createParquetWriter } from "../src/stream/parquet/parquet-writer.js";
import { Field, makeData, RecordBatch, Schema, Struct, TimestampNanosecond } from "apache-arrow";

async function parquetBytes(rows: number): Promise<Buffer> {
	const type = new TimestampNanosecond("UTC");
	const schema = new Schema([new Field("time", type, true)]);
	const time = makeData({ type, length: rows, nullCount: 0, data: BigInt64Array.from({ length: rows }, (_, i) => BigInt(i) * 1_000_000_000n) });
	const writer = createParquetWriter({ rowGroupRows: 1000 });
	const chunks: Buffer[] = [];
	writer.on("data", (chunk: Buffer) => chunks.push(chunk));
	const ended = new Promise<void>((resolve, reject) => {
		writer.on("end", resolve);
		writer.on("error", reject);
	});
	writer.end(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows, nullCount: 0, children: [time] })));
	await ended;
	return Buffer.concat(chunks);
}

/** `file` cut into chunks at `cuts` (offsets from its end). */
function cut(file: Buffer, cuts: number[]): Buffer[] {
	const offsets = [0, ...cuts.map((c) => file.length - c).sort((a, b) => a - b), file.length];
	return offsets.slice(1).map((end, i) => file.subarray(offsets[i], end));
}

describe("footerOfChunks: a written file's footer from its last chunks, copying only those", () => {
	it("gives the file's last 8 + footer length bytes wherever the chunks are cut", async () => {
		const file = await parquetBytes(2500);
		const footerLength = file.readUInt32LE(file.length - 8);
		const footer = file.subarray(file.length - footerLength - 8);
		for (const cuts of [[], [1], [4], [8], [9], [footerLength + 8], [footerLength + 9], [3, 6, footerLength, footerLength + 20]]) {
			const found = footerOfChunks(cut(file, cuts));
			expect(found.equals(footer)).toBe(true);
			expect(footerRowCount(found)).toBe(2500);
		}
	});

	it("copies only the footer: the rest of the last chunk is not in the result", async () => {
		const file = await parquetBytes(2500);
		const footerLength = file.readUInt32LE(file.length - 8);
		expect(footerOfChunks([file]).length).toBe(footerLength + 8);
	});

	it("a tail shorter than its footer says it is, or than 8 bytes, is given whole: footerRowCount refuses it", () => {
		const short = Buffer.from("xxPAR1");
		expect(footerOfChunks([short.subarray(0, 2), short.subarray(2)]).equals(short)).toBe(true);
		const claims = Buffer.alloc(20);
		claims.writeUInt32LE(1000, 12);
		claims.write("PAR1", 16, "latin1");
		expect(footerOfChunks([claims.subarray(0, 10), claims.subarray(10)]).equals(claims)).toBe(true);
		expect(() => footerRowCount(footerOfChunks([claims]))).toThrow(/truncated footer/);
		expect(() => footerRowCount(footerOfChunks([]))).toThrow(/no footer/);
	});
});
