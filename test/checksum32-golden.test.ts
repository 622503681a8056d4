/**
 * numcodecs' CRC32 and Adler32 checksums in Zarr v2 stores written by zarr-python 2
 * (test/golden/make_checksum_fixtures.py; trial 24 finding 08: refused, though zarr-python 2.13 reads them): read
 * with the checksum verified, as zarr-python reads them; a chunk that fails it is refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { exportTable } from "../src/index.js";
import { adler32 } from "../src/zarr/codecs/checksum32.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { tempDir } from "./support/cli.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "checksum32");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<string, (string | number | null)[]>;

/** The int64 counts of a time column as strings, null for NaT. */
function counts(table: Awaited<ReturnType<typeof exportedArrow>>): (string | null)[] {
	const column = table.getChildAt(0)!;
	return Array.from({ length: column.length }, (_, i) => (column.get(i) === null ? null : String((column.data[0].values as BigInt64Array)[i])));
}

describe("numcodecs crc32 and adler32 (v2)", () => {
	it("reads CRC32 as a filter and Adler32 as the compressor, as zarr-python 2 does", async () => {
		expect(counts(await exportedArrow((sink) => exportTable(path.join(FIXTURES, "crc32.zarr"), sink, {})))).toEqual(expected["crc32.zarr"]);
		expect(counts(await exportedArrow((sink) => exportTable(path.join(FIXTURES, "adler32.zarr"), sink, {})))).toEqual(expected["adler32.zarr"]);
	});

	it("reads both, then zlib, on a companion column", async () => {
		const table = await exportedArrow((sink) => exportTable(path.join(FIXTURES, "both.zarr"), sink, { columns: ["time", "v"] }));
		expect([...table.getChild("v")!].map(Number)).toEqual(expected["both.zarr"]);
	});

	it("a chunk failing its checksum is CHUNK_CORRUPT naming the chunk and the codec", async () => {
		for (const [store, chunk, codec] of [
			["crc32.zarr", "1", "crc32"],
			["adler32.zarr", "2", "adler32"],
		]) {
			const copy = path.join(tempDir("dt64-checksum-"), store);
			fs.cpSync(path.join(FIXTURES, store), copy, { recursive: true });
			const bytes = fs.readFileSync(path.join(copy, chunk));
			bytes[bytes.length - 1] ^= 0x01;
			fs.writeFileSync(path.join(copy, chunk), bytes);
			await expect(exportedArrow((sink) => exportTable(copy, sink, {}))).rejects.toMatchObject({
				code: "CHUNK_CORRUPT",
				key: chunk,
				message: expect.stringMatching(new RegExp(`^chunk ${chunk}: cannot decode: ${codec}: checksum mismatch \\(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\\)`)),
			});
		}
	});

	it("location \"end\" (numcodecs 0.12+) is read; another location is refused naming it", async () => {
		const root = path.join(tempDir("dt64-checksum-"), "end.zarr");
		fs.mkdirSync(root);
		const zarray = (location: unknown) => JSON.stringify({ zarr_format: 2, shape: [2], chunks: [2], dtype: "<M8[s]", fill_value: null, order: "C", filters: [{ id: "adler32", location }], compressor: null });
		const payload = new Uint8Array(BigInt64Array.of(7n, 9n).buffer);
		const checksum = Buffer.alloc(4);
		checksum.writeUInt32LE(adler32(payload));
		fs.writeFileSync(path.join(root, "0"), Buffer.concat([payload, checksum]));
		fs.writeFileSync(path.join(root, ".zarray"), zarray("end"));
		expect(counts(await exportedArrow((sink) => exportTable(root, sink, {})))).toEqual(["7", "9"]);
		fs.writeFileSync(path.join(root, ".zarray"), zarray("middle"));
		await expect(exportedArrow((sink) => exportTable(root, sink, {}))).rejects.toMatchObject({ message: expect.stringContaining('adler32: location must be "start" or "end", got "middle"') });
	});

	it("adler32 is zlib's: the trailer of a zlib stream, for data past its block of 2^20 bytes too", () => {
		for (const length of [0, 1, 5552, 5553, 3 * 2 ** 20 + 17]) {
			const data = Uint8Array.from({ length }, (_, i) => (i * 7919 + (i >> 9)) & 0xff).map((b, i) => (i % 3 === 0 ? 0xff : b));
			const deflated = deflateSync(data, { level: 0 });
			expect(adler32(data)).toBe(deflated.readUInt32BE(deflated.length - 4));
		}
	});
});
