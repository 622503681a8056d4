import * as fs from "node:fs";
import { pipeline } from "node:stream/promises";
import { tableFromIPC, type Vector } from "apache-arrow";
import { createTableExportStages } from "../../src/export.js";
import type { BufferPool } from "../../src/memory/buffer-pool.js";
import { openTable } from "../../src/open-table.js";
import { AtomicFileWriter } from "../../src/output/atomic-file.js";

/** The buffers `pool` takes back from now on, counted by their byte length (their capacity). */
export function countReturns(pool: BufferPool): Map<number, number> {
	const back = new Map<number, number>();
	pool.onReturn((buffer) => back.set(buffer.byteLength, (back.get(buffer.byteLength) ?? 0) + 1));
	return back;
}

/**
 * Exports the `time` array of the group `store` in ms through the table stages, its chunks read into `pool` and
 * handed back to it by the output file `out`, as the CLI's export does; the time column as read back from `out`.
 */
export async function exportTimeThroughPool(store: string, pool: BufferPool, out: string): Promise<Vector> {
	const table = await openTable(store, { columns: ["time"], unit: "ms", bufferPool: pool, indexSource: "positions" });
	const { reader, batcher, writer } = createTableExportStages(table, { unit: "ms", index: false });
	await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { bufferPool: pool }));
	return tableFromIPC(fs.readFileSync(out)).getChild("time")!;
}
