/**
 * Float CF time counts under `--unit auto` are read once to choose the unit, then exported: what the first pass
 * reads is kept (encoded, within KEPT_READ_BYTES) and handed to the export, so that each chunk is one request, not
 * two; past the bound, chunks are read again (store/kept-reads.ts).
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { keepingReads } from "../src/store/kept-reads.js";
import type { AbsolutePath, AsyncReadable } from "../src/store/readable.js";
import { readArrow, tempDir } from "./support/cli.js";
import { serveFolder } from "./support/served-folder.js";

const served = tempDir("dt64-cf-one-read-served-");
const work = tempDir("dt64-cf-one-read-out-");
const http = serveFolder(served);
const CHUNKS = 8;
const PER_CHUNK = 100;
const BLOSC = [
	{ name: "bytes", configuration: { endian: "little" } },
	{ name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } },
];

let counter = 0;
/** Quarter hours as float64 `hours since 2000-01-01` in CHUNKS chunks, with a data variable `v` over them. */
async function quarterHours(): Promise<string> {
	const name = `q${counter++}.zarr`;
	const root = path.join(served, name);
	await writeGroup(root, "");
	const n = CHUNKS * PER_CHUNK;
	await writeArray(root, "time", { shape: [n], chunks: [PER_CHUNK], dataType: "float64", fillValue: "NaN", values: Float64Array.from({ length: n }, (_, i) => i / 4), dimensionNames: ["time"], attributes: { units: "hours since 2000-01-01" }, codecs: BLOSC });
	await writeArray(root, "v", { shape: [n], chunks: [n], dataType: "float32", fillValue: 0, values: Float32Array.from({ length: n }, (_, i) => i), dimensionNames: ["time"], codecs: BLOSC });
	return name;
}

/** The requests of each chunk of `array`, by chunk index. */
function chunkRequests(array: string): number[] {
	const counts = new Array<number>(CHUNKS).fill(0);
	for (const request of http.server.requests) {
		const match = new RegExp(`/${array}/c/(\\d+)$`).exec(request.path);
		if (match !== null) counts[Number(match[1])]++;
	}
	return counts;
}

const START = 946_684_800n;
/** The seconds of each quarter hour: the column's stored values. */
const expected = Array.from({ length: CHUNKS * PER_CHUNK }, (_, i) => START + BigInt(i) * 900n);

describe("float CF time counts under --unit auto over HTTP", () => {
	it("reads each chunk of the array once: the unit's pass hands its reads on to the export", async () => {
		const name = await quarterHours();
		const out = path.join(work, `${counter++}.arrow`);
		await exportToFile(`${http.server.url}/${name}`, out, { array: "time" });
		const table = readArrow(out);
		expect(String(table.schema.fields[0].type)).toBe("Timestamp<SECOND>");
		expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array, BigInt)).toEqual(expected);
		expect(chunkRequests("time")).toEqual(new Array(CHUNKS).fill(1));
	});

	it("reads each chunk of a time coordinate once when it is a table's index", async () => {
		const name = await quarterHours();
		const out = path.join(work, `${counter++}.arrow`);
		await exportToFile(`${http.server.url}/${name}`, out, { columns: ["v"], index: true });
		const table = readArrow(out);
		expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array, BigInt)).toEqual(expected);
		expect(chunkRequests("time")).toEqual(new Array(CHUNKS).fill(1));
	});
});

/** A store of a few keys of `size` bytes each, counting the gets of each key. */
function countingStore(size: number): { store: AsyncReadable; gets: Map<string, number> } {
	const gets = new Map<string, number>();
	return {
		gets,
		store: {
			async get(key: AbsolutePath) {
				gets.set(key, (gets.get(key) ?? 0) + 1);
				// A Node Buffer, as the folder store reads: its slice would be a view of it.
				return key === "/missing" ? undefined : Buffer.alloc(size, key.length);
			},
		},
	};
}

describe("keepingReads", () => {
	it("hands each value kept over once, keeps no more than its bound, and nothing after stopKeeping", async () => {
		const { store, gets } = countingStore(4);
		const kept = keepingReads(store, 8);
		for (const key of ["/a", "/bb", "/ccc", "/missing"] as const) await kept.get(key);
		kept.stopKeeping();
		const handed = await kept.get("/a");
		expect(Array.from(handed!)).toEqual([2, 2, 2, 2]);
		await kept.get("/bb");
		expect(await kept.get("/missing")).toBeUndefined();
		// Past the bound: read again. Handed over once: the next read of a kept key reads it.
		await kept.get("/ccc");
		await kept.get("/a");
		expect(Object.fromEntries(gets)).toEqual({ "/a": 2, "/bb": 1, "/ccc": 2, "/missing": 1 });
		// Kept no longer: read again each time.
		await kept.get("/bb");
		await kept.get("/bb");
		expect(gets.get("/bb")).toBe(3);
	});

	it("keeps a copy of its own: the first reader may decode the value in its buffer, or move the buffer away", async () => {
		const { store } = countingStore(4);
		const kept = keepingReads(store, 64);
		const first = (await kept.get("/a")) as Buffer;
		first.fill(9);
		structuredClone(first.buffer, { transfer: [first.buffer] });
		kept.stopKeeping();
		expect(Array.from((await kept.get("/a"))!)).toEqual([2, 2, 2, 2]);
	});
});
