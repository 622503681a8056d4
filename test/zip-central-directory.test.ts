/**
 * A zip's central directory read into a compact index (src/store/zip-central-directory.ts, src/store/zip-index.ts):
 * read in pieces, each entry kept as a row of numbers and its name (its layout made when asked for), zip64 sizes and
 * offsets, and every check a zip reader makes of a record refused in one line. The zips are built here, byte by byte,
 * so that each field can be made to lie.
 */
import * as zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { DIRECTORY_PIECE_BYTES, readCentralDirectory } from "../src/store/zip-central-directory.js";
import { MAX_ZIP_DIRECTORY_BYTES } from "../src/store/zip-directory-bound.js";
import { ZipStore, type ZipBytes } from "../src/store/zip-store.js";
import type { AbsolutePath } from "../src/store/readable.js";

interface Entry {
	readonly name: string;
	readonly data: Uint8Array;
	readonly deflate?: boolean;
	/** The central record's sizes and offset as 0xffffffff, the values in a zip64 extra field (all three, or `zip64Fields` of them). */
	readonly zip64?: boolean;
	readonly zip64Fields?: number;
	/** Bytes to change in the central record once written (at an offset from its start). */
	readonly patch?: (record: Buffer) => void;
	/** Bytes to change in its extra field once written. */
	readonly patchExtra?: (extra: Buffer) => void;
}

interface Built {
	readonly zip: Buffer;
	readonly localHeaders: number[];
	readonly directoryStart: number;
}

/** A zip of `entries`: local headers and data, the central directory, the end record (`count` entries stated). */
function buildZip(entries: readonly Entry[], options: { count?: number; comment?: Buffer; endPatch?: (end: Buffer) => void } = {}): Built {
	const parts: Buffer[] = [];
	const records: Buffer[] = [];
	const localHeaders: number[] = [];
	let at = 0;
	for (const entry of entries) {
		const name = Buffer.from(entry.name, "utf8");
		const stored = entry.deflate ? zlib.deflateRawSync(entry.data) : Buffer.from(entry.data);
		const method = entry.deflate ? 8 : 0;
		const crc = zlib.crc32(entry.data);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4);
		local.writeUInt16LE(method, 8);
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(stored.length, 18);
		local.writeUInt32LE(entry.data.length, 22);
		local.writeUInt16LE(name.length, 26);
		localHeaders.push(at);
		parts.push(local, name, stored);
		let extra = Buffer.alloc(0);
		const record = Buffer.alloc(46);
		record.writeUInt32LE(0x02014b50, 0);
		record.writeUInt16LE(20, 4);
		record.writeUInt16LE(20, 6);
		record.writeUInt16LE(method, 10);
		record.writeUInt32LE(crc, 16);
		record.writeUInt32LE(stored.length, 20);
		record.writeUInt32LE(entry.data.length, 24);
		record.writeUInt32LE(at, 42);
		if (entry.zip64) {
			const values = [BigInt(entry.data.length), BigInt(stored.length), BigInt(at)].slice(0, entry.zip64Fields ?? 3);
			extra = Buffer.alloc(4 + 8 * values.length);
			extra.writeUInt16LE(0x0001, 0);
			extra.writeUInt16LE(8 * values.length, 2);
			values.forEach((value, k) => extra.writeBigUInt64LE(value, 4 + 8 * k));
			record.writeUInt32LE(0xffffffff, 20);
			record.writeUInt32LE(0xffffffff, 24);
			record.writeUInt32LE(0xffffffff, 42);
		}
		record.writeUInt16LE(name.length, 28);
		record.writeUInt16LE(extra.length, 30);
		entry.patch?.(record);
		entry.patchExtra?.(extra);
		records.push(Buffer.concat([record, name, extra]));
		at += 30 + name.length + stored.length;
	}
	const directory = Buffer.concat(records);
	const comment = options.comment ?? Buffer.alloc(0);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(options.count ?? entries.length, 8);
	end.writeUInt16LE(options.count ?? entries.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(at, 16);
	end.writeUInt16LE(comment.length, 20);
	options.endPatch?.(end);
	return { zip: Buffer.concat([...parts, directory, end, comment]), localHeaders, directoryStart: at };
}

