/**
 * How many requests finding and opening a group's arrays costs in a bucket without consolidated metadata, counted
 * per key by test/support/s3-server.ts: each metadata document that exists read once per export, none probed in
 * the other Zarr format than its group's, and a malformed one reported as before.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";
import { tempDir } from "./support/cli.js";
import { startS3Server, type S3Server } from "./support/s3-server.js";

const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
/** Arrays of each group besides `time`: more than the reads in flight at once, so that they overlap and queue. */
const OTHERS = Array.from({ length: 23 }, (_, i) => `v${String(i).padStart(2, "0")}`);
const ROWS = 6;
const TIMES = BigInt64Array.from({ length: ROWS }, (_, i) => 1_600_000_000n + BigInt(i) * 3600n);

const bucket = tempDir("dt64-discovery-requests-");
const work = tempDir("dt64-discovery-requests-out-");
let s3: S3Server;

/** A Zarr v2 group as zarr-python 2 writes it (xarray's `_ARRAY_DIMENSIONS` in each array's .zattrs), one chunk per array. */
function writeV2Group(root: string, malformed: readonly string[] = []): void {
	fs.mkdirSync(root, { recursive: true });
	fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	fs.writeFileSync(path.join(root, ".zattrs"), JSON.stringify({ title: "v2" }));
	const array = (name: string, dtype: string, bytes: Uint8Array) => {
		const folder = path.join(root, name);
		fs.mkdirSync(folder);
		const zarray = { zarr_format: 2, shape: [ROWS], chunks: [ROWS], dtype, compressor: null, fill_value: null, filters: null, order: "C" };
		fs.writeFileSync(path.join(folder, ".zarray"), malformed.includes(name) ? '{"zarr_format": 2, "shape": [' : JSON.stringify(zarray));
		fs.writeFileSync(path.join(folder, ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["time"] }));
		fs.writeFileSync(path.join(folder, "0"), bytes);
	};
	array("time", "<M8[s]", new Uint8Array(TIMES.buffer));
	for (const name of OTHERS) array(name, "<i4", new Uint8Array(Int32Array.from({ length: ROWS }, (_, i) => i).buffer));
}

async function writeV3Group(root: string, malformed: readonly string[] = []): Promise<void> {
	await writeGroup(root, "", { title: "v3" });
	await writeArray(root, "time", { shape: [ROWS], chunks: [ROWS], dataType: seconds, values: TIMES, codecs: [LE], dimensionNames: ["time"] });
	for (const name of OTHERS) {
		await writeArray(root, name, { shape: [ROWS], chunks: [ROWS], dataType: "int32", fillValue: 0, values: Int32Array.from({ length: ROWS }, (_, i) => i), codecs: [LE], dimensionNames: ["time"] });
		if (malformed.includes(name)) fs.writeFileSync(path.join(root, name, "zarr.json"), '{"zarr_format": 3, "node_type": "array", "shape": [');
	}
}

beforeAll(async () => {
	writeV2Group(path.join(bucket, "b", "v2.zarr"));
	await writeV3Group(path.join(bucket, "b", "v3.zarr"));
	writeV2Group(path.join(bucket, "b", "v2-broken.zarr"), ["v05", "v17"]);
	await writeV3Group(path.join(bucket, "b", "v3-broken.zarr"), ["v05", "v17"]);
	// A v2 group holding a v3 array (zarr.json only) and an array with both formats' metadata.
	const mixed = path.join(bucket, "b", "mixed.zarr");
	writeV2Group(mixed);
	await writeArray(mixed, "v3-only", { shape: [ROWS], chunks: [ROWS], dataType: seconds, values: TIMES, codecs: [LE] });
	fs.rmSync(path.join(mixed, "zarr.json"));
	fs.writeFileSync(path.join(mixed, "v00", "zarr.json"), fs.readFileSync(path.join(mixed, "v3-only", "zarr.json")));
	s3 = await startS3Server({ root: bucket, users: {}, publicBuckets: ["b"] });
});
afterAll(async () => {
	await s3.close();
});

const env = () => ({ AWS_ENDPOINT_URL: s3.url, AWS_REGION: "us-east-1" });
const options = () => ({ env: env(), signRequests: false });
/** The arrays of each group: `time` and the others. */
const ARRAYS = 1 + OTHERS.length;
const isDocument = (key: string) => /(?:^|\/)(?:zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/.test(key);

/** The requests `run` makes to the store `store` of bucket `b`: listings, and how many times each key was read. */
async function requestsOf(store: string, run: () => Promise<unknown>): Promise<{ listings: number; reads: Map<string, number> }> {
	const before = s3.requests.length;
	await run();
	const requests = s3.requests.slice(before);
	const reads = new Map<string, number>();
	for (const request of requests) {
		if (request.query.get("list-type") === "2") continue;
		const key = request.key.slice(`${store}/`.length);
		reads.set(key, (reads.get(key) ?? 0) + 1);
	}
	return { listings: requests.filter((request) => request.query.get("list-type") === "2").length, reads };
}

/** The metadata documents read, each with how many times. */
const documentReads = (reads: Map<string, number>) => Object.fromEntries([...reads].filter(([key]) => isDocument(key)));
const once = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, 1]));
const memberKeys = (names: readonly string[], files: readonly string[]) => names.flatMap((name) => files.map((file) => `${name}/${file}`));
/** The store root's layout probes, sent together whatever the format: zarr.json, the v2 documents and `.zmetadata`. */
const ROOT_PROBES = ["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"];

