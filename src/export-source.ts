/**
 * The first half of an export, without Arrow: the table the plan names, opened, and its reader. The CLI starts
 * reading and decoding chunks with these while the Arrow stages (export.ts) are still being loaded.
 */
import * as os from "node:os";
import type { OpenPlan, ReadPlan } from "./export-plan.js";
import { isCfTimeArray } from "./cf/cf-time-array.js";
import { locateTimeArray, openLocatedTimeArray } from "./open-array.js";
import { openCfTimeArrayTable, openTable, tableOfTimeArray, type TableColumn, type ZarrTable } from "./open-table.js";
import type { OpenedStore } from "./store/open-store.js";
import { TableReader } from "./stream/table-reader.js";
import type { RowRange } from "./select/time-search.js";

/**
 * Chunks read and decoded at once when `concurrency` is not given: remote reads wait on latency, so 8; local ones
 * (a folder or a zip file) on the inflate threads of libuv's pool, so one per core, 2 to 4 (the pool's 4 threads).
 * More chunks in flight than cores inflate no faster and hold a chunk of memory each (measured on 2 cores,
 * 50M gzip values: 4 in flight 0.84 s at 133 MiB peak, 2 in flight 0.85 s at 97 MiB).
 */
export function defaultConcurrency(store: Pick<OpenedStore, "remote">): number {
	return store.remote ? 8 : Math.min(4, Math.max(2, os.availableParallelism()));
}

/**
 * Opens what the plan names: the `columns` of `group` (the store root by default), or without `columns` the
 * store's time array (found as `locateTimeArray` does, `array` naming it, CF time arrays included) as a one-column
 * table.
 */
export async function openPlannedTable(location: string, plan: OpenPlan): Promise<ZarrTable> {
	if (plan.columns !== undefined) return openTable(location, { ...plan.store, ...plan.cf, group: plan.group, columns: plan.columns, indexSource: plan.indexSource });
	const located = await locateTimeArray(location, { ...plan.store, ...plan.cf, array: plan.array });
	try {
		if (!plan.cf.cf || !isCfTimeArray(located.node)) return tableOfTimeArray(openLocatedTimeArray(located, { ...plan.store, ...plan.cf }));
		return await openCfTimeArrayTable(located, { ...plan.store, ...plan.cf, indexSource: plan.indexSource });
	} finally {
		// The table keeps the store for its chunks; the documents read to find and open the array are not needed again.
		located.opened.documents.release();
	}
}

/**
 * The arrays a table export reads, in the reader's (and the batcher's) order: the coordinate arrays of the index
 * columns when they are written, then the value columns.
 */
export function readColumns(table: ZarrTable, index: boolean): TableColumn[] {
	const coordinates = index ? table.index.flatMap((entry) => (entry.kind === "coordinate" ? [entry.column] : [])) : [];
	return [...coordinates, ...table.columns];
}

/**
 * The reader of a table, which can start before the rest of its stages exist; with `rows`, of those rows along the
 * first axis only (see selectRows): chunks outside them are never read.
 */
export function createTableReader(table: ZarrTable, plan: ReadPlan, rows?: RowRange): TableReader {
	const columns = readColumns(table, plan.index);
	return new TableReader(
		columns.map((column) => ({ source: column.chunks, shape: column.metadata.shape, axes: column.axes })),
		table.shape,
		{ order: plan.order, concurrency: plan.concurrency ?? defaultConcurrency(table.store), onChunk: plan.onChunk, rows, bufferPool: table.bufferPool },
	);
}
