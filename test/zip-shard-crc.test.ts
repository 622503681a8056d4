/**
 * A shard in a STORED zip entry read by ranges (its index, then its inner chunks), against the entry's CRC-32: a Zarr
 * v3 sharded store written by scripts/lib/zarr-writer.mjs and zipped by Python's zipfile, ZIP_STORED
 * (test/golden/make_zip_shard_crc_fixtures.py; inner chunks with the bytes codec alone, so nothing but the zip's
 * CRC-32 can tell a changed byte of one). Once the ranges of an export have read all of a shard's entry, its CRC-32
 * is checked: a flipped byte is CHUNK_CORRUPT naming the entry and the zip, as a whole read of an entry is. (A shard read
 * only in part is not checked: test/zip-central-directory.test.ts.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { exportToFile } from "../src/export.js";
import { readArrow, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { serveFolder } from "./support/served-folder.js";
import { rejection } from "./support/thrown.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "zip-shard-crc");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as { time: string[]; entries: Record<string, number>; innerChunkBytes: number };

const served = tempDir("dt64-zip-shard-crc-served-");
const work = tempDir("dt64-zip-shard-crc-out-");
const http = serveFolder(served);
let counter = 0;

/** The fixture's zip with byte `at` of `entry`'s data xor `mask` (its local header read for where the data starts), written as `name`. */
function flipped(name: string, entry: string, at: number, mask: number): string {
	const zip = fs.readFileSync(path.join(FIXTURES, "sharded.zip"));
	const header = zip.indexOf(Buffer.from(entry)) - 30;
	expect(zip.readUInt32LE(header)).toBe(0x04034b50);
	expect(zip.readUInt16LE(header + 8)).toBe(0);
	zip[header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28) + at] ^= mask;
	fs.writeFileSync(path.join(served, name), zip);
	return name;
}

const hex = (crc: number) => `0x${crc.toString(16).padStart(8, "0")}`;
const places: [string, (zip: string) => string][] = [
	["a local file", (zip) => path.join(served, zip)],
	["over HTTP, by ranges", (zip) => `${http.server.url}/${zip}`],
];

describe("a shard in a stored zip entry, read by ranges, against the entry's CRC-32", () => {
	fs.copyFileSync(path.join(FIXTURES, "sharded.zip"), path.join(served, "sharded.zip"));
	// A high byte of the first value of shard 1's inner chunk 1 (row 32): a value out of order; a low byte of the last
	// value of its inner chunk 2 (row 47): 16 s off, still in order.
	const inner = expected.innerChunkBytes;
	const outOfOrder = flipped("c1-inner1.zip", "time/c/1", inner + 5, 0x10);
	const inOrder = flipped("c1-inner2.zip", "time/c/1", 2 * inner + 7 * 8, 0x10);

	for (const [place, where] of places) {
		it(`${place}: the zip as written exports its values; a flipped byte of an inner chunk, once the export has read all of its shard, is CHUNK_CORRUPT naming the entry and the zip`, async () => {
			const out = path.join(work, `good${counter++}.arrow`);
			const ok = await runCliAsync([where("sharded.zip"), "-o", out, "-q"]);
			expect(ok.stderr).toBe("");
			expect(ok.status).toBe(0);
			expect(Array.from(readArrow(out).getChild("time")!.toArray() as BigInt64Array, String)).toEqual(expected.time);

			for (const zip of [outOfOrder, inOrder]) {
				const target = path.join(work, `bad${counter++}.arrow`);
				const bad = await runCliAsync([where(zip), "-o", target]);
				expect(bad.status).not.toBe(0);
				expect(bad.stderr.trim().split("\n")).toHaveLength(1);
				expect(bad.stderr).toMatch(new RegExp(`${zip}: entry time/c/1 fails its CRC-32 \\(the zip says ${hex(expected.entries["time/c/1"]!)}, its bytes give 0x[0-9a-f]{8}\\) \\[CHUNK_CORRUPT\\]\\n$`));
				// The CRC-32 is no index entry's fault: not named as one pointing outside its shard.
				expect(bad.stderr).not.toContain("points outside");
				expect(fs.existsSync(target)).toBe(false);
			}
		});
	}

	it("the library: CHUNK_CORRUPT naming the shard, nothing written", async () => {
		const target = path.join(work, `library${counter++}.arrow`);
		const error = await rejection(exportToFile(path.join(served, inOrder), target));
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", key: "time/c/1" });
		expect(error.message).toContain(`${inOrder}: entry time/c/1 fails its CRC-32`);
		expect(error.message).not.toContain("points outside");
		expect(fs.existsSync(target)).toBe(false);
	});
});
