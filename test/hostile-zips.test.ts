/**
 * Zips and metadata documents made to exhaust memory or to break the zip reader: an entry is refused on the size the
 * zip declares for it when no chunk (nor metadata document) can be that large, before it is read or inflated; a
 * metadata document over MAX_METADATA_BYTES is refused before it is read (a folder store) or inflated (a zip); a
 * central directory pointing past the end of the file is STORE_INVALID in the zip's terms, and an entry that inflates
 * past its declared size says so, not in Node's words.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";
import { MAX_METADATA_BYTES } from "../src/store/metadata-documents.js";
import { MAX_ZIP_ENTRIES } from "../src/store/zip-directory-bound.js";
import { runCli, tempDir } from "./support/cli.js";
import { writeStoredZip } from "./support/zip.js";

const work = tempDir("dt64-hostile-zips-");
const T0 = BigInt(Date.UTC(2024, 0, 1) / 1000);

/** A store of 4 seconds in one chunk (32 bytes), its files then changed by `change`. */
async function smallStore(name: string, change?: (root: string) => void): Promise<string> {
	const root = path.join(work, name);
	await writeArray(root, "", { shape: [4], chunks: [4], values: BigInt64Array.from({ length: 4 }, (_, i) => T0 + BigInt(i)) });
	change?.(root);
	return root;
}

/** Offsets of every record of `signature` in `zip`. */
function recordsOf(zip: Buffer, signature: number): number[] {
	const found: number[] = [];
	for (let at = 0; at + 4 <= zip.length; at++) if (zip.readUInt32LE(at) === signature) found.push(at);
	return found;
}

describe("sizes a zip declares", () => {
	it("refuses a deflated entry declaring far more than its chunk can encode to, before inflating it", async () => {
		// 16 MiB of zeros deflate to 16 KB: a chunk of 4 values can never be that large encoded.
		const root = await smallStore("bomb.zarr", (folder) => fs.writeFileSync(path.join(folder, "c/0"), Buffer.alloc(16 << 20)));
		const zip = path.join(work, "bomb.zip");
		writeStoredZip(root, zip, { deflate: true });
		expect(fs.statSync(zip).size).toBeLessThan(1 << 20);
		const error = await exportToFile(zip, path.join(work, "bomb.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0" });
		expect((error as Error).message).toMatch(/entry c\/0: 16777216 bytes, more than a chunk of 4 values \(32 bytes decoded\) can be encoded to \(65572 at most\)$/);
	});

	it("refuses a zarr.json over the metadata bound, in a zip before inflating it and in a folder before reading it", async () => {
		const root = await smallStore("big-meta.zarr", (folder) => fs.truncateSync(path.join(folder, "zarr.json"), MAX_METADATA_BYTES + 1));
		await expect(inspectStore(root)).rejects.toMatchObject({ code: "TOO_LARGE", key: "zarr.json", message: expect.stringContaining(`${MAX_METADATA_BYTES + 1} bytes, over the 256 MiB a metadata document may hold`) });
		const cli = runCli([root, "-o", path.join(work, "big-meta.arrow")]);
		expect(cli.stderr).toMatch(/zarr\.json: 268435457 bytes, over the 256 MiB a metadata document may hold \(a limit of this tool\) \[TOO_LARGE\]\n$/);
		const zip = path.join(work, "big-meta.zip");
		writeStoredZip(root, zip, { deflate: true });
		await expect(exportToFile(zip, path.join(work, "big-meta-zip.arrow"))).rejects.toMatchObject({ code: "TOO_LARGE", key: "zarr.json" });
	}, 60_000);

	it("says an entry inflates past the size the zip declares, not zlib's buffer message", async () => {
		const root = await smallStore("short.zarr");
		const zip = path.join(work, "short.zip");
		writeStoredZip(root, zip, { deflate: true });
		const bytes = fs.readFileSync(zip);
		// c/0's uncompressed size, 32, said to be 16 in its local header and its central directory record.
		for (const at of recordsOf(bytes, 0x04034b50)) if (bytes.readUInt32LE(at + 22) === 32) bytes.writeUInt32LE(16, at + 22);
		for (const at of recordsOf(bytes, 0x02014b50)) if (bytes.readUInt32LE(at + 24) === 32) bytes.writeUInt32LE(16, at + 24);
		fs.writeFileSync(zip, bytes);
		const error = await exportToFile(zip, path.join(work, "short.arrow")).catch((caught: unknown) => caught);
		expect((error as Error).message).toMatch(/cannot read entry c\/0: it inflates to more than the 16 bytes the zip declares for it$/);
	});
});

