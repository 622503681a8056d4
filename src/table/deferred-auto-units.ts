/**
 * `--unit auto`'s passes over float CF counts (cf/cf-time-array.ts's cfAutoUnit: every chunk read once for the unit
 * its fractions need), put off while a table's columns are opened and run once it is laid out: the caller looks at
 * the table first (the CLI checks the output name it gives, leftovers 9: an existing file was refused only after
 * the whole array had been read), and an array the table leaves out (`columns: "all"`'s misfits) is never read.
 */
import type { AutoUnits } from "../cf/cf-target-unit.js";
import type { TableColumn, ZarrTable } from "../open-table.js";

interface DeferredPass {
	readonly run: () => Promise<AutoUnits | undefined>;
	/** Ends what the pass would have ended (the reads kept for the export), for a column that is not read. */
	readonly drop: () => void;
}

export class DeferredAutoUnits {
	readonly #passes = new Map<string, DeferredPass>();

	/** The pass of the array at `path`, run by `settle` if the table holds it. */
	add(path: string, pass: DeferredPass): void {
		this.#passes.get(path)?.drop();
		this.#passes.set(path, pass);
	}

	/** The table with each of its columns' auto units, their passes run one after the other, in the table's order. */
	async settle(table: ZarrTable): Promise<ZarrTable> {
		const units = new Map<string, AutoUnits | undefined>();
		const columns = [...table.index.flatMap((entry) => (entry.kind === "coordinate" ? [entry.column] : [])), ...table.columns];
		try {
			for (const column of columns) {
				const pass = this.#passes.get(column.metadata.path);
				if (pass === undefined || units.has(column.metadata.path)) continue;
				units.set(column.metadata.path, await pass.run());
			}
		} finally {
			for (const [path, pass] of this.#passes) if (!units.has(path)) pass.drop();
			this.#passes.clear();
		}
		if (units.size === 0) return table;
		const settled = (column: TableColumn): TableColumn =>
			column.kind === "plain" && column.cfTime !== undefined && units.has(column.metadata.path) ? { ...column, cfTime: { ...column.cfTime, autoUnit: units.get(column.metadata.path) } } : column;
		return {
			...table,
			columns: table.columns.map(settled),
			index: table.index.map((entry) => (entry.kind === "coordinate" ? { ...entry, column: settled(entry.column) } : entry)),
		};
	}
}
