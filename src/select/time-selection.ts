/**
 * Which rows of a table an export reads: the time range (by binary search when the time column is sorted, all
 * rows otherwise), then this process's part of them. Works on the opened table, before any Arrow stage exists.
 */
import { UsageError } from "../errors.js";
import type { TableColumn, ZarrTable } from "../open-table.js";
import { readBands } from "../stream/chunk-reader.js";
import { product } from "../zarr/grid.js";
import { partRows, type Part } from "./part.js";
import type { TimeBounds } from "./time-bounds.js";
import { datetime64Instants } from "./time-instants.js";
import { searchTimeRange, type RowRange, type TimeBlocks } from "./time-search.js";

export interface RowSelection {
	/** Rows along the first axis this process reads. */
	readonly rows: RowRange;
	/** Whether a time range was found by search (the rows read then only need checking); false: every row is filtered. */
	readonly sorted: boolean;
	/** Blocks of the time column the search read. */
	readonly probes: number;
	/** Why the time column could not be searched, when it could not. */
	readonly unsortedReason?: string;
}

export type TimeColumn = Extract<TableColumn, { kind: "time" }>;

/** The column whose time selects and partitions rows: `name` (--time-column), or the table's only datetime64 column. */
export function findTimeColumn(table: ZarrTable, name?: string): { column: TimeColumn; position: number } {
	const times = table.columns.flatMap((column, position) => (column.kind === "time" && column.metadata.dataType.kind === "datetime64" ? [{ column, position }] : []));
	if (name !== undefined) {
		const found = table.columns.findIndex((column) => column.name === name);
		if (found < 0) throw new UsageError(`--time-column ${name}: no such column among ${table.columns.map((column) => column.name).join(", ")}`);
		const chosen = times.find((time) => time.position === found);
		if (chosen === undefined) throw new UsageError(`--time-column ${name}: not a datetime64 column`);
		return chosen;
	}
	if (times.length === 0) throw new UsageError(`no datetime64 column to select or partition rows by among ${table.columns.map((column) => column.name).join(", ")}`);
	if (times.length > 1) throw new UsageError(`several datetime64 columns (${times.map((time) => time.column.name).join(", ")}): choose one with --time-column`);
	return times[0];
}

/** The time column as the search reads it: one block per chunk along the first axis, each read whole. */
function timeBlocks(column: TimeColumn, shape: readonly number[], concurrency: number, signal: AbortSignal): TimeBlocks {
	const instantOf = datetime64Instants(column.metadata.dataType);
	const blockRows = column.chunks.chunkShape[0];
	return {
		rows: shape[0],
		blockRows,
		rowSize: product(shape.slice(1)),
		async read(block) {
			const rows = { start: block * blockRows, end: Math.min(shape[0], (block + 1) * blockRows) };
			const bands = readBands(column.chunks, shape, concurrency, signal, undefined, undefined, rows);
			const { value } = await bands.next();
			await bands.return(undefined);
			const values = value!.values;
			return { length: values.length, instantAt: (i) => instantOf(values[i]) };
		},
	};
}

/** The rows whole chunks of every column start at: the largest chunk length along the first axis. */
function alignment(table: ZarrTable): number {
	return Math.max(...table.columns.map((column) => column.chunks.chunkShape[0]));
}

export interface SelectRowsOptions {
	readonly bounds: TimeBounds;
	readonly timeColumn?: string;
	readonly part?: Part;
	readonly concurrency: number;
	readonly signal?: AbortSignal;
}

/** The rows this export reads, with how they were found. */
export async function selectRows(table: ZarrTable, options: SelectRowsOptions): Promise<RowSelection> {
	const all = { start: 0, end: table.shape.length === 0 ? 1 : table.shape[0] };
	const ranged = options.bounds.start !== undefined || options.bounds.end !== undefined;
	if (table.shape.length === 0 && (ranged || options.part !== undefined)) throw new UsageError("a 0-d array has no rows to select or split");
	let selection: RowSelection = { rows: all, sorted: true, probes: 0 };
	if (ranged) {
		const { column } = findTimeColumn(table, options.timeColumn);
		const signal = options.signal ?? new AbortController().signal;
		const search = await searchTimeRange(timeBlocks(column, table.shape, options.concurrency, signal), options.bounds);
		selection = search.sorted ? { rows: search.rows, sorted: true, probes: search.probes } : { rows: search.rows, sorted: false, probes: search.probes, unsortedReason: search.reason };
	}
	if (options.part === undefined) return selection;
	return { ...selection, rows: partRows(selection.rows, alignment(table), options.part) };
}
