/**
 * The time column of a table (findTimeColumn), its refusal saying whose cell bounds a column is where the table's
 * opening could not tell (`unseenBounds`: no consolidated metadata, the bounds of an auxiliary coordinate such as
 * `valid_bnds` of a 2-D `valid_time`). Only then is the group read whole, as discovery reads it (a local folder or a
 * zip; table/bounds-candidates.ts): the same refusal, with or without consolidated metadata, naming the coordinate.
 */
import type { ZarrTable } from "../open-table.js";
import { unseenBoundsOwners } from "../table/bounds-candidates.js";
import { findTimeColumn, type TimeColumnOptions, type TimeSource } from "./time-selection.js";

export async function timeColumnOf(table: ZarrTable, options: TimeColumnOptions): Promise<TimeSource> {
	try {
		return findTimeColumn(table, options);
	} catch (refusal) {
		const unseen = options.name === undefined ? table.columns.flatMap((column) => (column.kind === "plain" && column.unseenBounds === true ? [column.metadata.path] : [])) : [];
		if (unseen.length === 0) throw refusal;
		const path = unseen[0];
		let owners: Map<string, string>;
		try {
			owners = await unseenBoundsOwners(table.store, path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "", unseen);
		} catch {
			// A group that cannot be read whole leaves the refusal as it was: what may be, said as such.
			throw refusal;
		}
		if (owners.size === 0) throw refusal;
		return findTimeColumn(table, { ...options, boundsOwners: owners });
	}
}
