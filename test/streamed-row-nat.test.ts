/**
 * The NaT positions a streamed row gives with each band (codecs/wasm/streamed-row.ts, BandNaT): found a window at a
 * time in the decoders' memory, before each piece is copied into the band, they are every value that may be NaT
 * (INT64_MIN in either byte order, as a chunk decoded whole reports them), however the decoder's output is cut into
 * pieces: read from its file a few bytes at a time, the frame decodes in pieces that end in the middle of values.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { encodeChunk } from "../scripts/lib/zarr-writer.mjs";
import { WasmDecoders } from "../src/zarr/codecs/wasm/decoder-module.js";
import { readFileAt, StreamedRow } from "../src/zarr/codecs/wasm/streamed-row.js";
import { zstdStreamHead } from "../src/zarr/streamed-rows.js";
import { tempDir } from "./support/cli.js";

const NAT = -(2n ** 63n);
/** INT64_MIN byte-swapped: 128, which nat_positions reports as well (the conversion checks each position). */
const SWAPPED = 128n;
const ZSTD = [
	{ name: "bytes", configuration: { endian: "little" } },
	{ name: "zstd", configuration: { level: 0, checksum: false } },
];

/**
 * A zstd frame of `content` in raw (stored) blocks of `blockBytes` each: the decoder hands each block on as it is,
 * so with blocks that are not whole values its pieces end in the middle of values. Content size declared (4 bytes),
 * a 512 KiB window, no checksum.
 */
function rawBlocksFrame(content: Uint8Array, blockBytes: number): Uint8Array {
	const parts: Uint8Array[] = [Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x80, 9 << 3)];
	const size = new Uint8Array(4);
	new DataView(size.buffer).setUint32(0, content.byteLength, true);
	parts.push(size);
	for (let at = 0; at < content.byteLength; at += blockBytes) {
		const block = content.subarray(at, Math.min(content.byteLength, at + blockBytes));
		const last = at + blockBytes >= content.byteLength ? 1 : 0;
		// Block header: last block bit, block type 0 (raw), size, 3 bytes little endian.
		const header = (block.byteLength << 3) | last;
		parts.push(Uint8Array.of(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff), block);
	}
	return Buffer.concat(parts);
}

/** The positions a scan of every value gives: INT64_MIN in either byte order. */
function expectedPositions(values: BigInt64Array): number[] {
	const found: number[] = [];
	values.forEach((value, i) => {
		if (value === NAT || value === SWAPPED) found.push(i);
	});
	return found;
}

/** Decodes `file` (a zstd frame of `values`) as a streamed row of one chunk, `rowValues` a band row, `rows` rows a band: each band's values and positions. */
function streamBands(file: string, values: BigInt64Array, rowValues: number, rows: number, readAt: typeof readFileAt): { values: BigInt64Array; positions: Int32Array }[] {
	const fd = fs.openSync(file, "r");
	try {
		const size = fs.fstatSync(fd).size;
		const chunkBytes = values.length * 8;
		const head = zstdStreamHead({ size, readAt: (bytes: Uint8Array, position: number) => fs.readSync(fd, bytes, 0, bytes.byteLength, position) }, chunkBytes);
		if (head === undefined) throw new Error("not a frame to stream");
		const rowBytes = rowValues * 8;
		const chunk = { fd, size, ...head, name: "c/0/0", key: "a/c/0/0", file, chunkBytes, partBytes: rowBytes, keptBytes: rowBytes, offsetBytes: 0 };
		const row = new StreamedRow(new WasmDecoders().module, { chunks: [chunk], rowBytes }, readAt);
		const bands = [];
		const totalRows = values.length / rowValues;
		for (let start = 0; start < totalRows; start += rows) {
			const count = Math.min(rows, totalRows - start);
			const band = new Uint8Array(count * rowBytes);
			const positions = row.fill(band, count, start + count === totalRows, true)!;
			bands.push({ values: new BigInt64Array(band.buffer), positions });
		}
		return bands;
	} finally {
		fs.closeSync(fd);
	}
}

describe("a streamed row's NaT positions", () => {
	it("are every value that may be NaT, when the decoder's pieces end in the middle of values", async () => {
		// 300 rows of 1000 values: NaT in runs and alone, at the start and end of rows, and INT64_MIN byte-swapped.
		const values = BigInt64Array.from({ length: 300_000 }, (_, i) => {
			if (i % 7 === 3 || i % 1000 === 0 || i % 1000 === 999 || (i >= 150_000 && i < 150_050)) return NAT;
			if (i % 4999 === 11) return SWAPPED;
			return 1_577_836_800_000_000n + BigInt(i) * 1_000_003n;
		});
		const dir = tempDir("dt64-streamed-nat-");
		const compressed = path.join(dir, "compressed");
		fs.writeFileSync(compressed, (await encodeChunk(values, [300, 1000], ZSTD, { fill: NAT, writeEmptyChunks: true }))!);
		// Raw blocks of 1001 bytes: pieces cut inside values, NaT among the values cut.
		const stored = path.join(dir, "stored");
		fs.writeFileSync(stored, rawBlocksFrame(new Uint8Array(values.buffer), 1001));
		// The file read 5 to 13 bytes at a time: each step of the decoder gives a few bytes, cut anywhere.
		let call = 0;
		const fewBytes = (fd: number, target: Uint8Array, position: number) => readFileAt(fd, target.subarray(0, Math.min(target.byteLength, 5 + (call++ % 9))), position);
		for (const [file, readAt] of [
			[compressed, readFileAt],
			[stored, readFileAt],
			[stored, fewBytes],
		] as const) {
			const bands = streamBands(file, values, 1000, 7, readAt);
			let first = 0;
			for (const band of bands) {
				expect(band.values).toEqual(values.subarray(first, first + band.values.length));
				expect(Array.from(band.positions)).toEqual(expectedPositions(band.values));
				first += band.values.length;
			}
			expect(first).toBe(values.length);
		}
	});
});
