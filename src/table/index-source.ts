/**
 * Where the index of an exported table comes from, decided in one place for every export from its `index` option:
 * written index columns are the dimensions' coordinate arrays (`index: true`); otherwise (no index, or positions)
 * the index is positions and a coordinate named in `columns` is a value column like any other. The exports that open
 * their store open the table so; the stages of a table opened already (openTable looks the coordinates up by
 * default) see it so, and write the same columns as the one call with the same options.
 */
import type { IndexSource, TableColumn, TableIndex, ZarrTable } from "../open-table.js";

export function indexSourceForExport(index: boolean | "positions"): IndexSource {
	return index === true ? "coordinates" : "positions";
}

/**
 * The table as `source` lays it out: with positions, each coordinate index is its dimension's positions, and a
 * coordinate that `columns` named is back among the value columns, at its place there; a `columns: "all"` table
 * then names the coordinates it leaves out (withCoordinatesLeftOut). A table opened with positions stays as it is
 * (its coordinates were not looked up).
 */
export function withIndexSource(table: ZarrTable, source: IndexSource): ZarrTable {
	if (source === "coordinates" || table.index.every((entry) => entry.kind === "positions")) return table;
	const columns: TableColumn[] = [...table.columns];
	const named = table.index.flatMap((entry) => (entry.kind === "coordinate" && entry.named !== undefined ? [{ at: entry.named, column: entry.column }] : []));
	// In the order named: each goes back where it was, the ones before it in place already.
	for (const { at, column } of named.sort((a, b) => a.at - b.at)) columns.splice(at, 0, column);
	const index: TableIndex[] = table.index.map((entry) => ({ kind: "positions", name: entry.name, axis: entry.axis, chosen: true }));
	return withCoordinatesLeftOut({ ...table, columns, index });
}

/**
 * The table with its `coordinatesLeftOut`, the one rule of every export: of the dimension coordinates a
 * `columns: "all"` table takes as its index (`indexCoordinates`), those whose index is positions, which no column
 * holds. Absent when there are none (and for a table of named columns, which names its coordinates itself).
 */
export function withCoordinatesLeftOut(table: ZarrTable): ZarrTable {
	const { coordinatesLeftOut: _before, ...rest } = table;
	const coordinates = table.indexCoordinates ?? [];
	const leftOut = table.index.flatMap((entry) => (entry.kind === "positions" && coordinates.includes(entry.name) ? [entry.name] : []));
	return leftOut.length === 0 ? rest : { ...rest, coordinatesLeftOut: leftOut };
}
