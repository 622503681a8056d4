/**
 * `--unit auto`'s pass over float CF counts, run once the table is laid out (src/table/deferred-auto-units.ts), meeting
 * an array it cannot read. What cannot be read from its metadata (an unknown codec, a shard index codec, nested too) is
 * refused when the column is opened, before the layout: `--columns all` leaves it out and the pass never runs for it.
 * What only a chunk can tell (a chunk that does not decode) fails the export when the pass reads it, as the export's
 * own read of it would: one line with its code, naming the chunk, nothing written (a dataset folder not even made).
 * A pass that fails UNSUPPORTED (no chunk read raises it today) fails the same way, its error as it came.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray, writeGroup } from "../scripts/lib/zarr-writer.mjs";
import { Dt64ExportError } from "../src/errors.js";
import { exportDataset, exportTable } from "../src/index.js";
import type { ZarrTable } from "../src/open-table.js";
import { DeferredAutoUnits } from "../src/table/deferred-auto-units.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { runCli, tempDir } from "./support/cli.js";
import { rejection } from "./support/thrown.js";

const N = 48;
const hours = Float64Array.from({ length: N }, (_, i) => i / 24);
const GZIP = [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }];

/** A group of `time` (float64 days since 2000-01-01, chunks of 12, gzip) and `v` over it; `time`'s codecs or chunks as asked. */
async function store(timeSpec: Record<string, unknown> = {}): Promise<string> {
	const root = path.join(tempDir("dt64-deferred-auto-"), "s.zarr");
	await writeGroup(root, "");
	await writeArray(root, "time", {
		shape: [N],
		chunks: [12],
		values: hours,
		dataType: "float64",
		fillValue: "NaN",
		dimensionNames: ["time"],
		attributes: { units: "days since 2000-01-01", calendar: "proleptic_gregorian" },
		codecs: GZIP,
		...timeSpec,
	});
	await writeArray(root, "v", { shape: [N], chunks: [12], values: Int32Array.from({ length: N }, (_, i) => i), dataType: "int32", fillValue: 0, dimensionNames: ["time"] });
	return root;
}

describe("the deferred auto-unit pass meeting an array it cannot read", () => {
	it("an unknown codec, or a nested shard's index codec, is refused when the column is opened: --columns all leaves it out, the pass never runs", async () => {
		const nested = [
			{
				name: "sharding_indexed",
				configuration: {
					chunk_shape: [6],
					codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [3], codecs: [GZIP[0]], index_codecs: GZIP, index_location: "end" } }],
					index_codecs: [GZIP[0], { name: "crc32c" }],
					index_location: "end",
				},
			},
		];
		for (const spec of [{ extraMetadata: { codecs: [...GZIP, { name: "bz2" }] } }, { codecs: nested }]) {
			const root = await store(spec);
			const table = await exportedArrow((sink) => exportTable(root, sink, { columns: "all", format: "arrow" }));
			expect(table.schema.fields.map((field) => field.name)).toEqual(["v"]);
			const cli = runCli([root, "--columns", "all", "-o", path.join(tempDir(), "all.arrow")]);
			expect(cli.status, cli.stderr).toBe(0);
			expect(cli.stderr).toMatch(/^dt64-export: columns all left out time: (unknown codec "bz2"|sharding_indexed: index codec "gzip" is not supported \(only bytes and crc32c\))\n/);
		}
	});

	it("a chunk that does not decode, met by the pass of a dataset export: one line with its code naming the chunk, no folder made", async () => {
		const root = await store({ corruptChunk: (coords: number[], bytes: Uint8Array) => (coords[0] === 2 ? bytes.subarray(0, 12) : bytes) });
		const folder = path.join(tempDir(), "dataset");
		const cli = runCli([root, "--columns", "all", "--index", "--partition-by", "day", "-o", folder]);
		expect(cli.status).toBe(1);
		expect(cli.stderr).toMatch(/^dt64-export: chunk time\/c\/2: cannot decode: gzip: .* \[CHUNK_CORRUPT\]\n$/);
		expect(fs.existsSync(folder)).toBe(false);
		const error = await rejection(exportDataset(root, folder, { columns: "all", index: true, partitionBy: "day" }));
		expect(error).toMatchObject({ code: "CHUNK_CORRUPT", key: "time/c/2", path: "time" });
		expect(fs.existsSync(folder)).toBe(false);
	});

	it("a pass failing UNSUPPORTED fails the table with that error as it came; every pass that did not finish ends what it kept", async () => {
		const units = new DeferredAutoUnits();
		const refused = new Dt64ExportError("UNSUPPORTED", "chunk time/c/0: a codec this package does not decode", { key: "time/c/0", path: "time" });
		const dropped: string[] = [];
		const column = (name: string) => ({ kind: "plain", name, metadata: { path: name }, axes: [0] });
		units.add("a", { run: async () => Promise.reject(refused), drop: () => dropped.push("a") });
		units.add("b", { run: async () => ({ exact: "s", nearest: "s" }), drop: () => dropped.push("b") });
		units.add("gone", { run: async () => ({ exact: "s", nearest: "s" }), drop: () => dropped.push("gone") });
		const table = { columns: [column("a"), column("b")], index: [] } as unknown as ZarrTable;
		expect(await rejection(units.settle(table))).toBe(refused);
		expect(dropped.sort()).toEqual(["a", "b", "gone"]);
	});
});
