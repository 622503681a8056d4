/**
 * String chunks (vlen-utf8, v2 object or v3 string) and shards read whole to read a range of them (a deflated zip
 * entry, inflated first) are held to a bound derived from what they decode to, as chunks of fixed-width values are
 * (encoded-chunk-bound.ts): a zip entry declaring more is CHUNK_CORRUPT before it is inflated, and a real store of
 * either is read as before.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { tempDir } from "./support/cli.js";
import { writeStoredZip } from "./support/zip.js";

const work = tempDir("dt64-encoded-bounds-");
const T0 = BigInt(Date.UTC(2024, 0, 1) / 1000);
const times = BigInt64Array.from({ length: 4 }, (_, i) => T0 + BigInt(i));
const LE = { name: "bytes", configuration: { endian: "little" } };

/** `zip` with the uncompressed size its central directory declares for entry `name` set to `size`. */
function declaring(zip: string, name: string, size: number): void {
	const bytes = fs.readFileSync(zip);
	for (let at = 0; at + 46 <= bytes.length; at++) {
		if (bytes.readUInt32LE(at) !== 0x02014b50) continue;
		const length = bytes.readUInt16LE(at + 28);
		if (bytes.toString("utf8", at + 46, at + 46 + length) === name) bytes.writeUInt32LE(size, at + 24);
	}
	fs.writeFileSync(zip, bytes);
}

describe("string chunks", () => {
	it("are refused when their zip entry declares more than a chunk of strings can be encoded to, before inflating it", async () => {
		const root = path.join(work, "labels.zarr");
		await writeGroup(root, "");
		await writeArray(root, "time", { shape: [4], chunks: [4], values: times, dimensionNames: ["time"] });
		await writeArray(root, "label", { shape: [4], chunks: [4], values: ["a", "bb", "ccc", "dddd"], dataType: "string", fillValue: "", codecs: [{ name: "vlen-utf8" }], dimensionNames: ["time"] });
		const zip = path.join(work, "labels.zip");
		writeStoredZip(root, zip, { deflate: true });
		const out = path.join(work, "labels.arrow");
		await exportToFile(zip, out, { columns: ["time", "label"] });
		expect(tableFromIPC(fs.readFileSync(out)).getChild("label")!.toArray()).toEqual(["a", "bb", "ccc", "dddd"]);

		declaring(zip, "label/c/0", 0x5000_0000);
		const error = await exportToFile(zip, path.join(work, "labels-bomb.arrow"), { columns: ["time", "label"] }).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", key: "label/c/0" });
		expect((error as Error).message).toMatch(/entry label\/c\/0: 1342177280 bytes, more than a chunk of 4 strings \(at most 1 GiB decoded\) can be encoded to \(1208025088 at most\)$/);
	});
});

describe("shards read whole", () => {
	it("are refused when a deflated shard entry declares more than its inner chunks and index can be stored in, before inflating it", async () => {
		// The index first: bytes appended after the inner chunks leave the shard readable, 16 MiB of zeros that deflate to 16 KB.
		const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [1], codecs: [LE], index_codecs: [LE, { name: "crc32c" }], index_location: "start" } }];
		const store = async (name: string, padding: number) => {
			const root = path.join(work, `${name}.zarr`);
			await writeArray(root, "", { shape: [4], chunks: [4], values: times, codecs });
			fs.appendFileSync(path.join(root, "c/0"), Buffer.alloc(padding));
			const zip = path.join(work, `${name}.zip`);
			writeStoredZip(root, zip, { deflate: true });
			return zip;
		};
		const real = await store("sharded", 0);
		const out = path.join(work, "sharded.arrow");
		await exportToFile(real, out);
		expect(tableFromIPC(fs.readFileSync(out)).numRows).toBe(4);

		const bomb = await store("sharded-bomb", 16 << 20);
		expect(fs.statSync(bomb).size).toBeLessThan(1 << 20);
		const error = await exportToFile(bomb, path.join(work, "sharded-bomb.arrow")).catch((caught: unknown) => caught);
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0" });
		// 4 inner chunks of one value, each bound at 8 bytes and the margin, and an index of 4 entries of 16 bytes and a checksum.
		expect((error as Error).message).toMatch(/entry c\/0: 16777316 bytes, more than a shard of 4 inner chunks of at most 65545 bytes each and its index can be stored in \(262248 at most\)/);
	});
});
