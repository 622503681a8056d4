/**
 * A zip entry's bytes against the CRC-32 its central directory record gives, end to end: a zip written by zarr-python's
 * ZipStore (test/golden/make_zip_crc_fixtures.py: ZIP_STORED, chunks with no compressor, so nothing but the zip's
 * CRC-32 can tell a changed byte), one byte of a chunk entry's data flipped in a copy, read as a local file, over HTTP
 * (by ranges, and whole from a server that ignores Range) and from an S3 bucket. Each refuses it, CHUNK_CORRUPT,
 * in one line naming the entry and the zip; the copy left as written exports the values zarr-python reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportToFile } from "../src/export.js";
import { readArrow, tempDir } from "./support/cli.js";
import { runCliAsync } from "./support/run-cli-async.js";
import { serveFolder } from "./support/served-folder.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";
import { rejection } from "./support/thrown.js";

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), "fixtures", "zip-crc");
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as { time: string[]; v: number[]; entries: Record<string, number> };

const served = tempDir("dt64-zip-crc-served-");
const buckets = tempDir("dt64-zip-crc-buckets-");
const work = tempDir("dt64-zip-crc-out-");
const http = serveFolder(served);
let s3: S3Server;
let counter = 0;

/** zarr-python's zip with byte 5 of `entry`'s data flipped (its local header read for where the data starts). */
function flipped(entry: string): Buffer {
	const zip = fs.readFileSync(path.join(FIXTURES, "stored.zip"));
	const name = Buffer.from(entry);
	const header = zip.indexOf(name) - 30;
	expect(zip.readUInt32LE(header)).toBe(0x04034b50);
	expect(zip.readUInt16LE(header + 8)).toBe(0);
	const data = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
	zip[data + 5] ^= 0x10;
	return zip;
}

/** The zips, under the served folder and in the public bucket `open`. */
beforeAll(async () => {
	fs.mkdirSync(path.join(buckets, "open"));
	for (const folder of [served, path.join(buckets, "open")]) {
		fs.copyFileSync(path.join(FIXTURES, "stored.zip"), path.join(folder, "stored.zip"));
		fs.writeFileSync(path.join(folder, "time-1.zip"), flipped("time/1"));
		fs.writeFileSync(path.join(folder, "v-2.zip"), flipped("v/2"));
	}
	s3 = await startS3Server({ root: buckets, publicBuckets: ["open"], users: {} });
});
afterAll(async () => {
	await s3?.close();
});

const CLOUD_BLANK = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_ENDPOINT_URL_S3"];
const s3Env = () => ({ ...Object.fromEntries(CLOUD_BLANK.map((name) => [name, ""])), HOME: work, AWS_ENDPOINT_URL: s3.url, AWS_REGION: "us-east-1" });

const places: [string, (zip: string) => { store: string; args: string[]; env?: Record<string, string> }][] = [
	["a local file", (zip) => ({ store: path.join(served, zip), args: [] })],
	["over HTTP, by ranges", (zip) => ({ store: `${http.server.url}/${zip}`, args: [] })],
	["over HTTP, downloaded whole (the server ignores Range)", (zip) => ({ store: `${http.server.url}/${zip}`, args: [] })],
	["from an S3 bucket", (zip) => ({ store: `s3://open/${zip}`, args: ["--no-sign-request"], env: s3Env() })],
];

describe("a zip entry whose bytes fail its CRC-32 (zarr-python's ZipStore, ZIP_STORED, no compressor)", () => {
	for (const [place, where] of places) {
		it(`${place}: the zip as written exports the values zarr-python reads; a flipped byte in a time chunk or a companion column's chunk is CHUNK_CORRUPT naming the entry and the zip`, async () => {
			if (place.includes("ignores Range")) http.fault = () => ({ ignoreRange: true });
			const good = where("stored.zip");
			const out = path.join(work, `good${counter++}.arrow`);
			const ok = await runCliAsync([good.store, "--columns", "all", "--index", "-o", out, "-q", ...good.args], { env: good.env });
			expect(ok.stderr).toBe("");
			expect(ok.status).toBe(0);
			const table = readArrow(out);
			expect(Array.from(table.getChild("v")!.toArray() as Int32Array)).toEqual(expected.v);
			expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array, String)).toEqual(expected.time);

			for (const [zip, entry, args] of [
				["time-1.zip", "time/1", []],
				["v-2.zip", "v/2", ["--columns", "all", "--index"]],
			] as const) {
				const bad = where(zip);
				const target = path.join(work, `bad${counter++}.arrow`);
				const run = await runCliAsync([bad.store, ...args, "-o", target, "-q", ...bad.args], { env: bad.env });
				expect(run.status).toBe(1);
				const crc = expected.entries[entry].toString(16).padStart(8, "0");
				expect(run.stderr).toMatch(new RegExp(`^dt64-export: .*${zip.replace(".", "\\.")}: entry ${entry} fails its CRC-32 \\(the zip says 0x${crc}, its bytes give 0x[0-9a-f]{8}\\)`));
				expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
				expect(fs.existsSync(target)).toBe(false);
			}
			if (place.includes("S3")) expect(s3.requests.filter((request) => request.key === "v-2.zip" && request.status === 206).length).toBeGreaterThan(0);
			else if (place.includes("HTTP")) {
				const ranged = http.server.requests.filter((request) => request.path === "/v-2.zip" && request.status === 206).length;
				expect(ranged > 0).toBe(!place.includes("ignores Range"));
			}
		});
	}

	it("the library's error: code CHUNK_CORRUPT, the array's path and the entry's key", async () => {
		const target = path.join(work, `library${counter++}.arrow`);
		const error = await rejection(exportToFile(path.join(served, "v-2.zip"), target, { columns: "all" }));
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", path: "v", key: "v/2" });
		expect(error.message).toContain("v-2.zip: entry v/2 fails its CRC-32");
		expect(fs.existsSync(target)).toBe(false);
	});
});