describe("a central directory that lies", () => {
	it("is STORE_INVALID naming what lies past the end of the file, not a RangeError", async () => {
		const root = await smallStore("eocd.zarr");
		const zip = path.join(work, "eocd.zip");
		writeStoredZip(root, zip);
		const bytes = fs.readFileSync(zip);
		const end = recordsOf(bytes, 0x06054b50).at(-1)!;
		bytes.writeUInt32LE(0xfffffff0, end + 12);
		bytes.writeUInt32LE(0xfffffff0, end + 16);
		fs.writeFileSync(zip, bytes);
		const error = await exportToFile(zip, path.join(work, "eocd.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "STORE_INVALID" });
		expect((error as Error).message).toBe(`${zip}: not a readable zip file (its central directory points at 4294967280 bytes at offset 4294967280, past the end of the file (${bytes.length} bytes))`);
	});
});

/**
 * `zip` rewritten as a zip64 one stating `count` entries: a zip64 end record and its locator before the end record,
 * whose own count says to read them (0xffff), as a zip of more than 65,534 entries is written.
 */
function asZip64(zip: Buffer, count: bigint): Buffer {
	const end = recordsOf(zip, 0x06054b50).at(-1)!;
	const record = Buffer.alloc(56);
	record.writeUInt32LE(0x06064b50, 0);
	record.writeBigUInt64LE(44n, 4);
	record.writeUInt16LE(45, 12);
	record.writeUInt16LE(45, 14);
	record.writeBigUInt64LE(count, 24);
	record.writeBigUInt64LE(count, 32);
	record.writeBigUInt64LE(BigInt(zip.readUInt32LE(end + 12)), 40);
	record.writeBigUInt64LE(BigInt(zip.readUInt32LE(end + 16)), 48);
	const locator = Buffer.alloc(20);
	locator.writeUInt32LE(0x07064b50, 0);
	locator.writeBigUInt64LE(BigInt(end), 8);
	locator.writeUInt32LE(1, 16);
	const endRecord = Buffer.from(zip.subarray(end));
	endRecord.writeUInt16LE(0xffff, 8);
	endRecord.writeUInt16LE(0xffff, 10);
	return Buffer.concat([zip.subarray(0, end), record, locator, endRecord]);
}

describe("a zip's central directory", () => {
	it("is refused when it claims more entries than the bound, before they are read; a zip64 zip of its own count is read", async () => {
		const root = await smallStore("zip64.zarr");
		const zip = path.join(work, "zip64.zip");
		writeStoredZip(root, zip);
		const plain = fs.readFileSync(zip);
		const entries = BigInt(plain.readUInt16LE(recordsOf(plain, 0x06054b50).at(-1)! + 10));
		fs.writeFileSync(zip, asZip64(plain, entries));
		await exportToFile(zip, path.join(work, "zip64.arrow"));

		const claimed = path.join(work, "millions.zip");
		fs.writeFileSync(claimed, asZip64(plain, 5_000_000n));
		const error = await exportToFile(claimed, path.join(work, "millions.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "TOO_LARGE", path: claimed, value: MAX_ZIP_ENTRIES });
		expect((error as Error).message).toBe(
			`${claimed}: its central directory lists 5000000 entries, more than the 1000000 a zip store may hold (a limit of this tool: about 80 bytes of memory each once read); unzip it and export the folder`,
		);
		const cli = runCli([claimed, "-o", path.join(work, "millions-cli.arrow")]);
		expect(cli.status).toBe(1);
		expect(cli.stderr).toMatch(/lists 5000000 entries, more than the 1000000 .*\[TOO_LARGE\]\n$/);
	});
});
