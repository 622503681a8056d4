/**
 * Round trips before the first chunk of a remote store, and objects read twice (trial 20, findings 11 and 16), against
 * test/support/http-server.ts with every request held a while: the store's layout probes asked for together, the
 * documents of every array a table opens in one batch (METADATA_READS_IN_FLIGHT at a time), each document and chunk
 * read once; and the answers as before where a probe fails.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportToFile } from "../src/export.js";
import { CHECKED_CONSOLIDATED_NODES, inspectStore } from "../src/inspect.js";
import { openTable } from "../src/open-table.js";
import { METADATA_READS_IN_FLIGHT } from "../src/store/metadata-documents.js";
import { tempDir } from "./support/cli.js";
import { mostInFlight, type RequestRecord } from "./support/http-server.js";
import { serveFolder } from "./support/served-folder.js";

const served = tempDir("dt64-remote-startup-served-");
const work = tempDir("dt64-remote-startup-out-");
const http = serveFolder(served);

/** How long the server holds each request: long enough that requests sent together overlap whatever the load. */
const HELD_MS = 100;
const LE = { name: "bytes", configuration: { endian: "little" } };
const SECONDS = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };

interface V2Array {
	readonly dtype: "<i8" | "<f8" | "<f4" | "<i4";
	readonly shape: number[];
	readonly chunks: number[];
	readonly values: ArrayLike<number>;
	readonly attributes: Record<string, unknown>;
}

const TYPED = { "<i8": BigInt64Array, "<f8": Float64Array, "<f4": Float32Array, "<i4": Int32Array } as const;

