/**
 * Every export goes through the one table pipeline, with its fast paths: values converted where they were decoded
 * and chunk buffers handed back to a BufferPool once written. In a table the columns' bands are cut where their
 * chunks end, so a buffer can be written in several batches: it must come back only after its last use. Each case
 * exports a table through a PoisoningPool (a buffer spoilt the moment it comes back) and checks every value
 * against the values written, so a use after `release` shows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pipeline } from "node:stream/promises";
import { tableFromIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { createTableExportStages } from "../src/export.js";
import { openTable } from "../src/open-table.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";

const work = tempDir("dt64-pool-tables-");
const GZIP = { name: "gzip", configuration: { level: 1 } };
const LE = { name: "bytes", configuration: { endian: "little" } };
const ms = { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } };
const days = { name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } };

interface Layout {
	name: string;
	shape: number[];
	/** Chunk shapes of the columns a (ms), b (D), v (int32). */
	chunks: [number[], number[], number[]];
	order: "c" | "chunk";
}

const LAYOUTS: Layout[] = [
	{ name: "1-D, every column chunked otherwise", shape: [100_000], chunks: [[30_000], [7_000], [45_000]], order: "c" },
	{ name: "2-D, rows of chunks assembled", shape: [300, 400], chunks: [[64, 400], [100, 128], [300, 50]], order: "c" },
	{ name: "2-D, chunk order", shape: [300, 400], chunks: [[64, 128], [64, 128], [64, 128]], order: "chunk" },
	// Rows of 7,500 values: batches of 34 rows, cut inside rows of chunks; pooled bands and index columns.
	{ name: "3-D, rows of chunks cut into bands", shape: [41, 25, 300], chunks: [[40, 7, 300], [41, 25, 64], [9, 25, 300]], order: "c" },
	{ name: "3-D, chunk order", shape: [30, 20, 100], chunks: [[16, 7, 100], [16, 7, 100], [16, 7, 100]], order: "chunk" },
];

describe("tables export through a buffer pool without a use after release", () => {
	for (const layout of LAYOUTS) {
		it(layout.name, async () => {
			const length = layout.shape.reduce((x, y) => x * y, 1);
			const a = BigInt64Array.from({ length }, (_, i) => BigInt(i) * 1_000n + 7n);
			const b = BigInt64Array.from({ length }, (_, i) => BigInt(i % 50_000) - 20_000n);
			const v = Int32Array.from({ length }, (_, i) => i * 3 - 5);
			const store = path.join(work, `${layout.name.replace(/\W+/g, "-")}.zarr`);
			await writeArray(store, "a", { shape: layout.shape, chunks: layout.chunks[0], values: a, dataType: ms, codecs: [LE, GZIP] });
			await writeArray(store, "b", { shape: layout.shape, chunks: layout.chunks[1], values: b, dataType: days });
			await writeArray(store, "v", { shape: layout.shape, chunks: layout.chunks[2], values: v, dataType: "int32", fillValue: 0, codecs: [LE, GZIP] });
			const pool = new PoisoningPool();
			const table = await openTable(store, { columns: ["a", "b", "v"], bufferPool: pool });
			const out = path.join(work, `${path.basename(store)}.arrow`);
			const { reader, batcher, writer } = createTableExportStages(table, { unit: "us", index: true, order: layout.order, concurrency: 3 });
			await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
			const result = tableFromIPC(fs.readFileSync(out));
			// Raw values, batch by batch: no Arrow getter's conversion in between.
			const column = <T>(name: string) => result.getChild(name)!.data.flatMap((data) => Array.from(data.values as ArrayLike<T>));
			const dims = layout.shape.map((_, axis) => column<bigint>(`dim_${axis}`));
			const [outA, outB, outV] = [column<bigint>("a"), column<bigint>("b"), column<number>("v")];
			expect(outA).toHaveLength(length);
			let wrong = 0;
			for (let row = 0; row < length; row++) {
				const i = layout.shape.reduce((at, n, axis) => at * n + Number(dims[axis][row]), 0);
				if (outA[row] !== a[i] * 1_000n || outB[row] !== b[i] * 86_400_000_000n || outV[row] !== v[i]) wrong++;
			}
			expect(wrong).toBe(0);
			// Buffers did come back (else the case would prove nothing).
			expect(pool.freeBytes + pool.reused).toBeGreaterThan(0);
		});
	}
});
