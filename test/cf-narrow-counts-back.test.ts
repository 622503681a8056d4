/**
 * CF time counts narrower than int64 (a netCDF file's int32 hours, float32 days, packed int16) are decoded into an
 * int64 buffer of the pool, not where they were read: the buffer they were read into is then dead, and goes back to
 * the pool for the next chunks (ColumnContext.releaseValues). Without it, each chunk's buffer was garbage for the
 * collector, and a 20M-value int32 store peaked at 146 MiB where int64 counts take 83. Each case exports through a
 * PoisoningPool (a buffer spoilt the moment it comes back), so a buffer handed back while still in use shows in the
 * values, and counts the buffers of the counts' size that come back.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { capacityFor } from "../src/memory/buffer-pool.js";
import { tempDir } from "./support/cli.js";
import { PoisoningPool } from "./support/poisoning-pool.js";
import { countReturns, exportTimeThroughPool } from "./support/pool-export.js";

const work = tempDir("dt64-cf-narrow-back-");
const GZIP = [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }];
const HOUR_MS = 3_600_000n;
const FILL = -2147483647;

interface Case {
	name: string;
	shape: number[];
	chunks: number[];
	dataType: "int32" | "float32" | "int16";
	/** Bytes of one chunk's counts: the size of the buffers that should come back, one per chunk at least. */
	countBytes: number;
	codecs?: unknown[];
	attributes?: Record<string, unknown>;
	/** The instant (ms since 1970) of count i, or null. */
	expected: (i: number) => bigint | null;
}

/** Hours since 2000-01-01 as ms since 1970. */
const EPOCH_2000_MS = 946_684_800_000n;
const CHUNK = 50_000;

const CASES: Case[] = [
	{
		name: "1-D int32 hours with a fill value every 1000th, uncompressed",
		shape: [6 * CHUNK],
		chunks: [CHUNK],
		dataType: "int32",
		countBytes: CHUNK * 4,
		expected: (i) => (i % 1000 === 0 ? null : EPOCH_2000_MS + BigInt(i) * HOUR_MS),
	},
	{
		name: "1-D float32 hours, gzip",
		shape: [6 * CHUNK],
		chunks: [CHUNK],
		dataType: "float32",
		countBytes: CHUNK * 4,
		codecs: GZIP,
		expected: (i) => EPOCH_2000_MS + BigInt(i % 100_000) * HOUR_MS,
	},
	{
		name: "1-D int16 packed (scale_factor 2), gzip",
		shape: [6 * CHUNK],
		chunks: [CHUNK],
		dataType: "int16",
		countBytes: CHUNK * 2,
		codecs: GZIP,
		attributes: { scale_factor: 2 },
		expected: (i) => EPOCH_2000_MS + BigInt(2 * (i % 30_000)) * HOUR_MS,
	},
	{
		// Rows of chunks assembled into pooled bands: the bands' int32 buffers come back once decoded.
		name: "2-D int32 hours, rows of chunks assembled into bands",
		shape: [600, 500],
		chunks: [100, 250],
		dataType: "int32",
		countBytes: 100 * 500 * 4,
		codecs: GZIP,
		expected: (i) => (i % 1000 === 0 ? null : EPOCH_2000_MS + BigInt(i) * HOUR_MS),
	},
];

function countsOf(c: Case, length: number): Int32Array | Float32Array | Int16Array {
	if (c.dataType === "float32") return Float32Array.from({ length }, (_, i) => i % 100_000);
	if (c.dataType === "int16") return Int16Array.from({ length }, (_, i) => i % 30_000);
	return Int32Array.from({ length }, (_, i) => (i % 1000 === 0 ? FILL : i));
}

describe("CF time counts narrower than int64 hand their buffers back once decoded", () => {
	for (const c of CASES) {
		it(c.name, async () => {
			const length = c.shape.reduce((x, y) => x * y, 1);
			const store = path.join(work, `${c.name.replace(/\W+/g, "-")}.zarr`);
			const dimensionNames = c.shape.length === 1 ? ["time"] : ["time", "x"];
			await writeArray(store, "time", {
				shape: c.shape,
				chunks: c.chunks,
				values: countsOf(c, length),
				dataType: c.dataType,
				fillValue: c.dataType === "int32" ? FILL : 0,
				writeEmptyChunks: true,
				dimensionNames,
				attributes: { units: "hours since 2000-01-01", ...(c.dataType === "int32" && { _FillValue: FILL }), ...c.attributes },
				...(c.codecs && { codecs: c.codecs }),
			});
			const pool = new PoisoningPool();
			const back = countReturns(pool);
			const column = await exportTimeThroughPool(store, pool, path.join(work, `${path.basename(store)}.arrow`));
			expect(column.length).toBe(length);
			let wrong = 0;
			let at = 0;
			for (const data of column.data) {
				const values = data.values as BigInt64Array;
				for (let j = 0; j < data.length; j++, at++) {
					const got = data.getValid(j) ? values[j] : null;
					if (got !== c.expected(at)) wrong++;
				}
			}
			expect(wrong, "values wrong (a buffer back while in use?)").toBe(0);
			// One buffer of the counts' size back per chunk (or band) decoded: none came back before.
			const chunks = length / (c.countBytes / (c.dataType === "int16" ? 2 : 4));
			expect(back.get(capacityFor(c.countBytes)) ?? 0).toBeGreaterThanOrEqual(chunks);
		});
	}
});