/** A Zarr v2 group as xarray writes it with zarr-python 2: `.zgroup`, `.zattrs`, arrays, consolidated `.zmetadata`. */
function writeV2Dataset(name: string, arrays: Record<string, V2Array>, groupAttributes: Record<string, unknown> = {}): string {
	const root = path.join(served, name);
	fs.mkdirSync(root, { recursive: true });
	const metadata: Record<string, unknown> = { ".zgroup": { zarr_format: 2 }, ".zattrs": groupAttributes };
	for (const [array, { dtype, shape, chunks, values, attributes }] of Object.entries(arrays)) {
		const folder = path.join(root, array);
		fs.mkdirSync(folder);
		const zarray = { zarr_format: 2, shape, chunks, dtype, compressor: null, fill_value: null, filters: null, order: "C" };
		fs.writeFileSync(path.join(folder, ".zarray"), JSON.stringify(zarray));
		fs.writeFileSync(path.join(folder, ".zattrs"), JSON.stringify(attributes));
		metadata[`${array}/.zarray`] = zarray;
		metadata[`${array}/.zattrs`] = attributes;
		// 1-D arrays here, or 2-D chunked along the first axis only.
		const rowSize = shape.slice(1).reduce((a, b) => a * b, 1);
		for (let chunk = 0; chunk * chunks[0] < shape[0]; chunk++) {
			const typed = new TYPED[dtype](chunks[0] * rowSize);
			for (let i = 0; i < typed.length && chunk * chunks[0] * rowSize + i < values.length; i++) {
				const value = values[chunk * chunks[0] * rowSize + i];
				(typed as unknown as (number | bigint)[])[i] = dtype === "<i8" ? BigInt(value) : value;
			}
			fs.writeFileSync(path.join(folder, [chunk, ...shape.slice(1).map(() => 0)].join(".")), new Uint8Array(typed.buffer));
		}
	}
	fs.writeFileSync(path.join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
	fs.writeFileSync(path.join(root, ".zattrs"), JSON.stringify(groupAttributes));
	fs.writeFileSync(path.join(root, ".zmetadata"), JSON.stringify({ metadata, zarr_consolidated_format: 1 }));
	return `${http.server.url}/${name}`;
}

const isDocument = (request: { path: string }) => /\/(?:zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/.test(request.path);

/**
 * The round trips of `requests`, one after another: a request started after another ended may have waited for it,
 * so it is one round trip later; requests sent together are in the same round trip.
 */
function roundTrips(requests: readonly RequestRecord[]): number {
	const depth = new Map<RequestRecord, number>();
	for (const request of [...requests].sort((a, b) => a.start - b.start)) {
		const before = requests.filter((other) => other.end !== undefined && other.end <= request.start).map((other) => depth.get(other) ?? 0);
		depth.set(request, 1 + Math.max(0, ...before));
	}
	return Math.max(0, ...depth.values());
}

/** How many times each path was requested. */
function readsByPath(requests: readonly RequestRecord[], store: string): Map<string, number> {
	const reads = new Map<string, number>();
	for (const request of requests) {
		const key = request.path.slice(`/${store}/`.length);
		reads.set(key, (reads.get(key) ?? 0) + 1);
	}
	return reads;
}

const HOURS = 24;
const STATIONS = 3;

/** An ERA-style store: t2m(time, station), CF time in one-value chunks (xarray's append layout), station coordinates. */
function eraStore(name: string): string {
	return writeV2Dataset(name, {
		time: { dtype: "<i8", shape: [HOURS], chunks: [1], values: Array.from({ length: HOURS }, (_, i) => i), attributes: { _ARRAY_DIMENSIONS: ["time"], units: "hours since 2021-01-05", calendar: "proleptic_gregorian" } },
		station: { dtype: "<i4", shape: [STATIONS], chunks: [STATIONS], values: [101, 102, 103], attributes: { _ARRAY_DIMENSIONS: ["station"] } },
		lat: { dtype: "<f8", shape: [STATIONS], chunks: [STATIONS], values: [50.5, 51.5, 52.5], attributes: { _ARRAY_DIMENSIONS: ["station"] } },
		lon: { dtype: "<f8", shape: [STATIONS], chunks: [STATIONS], values: [4.5, 5.5, 6.5], attributes: { _ARRAY_DIMENSIONS: ["station"] } },
		t2m: { dtype: "<f4", shape: [HOURS, STATIONS], chunks: [6, STATIONS], values: Array.from({ length: HOURS * STATIONS }, (_, i) => 270 + i), attributes: { _ARRAY_DIMENSIONS: ["time", "station"], coordinates: "lat lon" } },
	});
}

describe("a remote store's start-up (trial 20, finding 11)", () => {
	it("an export of columns with their index: the store's probes in one round trip, every array's documents in the next, each read once", async () => {
		const url = eraStore("era.zarr");
		http.fault = () => ({ delayMs: HELD_MS });
		await exportToFile(url, path.join(work, "era.arrow"), { columns: ["t2m"], index: true });
		const documents = http.server.requests.filter(isDocument);
		const firstChunk = Math.min(...http.server.requests.filter((request) => !isDocument(request)).map((request) => request.start));
		expect(documents.every((request) => request.start < firstChunk)).toBe(true);
		// zarr.json, .zarray, .zgroup, .zattrs and .zmetadata together; then t2m's, time's, station's, lat's and lon's
		// .zarray and .zattrs (the coordinates t2m's dimensions and its `coordinates` name, as .zmetadata lists them).
		// One after another, they were 5 + 4 round trips.
		expect(roundTrips(documents)).toBe(2);
		const reads = readsByPath(documents, "era.zarr");
		expect(Object.fromEntries(reads)).toEqual(
			Object.fromEntries(["zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata", ...["t2m", "time", "station", "lat", "lon"].flatMap((name) => [`${name}/.zarray`, `${name}/.zattrs`])].map((key) => [key, 1])),
		);
		expect(mostInFlight(documents)).toBe(10);
	});

	it("a wide table (time and 30 variables, columns all): the arrays' documents in one batch, METADATA_READS_IN_FLIGHT at a time (finding 16)", async () => {
		const variables = Array.from({ length: 30 }, (_, k) => `v${String(k).padStart(2, "0")}`);
		const url = writeV2Dataset("wide.zarr", {
			time: { dtype: "<i8", shape: [20], chunks: [10], values: Array.from({ length: 20 }, (_, i) => i), attributes: { _ARRAY_DIMENSIONS: ["time"], units: "hours since 2021-01-01" } },
			...Object.fromEntries(variables.map((name, k) => [name, { dtype: "<f4" as const, shape: [20], chunks: [10], values: Array.from({ length: 20 }, (_, i) => k + i), attributes: { _ARRAY_DIMENSIONS: ["time"] } }])),
		});
		http.fault = (request) => (isDocument(request) ? { delayMs: HELD_MS } : undefined);
		await exportToFile(url, path.join(work, "wide.arrow"), { columns: "all", index: true });
		const documents = http.server.requests.filter(isDocument);
		expect(documents).toHaveLength(5 + 2 * 31);
		expect(new Set(documents.map((request) => request.path)).size).toBe(documents.length);
		expect(mostInFlight(documents)).toBe(METADATA_READS_IN_FLIGHT);
		// The probes, then 62 documents 16 at a time (the next starting as one ends): 31 round trips one array after another.
		expect(roundTrips(documents)).toBeLessThanOrEqual(1 + Math.ceil((2 * 31) / METADATA_READS_IN_FLIGHT) + 1);
	});

	it("a range of a time coordinate in one-value chunks: each of its chunks read once, the range's from the whole read that checked it sorted", async () => {
		const url = eraStore("era-range.zarr");
		const out = path.join(work, "era-range.arrow");
		await exportToFile(url, out, { columns: ["t2m"], index: true, start: "2021-01-05T06:00", end: "2021-01-05T12:00" });
		const table = tableFromIPC(fs.readFileSync(out));
		// Hours 6 to 11 at each station, as read from memory: their times (in s, --unit auto of hours) and values.
		expect(table.numRows).toBe(6 * STATIONS);
		expect(Array.from(table.getChild("time")!.toArray() as BigInt64Array, (value) => Number(value / 3600n) % 24)).toEqual([6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10, 10, 11, 11, 11]);
		expect(Array.from(table.getChild("t2m")!.toArray() as Float32Array)).toEqual(Array.from({ length: 6 * STATIONS }, (_, i) => 270 + 6 * STATIONS + i));
		const timeChunks = [...readsByPath(http.server.requests, "era-range.zarr")].filter(([key]) => /^time\/\d+$/.test(key));
		// The whole coordinate, read once to check it sorted; the 6 chunks of the range were read again for the index column.
		expect(timeChunks).toHaveLength(HOURS);
		expect(timeChunks.every(([, reads]) => reads === 1)).toBe(true);
	});

	it("inspect of a float64 `days since` time: its one chunk read once, for the unit of its counts and for its first and last values", async () => {
		const url = writeV2Dataset("float-days.zarr", {
			time: { dtype: "<f8", shape: [10], chunks: [10], values: Array.from({ length: 10 }, (_, i) => 0.25 * i), attributes: { _ARRAY_DIMENSIONS: ["time"], units: "days since 2000-01-01" } },
			level: { dtype: "<i8", shape: [4], chunks: [4], values: [1000, 850, 500, 250], attributes: { _ARRAY_DIMENSIONS: ["level"], units: "seconds since 2000-01-01" } },
		});
		const report = await inspectStore(url);
		const time = report.nodes.find((node) => node.path === "time");
		expect(time).toMatchObject({ floatCountsRead: true, first: { status: "found", iso: "2000-01-01T00:00:00" }, last: { status: "found", iso: "2000-01-03T06:00:00" } });
		expect(report.nodes.find((node) => node.path === "level")).toMatchObject({ first: { status: "found", row: 0 }, last: { status: "found", row: 3 } });
		const reads = readsByPath(http.server.requests, "float-days.zarr");
		// Three times for time/0 (its unit, its first value, its last), twice for level/0.
		expect(reads.get("time/0")).toBe(1);
		expect(reads.get("level/0")).toBe(1);
	});
});

describe("inspect over HTTP checks the consolidated metadata against the arrays' own documents", () => {
	it("a store of up to CHECKED_CONSOLIDATED_NODES arrays: their documents in one batch, each once; a larger one: the consolidated metadata alone", async () => {
		const arrays = (count: number) =>
			Object.fromEntries(Array.from({ length: count }, (_, k) => [`v${String(k).padStart(2, "0")}`, { dtype: "<f4" as const, shape: [4], chunks: [4], values: [1, 2, 3, 4], attributes: { _ARRAY_DIMENSIONS: ["x"] } }]));
		const small = writeV2Dataset("checked.zarr", arrays(30));
		http.fault = (request) => (isDocument(request) ? { delayMs: HELD_MS } : undefined);
		await inspectStore(small);
		const documents = http.server.requests.filter(isDocument);
		expect(documents).toHaveLength(5 + 2 * 30);
		expect(new Set(documents.map((request) => request.path)).size).toBe(documents.length);
		expect(mostInFlight(documents)).toBe(METADATA_READS_IN_FLIGHT);
		http.server.reset();
		const large = writeV2Dataset("unchecked.zarr", arrays(CHECKED_CONSOLIDATED_NODES + 1));
		await inspectStore(large);
		expect(http.server.requests.filter(isDocument)).toHaveLength(5);
	});
});

describe("the answers stay those of probes read one after another", () => {
	it("a probe that fails (500) is the error, as when it was read in turn, though the probes after it answered first", async () => {
		const url = eraStore("era-failing.zarr");
		// zarr.json (absent) and .zarray (absent) answer last; .zgroup fails at once; .zmetadata answers at once.
		http.fault = (request) => (/\/(zarr\.json|\.zarray)$/.test(request.path) && !request.path.includes("/t2m/") ? { delayMs: 2 * HELD_MS } : request.path.endsWith("era-failing.zarr/.zgroup") ? { status: 500 } : undefined);
		const failure = await openTable(url, { columns: ["t2m"], retries: 0 }).then(
			() => undefined,
			(error: unknown) => error,
		);
		expect(failure).toMatchObject({ code: "READ_FAILED", key: ".zgroup" });
		// Read once: the probe's failure was kept for the reader that met it, not sent again.
		expect(http.server.requests.filter((request) => request.path.endsWith("era-failing.zarr/.zgroup"))).toHaveLength(1);
	});

	it("a probe the answer does not need may fail: a v3 store's .zmetadata and .zgroup answering 500 are not looked at, as when they were never asked for", async () => {
		const root = path.join(served, "v3-failing.zarr");
		await writeGroup(root, "");
		await writeArray(root, "time", { shape: [4], chunks: [4], values: BigInt64Array.of(0n, 60n, 120n, 180n), codecs: [LE], dimensionNames: ["time"], dataType: SECONDS });
		http.fault = (request) => (/v3-failing\.zarr\/\.z(metadata|group)$/.test(request.path) ? { status: 500 } : undefined);
		const table = await openTable(`${http.server.url}/v3-failing.zarr`, { columns: ["time"], retries: 0 });
		expect(table.index).toMatchObject([{ kind: "coordinate", name: "time" }]);
	});
});
