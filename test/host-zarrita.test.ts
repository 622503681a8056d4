/**
 * A program that embeds this library and reads Zarr with zarrita itself: its reads are the same before and after
 * an export in the same process, for every codec the exporter decodes, because the exporter keeps its codecs in a
 * map of its own and never writes zarrita's global `registry`.
 */
import { Writable } from "node:stream";
import * as path from "node:path";
import { FileSystemStore } from "@zarrita/storage";
import * as zarr from "zarrita";
import { beforeAll, describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { exportTable } from "../src/index.js";
import { tempDir } from "./support/cli.js";

const N = 50;
const LE = { name: "bytes", configuration: { endian: "little" } };
const seconds = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
const values = BigInt64Array.from({ length: N }, (_, i) => BigInt(i * 1_000_003) - 7n);
const names = Array.from({ length: N }, (_, i) => (i % 5 === 0 ? "" : `name ${i} – ✓`));

/** The arrays a host reads, by name: each with one of the codecs the exporter decodes. */
const CODECS: Record<string, unknown[]> = {
	zstd: [LE, { name: "zstd", configuration: { level: 0, checksum: false } }],
	blosc: [LE, { name: "blosc", configuration: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }],
	lz4: [LE, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "bitshuffle", typesize: 8, blocksize: 0 } }],
	gzip: [LE, { name: "gzip", configuration: { level: 1 } }],
	crc: [LE, { name: "crc32c" }],
	shard: [{ name: "sharding_indexed", configuration: { chunk_shape: [5], codecs: [LE, { name: "zstd", configuration: { level: 1, checksum: false } }], index_codecs: [LE, { name: "crc32c" }], index_location: "end" } }],
};

let group: string;

beforeAll(async () => {
	group = path.join(tempDir("dt64-host-zarrita-"), "group.zarr");
	await writeGroup(group, "");
	await writeArray(group, "time", { shape: [N], chunks: [20], dataType: seconds, values, codecs: [LE, { name: "gzip", configuration: { level: 1 } }] });
	for (const [name, codecs] of Object.entries(CODECS)) {
		await writeArray(group, name, { shape: [N], chunks: [name === "shard" ? 25 : 15], dataType: "int64", fillValue: 0, values, codecs });
	}
	await writeArray(group, "names", { shape: [N], chunks: [12], dataType: "string", fillValue: "", values: names, codecs: [{ name: "vlen-utf8" }, { name: "gzip", configuration: { level: 1 } }] });
});

/** What the host's zarrita reads from every array, as plain JS values. */
async function hostReads(): Promise<Record<string, unknown[]>> {
	const store = new FileSystemStore(group);
	const reads: Record<string, unknown[]> = {};
	for (const name of [...Object.keys(CODECS), "names"]) {
		const array = await zarr.open.v3(zarr.root(store).resolve(name), { kind: "array" });
		const chunk = await zarr.get(array);
		reads[name] = Array.from(chunk.data as ArrayLike<unknown>);
	}
	return reads;
}

describe("a host program's zarrita", () => {
	it("reads every codec the same before and after an export in its process, and its registry is untouched", async () => {
		const registryBefore = new Map(zarr.registry);
		const before = await hostReads();
		expect(before.zstd).toEqual(Array.from(values));
		expect(before.names).toEqual(names);

		let bytes = 0;
		const sink = new Writable({
			write(chunk: Buffer, _encoding, done) {
				bytes += chunk.length;
				done();
			},
		});
		await exportTable(group, sink, { columns: ["time", ...Object.keys(CODECS), "names"], format: "arrow" });
		expect(bytes).toBeGreaterThan(0);

		expect(new Map(zarr.registry)).toEqual(registryBefore);
		for (const [name, load] of registryBefore) expect(zarr.registry.get(name), name).toBe(load);
		expect(await hostReads()).toEqual(before);
	});
});