describe("discovery over a bucket listing, without consolidated metadata", () => {
	it("a v3 group of N arrays, found then exported: 1 listing + 5 + N documents (the root's probes, each array's zarr.json), each read once", async () => {
		const { listings, reads } = await requestsOf("v3.zarr", () => exportToFile("s3://b/v3.zarr", path.join(work, "v3-found.arrow"), options()));
		expect(listings).toBe(1);
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys(["time", ...OTHERS], ["zarr.json"])]));
		expect(Object.keys(documentReads(reads))).toHaveLength(5 + ARRAYS);
	});

	it("a v2 group of N arrays, inspected: 1 listing + 5 + 2N documents (its own 4 probes and .zmetadata's, each array's .zarray and .zattrs), no zarr.json per array", async () => {
		const { listings, reads } = await requestsOf("v2.zarr", () => inspectStore("s3://b/v2.zarr", { ...options(), maxChunks: 1 }));
		expect(listings).toBe(1);
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys(["time", ...OTHERS], [".zarray", ".zattrs"])]));
		expect(Object.keys(documentReads(reads))).toHaveLength(5 + 2 * ARRAYS);
	});

	it("a v2 group, found then exported: the same documents, each read once", async () => {
		const { listings, reads } = await requestsOf("v2.zarr", () => exportToFile("s3://b/v2.zarr", path.join(work, "v2-found.arrow"), options()));
		expect(listings).toBe(1);
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys(["time", ...OTHERS], [".zarray", ".zattrs"])]));
	});
});

describe("a group's members in the other format", () => {
	it("a v2 group's member with both formats' metadata is read as v2, as zarr-python 3 reads a v2 group's members; one with only zarr.json is still found", async () => {
		const bucketReport = await inspectStore("s3://b/mixed.zarr", { ...options(), maxChunks: 1 });
		const folderReport = await inspectStore(path.join(bucket, "b", "mixed.zarr"), { maxChunks: 1 });
		for (const report of [bucketReport, folderReport]) {
			expect(report.nodes.find((node) => node.path === "v00")).toMatchObject({ kind: "array", zarrFormat: 2, dtype: "<i4" });
			expect(report.nodes.find((node) => node.path === "v3-only")).toMatchObject({ kind: "array", zarrFormat: 3, exportable: true });
		}
		const { reads } = await requestsOf("mixed.zarr", () => inspectStore("s3://b/mixed.zarr", { ...options(), maxChunks: 1 }));
		// Found after its v2 documents were looked for.
		expect(documentReads(reads)).toMatchObject(once(memberKeys(["v3-only"], [".zarray", ".zattrs", ".zgroup", "zarr.json"])));
	});
});

describe("an export naming its columns reads each metadata document once", () => {
	const columns = ["v03", "v11", "v20"];
	it("v3: --columns with index columns (the coordinate looked up, then opened): 5 + 3 + 1 documents", async () => {
		const { listings, reads } = await requestsOf("v3.zarr", () => exportToFile("s3://b/v3.zarr", path.join(work, "v3-columns.arrow"), { ...options(), columns, index: true }));
		expect(listings).toBe(0);
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys([...columns, "time"], ["zarr.json"])]));
	});

	it("v2: --columns with index columns: the group's 5 probes + 2 per array, no zarr.json per array", async () => {
		const { listings, reads } = await requestsOf("v2.zarr", () => exportToFile("s3://b/v2.zarr", path.join(work, "v2-columns.arrow"), { ...options(), columns, index: true }));
		expect(listings).toBe(0);
		// .zmetadata: consolidated metadata, where a store has some, is what its arrays are read as (as xarray reads them).
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys([...columns, "time"], [".zarray", ".zattrs"])]));
	});

	it("columns all: each array's documents read once, by the listing, not again to open it", async () => {
		const { listings, reads } = await requestsOf("v3.zarr", () => exportToFile("s3://b/v3.zarr", path.join(work, "v3-all.arrow"), { ...options(), columns: "all", index: true }));
		expect(listings).toBe(1);
		expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, ...memberKeys(["time", ...OTHERS], ["zarr.json"])]));
	});

	it("two exports of the same store each read the documents: nothing is kept from one export to the next", async () => {
		for (let run = 0; run < 2; run++) {
			const { reads } = await requestsOf("v3.zarr", () => exportToFile("s3://b/v3.zarr", path.join(work, `v3-again-${run}.arrow`), { ...options(), columns: ["v03"] }));
			expect(documentReads(reads)).toEqual(once([...ROOT_PROBES, "v03/zarr.json"]));
		}
	});
});

describe("errors stay where they were", () => {
	for (const format of ["v2", "v3"] as const) {
		it(`${format}: malformed documents among many are reported on their own arrays, in path order; --columns reports the first named`, async () => {
			const report = await inspectStore(`s3://b/${format}-broken.zarr`, { ...options(), maxChunks: 1 });
			expect(report.nodes.map((node) => node.path)).toEqual(["", "time", ...OTHERS]);
			const invalid = report.nodes.filter((node) => node.kind === "invalid");
			expect(invalid.map((node) => node.path)).toEqual(["v05", "v17"]);
			for (const node of invalid) expect(node.error).toContain(`${format}-broken.zarr/${node.path}/${format === "v2" ? ".zarray" : "zarr.json"}`);
			const error = await exportToFile(`s3://b/${format}-broken.zarr`, path.join(work, `${format}-broken.arrow`), { ...options(), columns: ["v01", "v17", "v05"] }).then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(error).toMatchObject({ code: "METADATA_INVALID" });
			expect((error as Error).message).toContain(`${format}-broken.zarr/v17/`);
		});
	}
});