/** `zip` as ZipBytes, each read's offset and length kept in `reads`. */
function bytesOf(zip: Buffer, reads: [number, number][] = []): ZipBytes {
	return {
		getLength: async () => zip.length,
		read: async (offset, length) => {
			reads.push([offset, length]);
			if (offset + length > zip.length) throw new Error(`read past the end: ${offset}+${length}`);
			return new Uint8Array(zip.subarray(offset, offset + length));
		},
	};
}

const read = (built: Built, reads?: [number, number][]) => readCentralDirectory(bytesOf(built.zip, reads), built.zip.length, "t.zip", undefined);
const valuesOf = (k: number) => Uint8Array.from({ length: 8 + (k % 5) }, (_, i) => (k * 7 + i) & 0xff);

describe("a zip's central directory, read into an index", () => {
	it("holds every entry of a directory larger than a piece, read piece by piece, each layout made when asked", async () => {
		const count = 30_000;
		// Names of 150 characters: 196-byte records, a directory of 5.9 MB over two pieces of 4 MiB.
		const entries = Array.from({ length: count }, (_, k) => ({ name: `a/c/${String(k).padStart(146, "0")}`, data: valuesOf(k) }));
		const built = buildZip(entries);
		const reads: [number, number][] = [];
		const index = await read(built, reads);
			// After the end record's search (the file's last 64 KiB), the directory's pieces.
		const directoryReads = reads.slice(1);
		expect(directoryReads.length).toBe(2);
		for (const [, length] of directoryReads) expect(length).toBeLessThanOrEqual(DIRECTORY_PIECE_BYTES);
		expect(index.size).toBe(count);
		expect([...index.names()]).toEqual(entries.map((entry) => entry.name));
		for (const k of [0, 1, 21_399, 21_400, 21_401, count - 1]) {
			const layout = index.get(entries[k].name)!;
			expect(layout).toEqual({
				name: entries[k].name,
				localHeader: built.localHeaders[k],
				headerGuess: 30 + 150,
				...(k + 1 < count ? { nextHeader: built.localHeaders[k + 1] } : {}),
				compressedSize: entries[k].data.length,
				size: entries[k].data.length,
				method: 0,
				encrypted: false,
				crc32: zlib.crc32(entries[k].data),
			});
			// Made when asked for: nothing per entry is kept but its row.
			expect(index.get(entries[k].name)).not.toBe(layout);
		}
		expect(index.get("a/c/missing")).toBeUndefined();
	});

	it("reads entries through a ZipStore: stored, deflated, zip64 sizes and offsets, a name listed twice as its later record", async () => {
		const entries: Entry[] = [
			{ name: "c/0", data: valuesOf(0) },
			{ name: "c/1", data: new Uint8Array(4096).fill(3), deflate: true },
			{ name: "c/2", data: valuesOf(2), zip64: true },
			{ name: "c/3", data: new Uint8Array(1000).fill(9), deflate: true, zip64: true },
			{ name: "c/0", data: valuesOf(40) },
			{ name: "é/ü", data: valuesOf(5) },
		];
		const built = buildZip(entries);
		const index = await read(built);
		expect([...index.names()]).toEqual(["c/0", "c/1", "c/2", "c/3", "é/ü"]);
		const store = new ZipStore(bytesOf(built.zip), index, "t.zip", built.zip.length);
		const bytesAt = async (key: string) => [...((await store.get(key as AbsolutePath)) ?? [])];
		expect(await bytesAt("/c/0")).toEqual([...valuesOf(40)]);
		expect(await bytesAt("/c/1")).toEqual([...new Uint8Array(4096).fill(3)]);
		expect(await bytesAt("/c/2")).toEqual([...valuesOf(2)]);
		expect(await bytesAt("/c/3")).toEqual([...new Uint8Array(1000).fill(9)]);
		expect([...(await store.getRange("/c/2" as AbsolutePath, { offset: 2, length: 3 }))!]).toEqual([...valuesOf(2).subarray(2, 5)]);
		expect(await bytesAt("/é/ü")).toEqual([...valuesOf(5)]);
		expect(await store.get("/c/9" as AbsolutePath)).toBeUndefined();
		expect(store.isAbsent("/c/9" as AbsolutePath)).toBe(true);
	});

	it("refuses an entry read whole (or a range of all of it) whose bytes (inflated) fail the CRC-32 its record gives, CHUNK_CORRUPT", async () => {
		const built = buildZip([
			{ name: "c/0", data: valuesOf(0) },
			{ name: "c/1", data: new Uint8Array(100).fill(7), deflate: true, patch: (record) => record.writeUInt32LE(record.readUInt32LE(16) ^ 1, 16) },
		]);
		// c/0's second byte changed in the file, its CRC left as it was.
		built.zip[built.localHeaders[0] + 30 + 3 + 1] ^= 0xff;
		const store = new ZipStore(bytesOf(built.zip), await read(built), "t.zip", built.zip.length);
		const crc0 = zlib.crc32(valuesOf(0)).toString(16).padStart(8, "0");
		const changed = valuesOf(0);
		changed[1] ^= 0xff;
		await expect(store.get("/c/0" as AbsolutePath)).rejects.toMatchObject({
			code: "CHUNK_CORRUPT",
			key: "c/0",
			path: "t.zip",
			message: `t.zip: entry c/0 fails its CRC-32 (the zip says 0x${crc0}, its bytes give 0x${zlib.crc32(changed).toString(16).padStart(8, "0")})`,
		});
		await expect(store.get("/c/1" as AbsolutePath)).rejects.toMatchObject({ code: "CHUNK_CORRUPT", key: "c/1", message: expect.stringContaining("t.zip: entry c/1 fails its CRC-32") });
		// A range of all of a stored entry is checked as its whole read is; ranges of parts once they have read all of
		// it (in any order, overlapping), as a shard's index and inner chunks are: until then they cannot be.
		await expect(store.getRange("/c/0" as AbsolutePath, { offset: 0, length: valuesOf(0).length })).rejects.toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0" });
		expect(await store.getRange("/c/0" as AbsolutePath, { suffixLength: 2 })).toEqual(changed.subarray(changed.length - 2));
		expect(await store.getRange("/c/0" as AbsolutePath, { offset: 0, length: 2 })).toEqual(changed.subarray(0, 2));
		expect(await store.getRange("/c/0" as AbsolutePath, { offset: 1, length: 3 })).toEqual(changed.subarray(1, 4));
		const last = { message: `t.zip: entry c/0 fails its CRC-32 (the zip says 0x${crc0}, its bytes give 0x${zlib.crc32(changed).toString(16).padStart(8, "0")})` };
		await expect(store.getRange("/c/0" as AbsolutePath, { offset: 3, length: changed.length - 4 })).rejects.toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0", ...last });
		// Every later read of it fails as that one did (a shard's reader reads a span's inner chunks again one by one).
		await expect(store.getRange("/c/0" as AbsolutePath, { offset: 0, length: 1 })).rejects.toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0", ...last });
	});

	it("checks a stored entry read by ranges once they have read all of it, not before; an entry as written passes", async () => {
		const data = Uint8Array.from({ length: 300 }, (_, i) => (i * 31) & 0xff);
		const built = buildZip([{ name: "s/0", data }]);
		const store = new ZipStore(bytesOf(built.zip), await read(built), "t.zip", built.zip.length);
		for (const [offset, length] of [[250, 50], [0, 100], [50, 100], [200, 60], [150, 50], [0, 300], [10, 10]] as const) {
			expect(await store.getRange("/s/0" as AbsolutePath, { offset, length })).toEqual(data.subarray(offset, offset + length));
		}
		const bad = buildZip([{ name: "s/0", data }]);
		bad.zip[bad.localHeaders[0] + 30 + 3 + 120] ^= 0x01;
		const badStore = new ZipStore(bytesOf(bad.zip), await read(bad), "t.zip", bad.zip.length);
		// Byte 120 changed: all but bytes 100..149 read, nothing said; then those, and the entry is refused.
		for (const [offset, length] of [[250, 50], [0, 100], [150, 100]] as const) {
			expect((await badStore.getRange("/s/0" as AbsolutePath, { offset, length }))!.length).toBe(length);
		}
		await expect(badStore.getRange("/s/0" as AbsolutePath, { offset: 90, length: 70 })).rejects.toMatchObject({ code: "CHUNK_CORRUPT", key: "s/0", message: expect.stringContaining("t.zip: entry s/0 fails its CRC-32") });
	});

	it("refuses what a zip reader must refuse, each in one line", async () => {
		const one = (entry: Partial<Entry>) => [{ name: "c/0", data: valuesOf(0), ...entry }];
		const cases: [string, Built][] = [
			["no end of central directory record: maybe not a zip file", { zip: Buffer.alloc(100, 1), localHeaders: [], directoryStart: 0 }],
			["multi-volume zip files are not supported (this is volume 2)", buildZip(one({}), { endPatch: (end) => end.writeUInt16LE(2, 4) })],
			["its end record's comment is 9 bytes, 4 follow it", buildZip(one({}), { comment: Buffer.from("abcd"), endPatch: (end) => end.writeUInt16LE(9, 20) })],
			["record 0 of its central directory has signature 0x2014b51, not 0x2014b50", buildZip(one({ patch: (record) => record.writeUInt32LE(0x02014b51, 0) }))],
			["entry c/0: strong encryption is not supported", buildZip(one({ patch: (record) => record.writeUInt16LE(0x41, 8) }))],
			["entry c/0: an extra field runs past its record", buildZip(one({ zip64: true, patchExtra: (extra) => extra.writeUInt16LE(40, 2) }))],
			["entry c/0: no zip64 extra field for the sizes or offset it defers to one", buildZip(one({ patch: (record) => record.writeUInt32LE(0xffffffff, 24) }))],
			["entry c/0: its zip64 extra field lacks the local header offset", buildZip(one({ zip64: true, zip64Fields: 2 }))],
			["entry c/0: stored, but its compressed size 8 is not its size 7", buildZip(one({ patch: (record) => record.writeUInt32LE(7, 24) }))],
			["its central directory ends after 1 of the 2 records it states", buildZip(one({}), { count: 2 })],
		];
		for (const [message, built] of cases) await expect(read(built), message).rejects.toThrow(new Error(message));
	});

	it("refuses a directory past its byte bound before reading it; one past the end of the file is said so whole", async () => {
		const reads: [number, number][] = [];
		const size = 2 ** 31;
		// An end record at the end of a 2 GiB file, stating a directory of 256 MiB + 1 before it.
		const end = Buffer.alloc(22);
		end.writeUInt32LE(0x06054b50, 0);
		end.writeUInt16LE(5, 10);
		end.writeUInt32LE(MAX_ZIP_DIRECTORY_BYTES + 1, 12);
		end.writeUInt32LE(2 ** 20, 16);
		const huge: ZipBytes = {
			getLength: async () => size,
			read: async (offset, length) => {
				reads.push([offset, length]);
				const bytes = new Uint8Array(length);
				if (offset + length === size) bytes.set(end, length - 22);
				return bytes;
			},
		};
		await expect(readCentralDirectory(huge, size, "big.zip", undefined)).rejects.toMatchObject({
			code: "TOO_LARGE",
			message: expect.stringContaining("big.zip: its central directory is 268435457 bytes, more than the 256 MiB"),
		});
		expect(reads).toEqual([[size - 22 - 0xffff, 22 + 0xffff]]);
		// Past the end: said of the directory whole, not of the piece read first.
		end.writeUInt32LE(2 ** 31 - 10, 16);
		await expect(readCentralDirectory(huge, size, "big.zip", undefined)).rejects.toThrow(`${MAX_ZIP_DIRECTORY_BYTES + 1} bytes at offset ${2 ** 31 - 10}, past the end of the file (${size} bytes)`);
	});
});
