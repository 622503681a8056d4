/**
 * The column kinds of a table and how each becomes Arrow: one planner per kind, in a registry keyed by
 * `TableColumn["kind"]`, so that a new kind is a case of TableColumn (opened in open-table.ts), a planner file and
 * a line here; the compiler asks for the line. Plain arrays dispatch further on their CF attributes (CF time,
 * masked or packed numbers: plain-column.ts). Index columns are the dimensions' coordinate arrays, planned as any
 * column, or their positions.
 */
import { int64Field } from "../arrow/column-types.js";
import type { ColumnsPlan } from "../export-plan.js";
import { readColumns } from "../export-source.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { TableColumn, ZarrTable } from "../open-table.js";
import type { TableBatcherOptions, TableColumnPlan } from "../stream/table-batcher.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";
import { planPlainColumn } from "./plain-column.js";
import { planTimeColumn } from "./time-column.js";

type ColumnPlanner<C extends TableColumn> = (column: C, context: ColumnContext) => ColumnPlan;

const COLUMN_KINDS: { readonly [K in TableColumn["kind"]]: ColumnPlanner<Extract<TableColumn, { kind: K }>> } = {
	time: planTimeColumn,
	plain: planPlainColumn,
};

/** How the export's batches are made, column by column, before any chunk is read. */
export type BatchMemory = Omit<ColumnContext, "name" | "plan">;

/**
 * The output names of a table's columns, index columns first: dimension names and array names, `column` for a
 * single array, then `rename`. A rename of no column, or two columns of one name, are refused.
 */
function outputNames(table: ZarrTable, plan: ColumnsPlan): { index: string[]; values: string[] } {
	const indexNames = plan.index ? table.index.map((entry) => entry.name) : [];
	const valueNames = table.columns.map((column) => plan.column ?? column.name);
	const all = [...indexNames, ...valueNames];
	for (const from of plan.rename.keys()) if (!all.includes(from)) throw new UsageError(`rename ${from}: no such column; the columns are ${all.join(", ")}`, { option: "rename", value: from });
	const renamed = (name: string) => plan.rename.get(name) ?? name;
	const names = { index: indexNames.map(renamed), values: valueNames.map(renamed) };
	const seen = new Map<string, number>();
	const describe = [...names.index.map((_, axis) => `the index of dimension ${JSON.stringify(table.index[axis].name)}`), ...table.columns.map((column) => `array ${column.metadata.path || column.name}`)];
	[...names.index, ...names.values].forEach((name, k) => {
		const j = seen.get(name);
		if (j !== undefined) throw nameClash(name, `${describe[j]} and ${describe[k]}`, all, j, k, indexNames.length, plan.singleArray && table.columns.length === 1);
		seen.set(name, k);
	});
	return names;
}

/**
 * Two output columns `j` < `k` (of `all`, the names before renaming, index columns first) named `name`. A rename is
 * keyed by the store's name: it tells two columns apart only when their store names differ, so the advice is what
 * does (`value`: the name a rename of the second one is keyed by).
 */
function nameClash(name: string, both: string, all: readonly string[], j: number, k: number, indexColumns: number, singleArray: boolean): Dt64ExportError {
	const clash = `column name ${JSON.stringify(name)} is given to both ${both}`;
	if (all[j] !== all[k]) return new Dt64ExportError("COLUMNS_INCOMPATIBLE", clash, { option: "rename", value: all[k] });
	// "The column name": a message starting with an option's name (`column`) is the option's, to the CLI.
	const unsplittable = `the ${clash}, which a rename by name cannot tell apart (it renames both)`;
	// Two dimensions of one name (dimension_names may repeat one): their index columns have no other name.
	if (k < indexColumns) return new Dt64ExportError("COLUMNS_INCOMPATIBLE", `${unsplittable}: export without \`index\`, or write the array with distinct dimension names`, { option: "index" });
	// A single array named like one of its dimensions: its own column is named by `column`.
	if (singleArray) return new Dt64ExportError("COLUMNS_INCOMPATIBLE", `${unsplittable}: name the array's column with \`column\` <new name>`, { option: "column" });
	return new Dt64ExportError("COLUMNS_INCOMPATIBLE", `${unsplittable}: leave the array out of \`columns\`, or export without \`index\``, { option: "columns", value: all[k] });
}

/** The index and value columns of a table's batches, as the plan asks for them, in the reader's column order. */
export function planTableColumns(table: ZarrTable, plan: ColumnsPlan, memory: BatchMemory): TableBatcherOptions {
	if (plan.column !== undefined && table.columns.length > 1) {
		throw new UsageError("column names a single array's column; the columns of a table are named after their arrays", { option: "column" });
	}
	const names = outputNames(table, plan);
	const bands = readColumns(table, plan.index);
	const rank = table.shape.length;
	const valuePlan = (column: TableColumn, name: string, rowFilter: boolean): TableColumnPlan => {
		// Values repeated over the table are copied first: only a column over every axis may be converted in place
		// and hand its buffers to the output (see ColumnContext).
		const spans = column.axes.length === rank;
		const context = { name, plan, rowFilter, ...(spans ? memory : { convertInPlace: false }) };
		const planned = (COLUMN_KINDS[column.kind] as ColumnPlanner<TableColumn>)(column, context);
		return { kind: "values", plan: planned, band: bands.indexOf(column), name: column.metadata.path || column.name, shape: column.metadata.shape, axes: column.axes };
	};
	const columns: TableColumnPlan[] = [];
	if (plan.index) {
		table.index.forEach((entry, axis) => {
			columns.push(entry.kind === "positions" ? { kind: "positions", field: int64Field(names.index[axis]), axis } : valuePlan(entry.column, names.index[axis], true));
		});
	}
	// The time of a row: an index coordinate, the array exported alone, or a dimension's coordinate among the columns.
	const isCoordinateOf = (column: TableColumn) => column.axes.length === 1 && table.dimensions[column.axes[0]].name === column.name;
	table.columns.forEach((column, k) => columns.push(valuePlan(column, names.values[k], plan.singleArray || isCoordinateOf(column))));
	if (plan.dropInvalidDates && !columns.some((column) => column.kind === "values" && column.plan.dropsInvalidDates === true)) {
		throw new UsageError(
			`dropInvalidDates leaves out the rows whose time coordinate holds a date the proleptic Gregorian calendar lacks, and no column exported is the time coordinate of a model calendar (noleap, all_leap, 360_day)${plan.index ? "" : ": a dimension's coordinate is exported with index columns (`index`)"}`,
			{ option: "dropInvalidDates" },
		);
	}
	return { columns, shape: table.shape };
}
