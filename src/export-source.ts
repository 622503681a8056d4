/**
 * The first half of an export, without Arrow: the table the plan names, opened, and its reader. The CLI starts
 * reading and decoding chunks with these while the Arrow stages (export.ts) are still being loaded.
 */
import * as os from "node:os";
import type { OpenPlan, ReadPlan } from "./export-plan.js";
import { poolOf } from "./memory/opened-pool.js";
import { isCfTimeArray } from "./cf/cf-time-array.js";
import { locateTimeArray, openLocatedTimeArray } from "./open-array.js";
import { openCfTimeArrayTable, openTableBeforeReading, tableOfTimeArray, type BeforeReadingValues, type TableColumn, type ZarrTable } from "./open-table.js";
import type { OpenedStore } from "./store/open-store.js";
import { tableReaderWith, type TableReader } from "./stream/table-reader.js";
import type { ReadLimits } from "./stream/chunk-bands.js";
import type { RowRange } from "./select/time-search.js";
import { batchValueBytes, chunkValueBytes } from "./table/value-bytes.js";

/**
 * Chunks read and decoded at once, per column, when `concurrency` is not given. Local ones (a folder or a zip file)
 * wait on the inflate threads of libuv's pool: one per core, 2 to 4 (the pool's 4 threads). More chunks in flight
 * than cores inflate no faster and hold a chunk of memory each (measured on 2 cores, 50M gzip values: 4 in flight
 * 0.84 s at 133 MiB peak, 2 in flight 0.85 s at 97 MiB).
 *
 * Remote reads wait on latency: REMOTE_REQUESTS requests in flight for the table, shared by the columns read
 * (`chunkShapes`, one per column), each column at least REMOTE_MIN_PER_COLUMN, and fewer when their chunks are large,
 * so that the chunks in flight hold about REMOTE_READ_BYTES (values counted at 8 bytes). Small chunks are what the
 * latency costs most: 10,000 chunks of 100 values at 20 ms a request took 32 s with 8 in flight, 32 in flight reach
 * the same end four times sooner (bench/remote-chunks.mjs); chunks of 8 MiB stay at 8 in flight, as before.
 */
export function defaultConcurrency(store: Pick<OpenedStore, "remote">, chunkShapes: readonly (readonly number[])[] = []): number {
	if (!store.remote) return Math.min(4, Math.max(2, os.availableParallelism()));
	const columns = Math.max(1, chunkShapes.length);
	const largest = Math.max(0, ...chunkShapes.map((shape) => shape.reduce((values, length) => values * length, 8)));
	const byBytes = largest === 0 ? REMOTE_REQUESTS : Math.floor(REMOTE_READ_BYTES / (largest * columns));
	return Math.max(REMOTE_MIN_PER_COLUMN, Math.min(Math.floor(REMOTE_REQUESTS / columns), byBytes));
}

/**
 * Chunks in flight per column at most over a remote store, when a request reads several of them (the inner chunks
 * of a shard, see ChunkSource.chunksPerRequest): the requests in flight are then `concurrency` shards (an export of
 * 200 shards of 10 inner chunks had 4 in flight, of shards of 100 inner chunks 1, when the limit counted inner
 * chunks), and their inner chunks as many as hold REMOTE_READ_BYTES of values, shared by the columns (values
 * counted at 8 bytes). Undefined for a local store, whose chunks in flight are its concurrency.
 */
export function remoteChunksInFlight(store: Pick<OpenedStore, "remote">, chunkShapes: readonly (readonly number[])[] = []): number | undefined {
	if (!store.remote) return undefined;
	const columns = Math.max(1, chunkShapes.length);
	const largest = Math.max(0, ...chunkShapes.map((shape) => shape.reduce((values, length) => values * length, 8)));
	return largest === 0 ? undefined : Math.floor(REMOTE_READ_BYTES / (largest * columns));
}

/** Requests in flight for a table read from a remote store, shared by its columns (see defaultConcurrency). */
export const REMOTE_REQUESTS = 32;
/** Requests in flight for each column of a remote table at least: what every column had before REMOTE_REQUESTS. */
const REMOTE_MIN_PER_COLUMN = 8;
/** Decoded bytes the chunks in flight of a remote table hold at most, beyond REMOTE_MIN_PER_COLUMN chunks a column. */
export const REMOTE_READ_BYTES = 64 * 2 ** 20;

/** The chunk shape each column of a table export reads in (its inner chunks', when sharded). */
function readChunkShapes(table: ZarrTable, index: boolean): number[][] {
	return readColumns(table, index).map((column) => column.chunks.chunkShape);
}

/**
 * Opens what the plan names: the `columns` of `group` (the store root by default), or without `columns` the
 * store's time array (found as `locateTimeArray` does, `array` naming it, CF time arrays included) as a one-column
 * table.
 */
export async function openPlannedTable(location: string, plan: OpenPlan, beforeReading?: BeforeReadingValues): Promise<ZarrTable> {
	if (plan.columns !== undefined) return openTableBeforeReading(location, { ...plan.store, ...plan.cf, group: plan.group, columns: plan.columns, indexSource: plan.indexSource }, beforeReading);
	const located = await locateTimeArray(location, { ...plan.store, ...plan.cf, array: plan.array });
	try {
		if (!plan.cf.cf || !isCfTimeArray(located.node)) {
			// Opening a datetime64 array reads no chunk.
			const table = tableOfTimeArray(openLocatedTimeArray(located, { ...plan.store, ...plan.cf }));
			await beforeReading?.(table);
			return table;
		}
		return await openCfTimeArrayTable(located, { ...plan.store, ...plan.cf, indexSource: plan.indexSource }, beforeReading);
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

/** The requests (`concurrency`, or the store's default) and chunks in flight per column of a table's export. */
export function tableReadLimits(table: ZarrTable, plan: Pick<ReadPlan, "concurrency" | "index">): ReadLimits {
	const shapes = readChunkShapes(table, plan.index);
	const requests = plan.concurrency ?? defaultConcurrency(table.store, shapes);
	return { requests, chunks: Math.max(requests, remoteChunksInFlight(table.store, shapes) ?? requests) };
}

/**
 * The reader of a table, which can start before the rest of its stages exist; with `rows`, of those rows along the
 * first axis only (see selectRows): chunks outside them are never read.
 */
export function createTableReader(table: ZarrTable, plan: ReadPlan, rows?: RowRange): TableReader {
	const columns = readColumns(table, plan.index);
	// A batch's row: its value columns and coordinates, and the int64 positions of the dimensions without one.
	const positions = plan.index ? table.index.filter((entry) => entry.kind === "positions").length : 0;
	const rowBytes = columns.reduce((sum, column) => sum + batchValueBytes(column), 8 * positions);
	const { requests, chunks } = tableReadLimits(table, plan);
	return tableReaderWith(
		columns.map((column) => ({ source: column.chunks, name: column.name, shape: column.metadata.shape, axes: column.axes, valueBytes: chunkValueBytes(column) })),
		table.shape,
		{
			order: plan.order,
			concurrency: requests,
			chunksInFlight: chunks,
			onChunk: plan.onChunk,
			rows,
			bufferPool: poolOf(table),
			rowBytes,
			// A remote store's reads ahead are what hides its latency (see defaultConcurrency).
			readAheadBytes: table.store.remote ? REMOTE_READ_BYTES : undefined,
		},
	);
}
