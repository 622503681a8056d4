/**
 * `transpose` before `sharding_indexed` (the shard transposed, then sharded in the transposed axes) and inside a
 * shard's codecs, on stores written by hand with numpy as the Zarr v3 spec says (test/golden/
 * make_transpose_sharding_fixtures.py), against numpy's values; and the chains around sharding that are refused.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { readRawInt64, tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";
import { exportToFile } from "../src/export.js";
import { inspectStore } from "../src/inspect.js";
import { openTimeArray } from "../src/open-array.js";
import { readBands } from "../src/stream/chunk-bands.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures", "transpose-sharding");
const expected: Record<string, { shape: number[]; values: (string | null)[] }> = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8"));
const work = tempDir("dt64-transpose-sharding-");
const NAT = -(2n ** 63n);
let counter = 0;

/** A zarr.json as an object, its fill value -2^63 (which a double cannot hold) written as the "NaT" it is. */
const metadataOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8").replace(/("fill_value":\s*)-9223372036854775808/, '$1"NaT"'));

const numpyValues = (name: string) => expected[name].values.map((value) => (value === null ? null : BigInt(value)));

describe("transpose and sharding_indexed", () => {
	for (const name of Object.keys(expected)) {
		it(`${name}: the values numpy holds, in C order`, async () => {
			const out = path.join(work, `${name}-${counter++}.arrow`);
			await exportToFile(path.join(FIXTURES, `${name}.zarr`), out);
			expect(readRawInt64(out)).toEqual(numpyValues(name));
		});

		it(`${name}: rows read from the middle of the shards (a partial read of inner chunks) are numpy's`, async () => {
			const { chunks, metadata } = await openTimeArray(path.join(FIXTURES, `${name}.zarr`));
			const rowValues = metadata.shape.slice(1).reduce((a, b) => a * b, 1);
			const rows = { start: 1, end: metadata.shape[0] - 1 };
			const values: (bigint | null)[] = [];
			for await (const band of readBands(chunks, metadata.shape, 4, new AbortController().signal, undefined, undefined, rows)) {
				for (const value of band.values) values.push(value === NAT ? null : value);
			}
			expect(values).toEqual(numpyValues(name).slice(rows.start * rowValues, rows.end * rowValues));
		});
	}

	it("inspect lists the transposes before the shard's inner codecs", async () => {
		const report = await inspectStore(path.join(FIXTURES, "both-transposes.zarr"));
		expect(report.nodes[0]).toMatchObject({ shardShape: [4, 6, 4], chunkShape: [2, 2, 3], exportable: true });
		expect(report.nodes[0].codecs?.map((codec) => codec.split("(")[0])).toEqual(["transpose", "transpose", "bytes"]);
	});

	it("a shard shape that the inner chunks do not divide once transposed is refused, naming both shapes", async () => {
		const store = path.join(work, `bad-shape-${counter++}.zarr`);
		const source = metadataOf(path.join(FIXTURES, "outer-transpose.zarr", "zarr.json"));
		// [3, 2] divides the shard [6, 4] as sharding receives it, not [4, 6] as the grid writes it: [2, 3] does.
		source.codecs[1].configuration.chunk_shape = [2, 3];
		fs.mkdirSync(store);
		fs.writeFileSync(path.join(store, "zarr.json"), JSON.stringify(source));
		const error = await rejection(exportToFile(store, path.join(work, `never-${counter++}.arrow`)));
		expect(error).toMatchObject({ code: "METADATA_INVALID", field: "sharding_indexed" });
		expect(error.message).toContain("shard shape [6,4] ([4,6] transposed by the codecs before sharding_indexed) is not a multiple of the inner chunk shape [2,3]");
	});

	it("codecs after sharding_indexed, or an array -> bytes codec before it, are refused with the chain named", async () => {
		const sharding = { name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: [{ name: "bytes", configuration: { endian: "little" } }] } };
		const cases = [
			{ codecs: [sharding, { name: "gzip", configuration: { level: 1 } }], code: "UNSUPPORTED", text: 'codecs after sharding_indexed are not supported (codecs ["sharding_indexed","gzip"])' },
			{ codecs: [{ name: "bytes", configuration: { endian: "little" } }, sharding], code: "METADATA_INVALID", text: 'codec "bytes" cannot come before sharding_indexed, only array -> array codecs (transpose) can (codecs ["bytes","sharding_indexed"])' },
		];
		for (const { codecs, code, text } of cases) {
			const store = path.join(work, `refused-${counter++}.zarr`);
			await writeArray(store, "", { shape: [4], chunks: [4], values: new BigInt64Array(4), codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
			const metadata = metadataOf(path.join(store, "zarr.json"));
			fs.writeFileSync(path.join(store, "zarr.json"), JSON.stringify({ ...metadata, codecs }));
			const error = await rejection(exportToFile(store, path.join(work, `never-${counter++}.arrow`)));
			expect(error.code).toBe(code);
			expect(error.message).toContain(text);
			expect(error.message).not.toContain("\n");
		}
	});
});
