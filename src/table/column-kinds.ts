/**
 * The column kinds of a table and how each becomes Arrow: one planner per kind, in a registry keyed by
 * `TableColumn["kind"]`, so that a new kind (CF time, masked or packed numbers, a coordinate index column...) is a
 * case of TableColumn (opened in open-table.ts), a planner file and a line here; the compiler asks for the line.
 */
import { int64Field } from "../arrow/column-types.js";
import type { ColumnsPlan } from "../export-plan.js";
import { UsageError } from "../errors.js";
import type { TableColumn, ZarrTable } from "../open-table.js";
import type { TableBatcherOptions } from "../stream/table-batcher.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";
import { indexColumnNames } from "./index-names.js";
import { planCfTimeColumn } from "./cf-time-column.js";
import { planPlainColumn } from "./plain-column.js";
import { planTimeColumn } from "./time-column.js";

type ColumnPlanner<C extends TableColumn> = (column: C, context: ColumnContext) => ColumnPlan;

const COLUMN_KINDS: { readonly [K in TableColumn["kind"]]: ColumnPlanner<Extract<TableColumn, { kind: K }>> } = {
	time: planTimeColumn,
	"cf-time": planCfTimeColumn,
	plain: planPlainColumn,
};

/** How the export's batches are made, column by column, before any chunk is read. */
export type BatchMemory = Omit<ColumnContext, "name" | "plan">;

/** The index fields and the value columns of a table's batches, as the plan asks for them. */
export function planTableColumns(table: ZarrTable, plan: ColumnsPlan, memory: BatchMemory): TableBatcherOptions {
	if (plan.column !== undefined && table.columns.length > 1) {
		throw new UsageError("column names a single array's column; the columns of a table are named after their arrays", { option: "column" });
	}
	const columns = table.columns.map((column) => {
		const name = plan.column ?? column.name;
		const planner = COLUMN_KINDS[column.kind] as ColumnPlanner<TableColumn>;
		return planner(column, { name, plan, ...memory });
	});
	const valueNames = columns.map((column) => column.field.name);
	const indexFields = plan.index ? indexColumnNames(table.columns, table.shape.length, valueNames).map(int64Field) : [];
	return { indexFields, columns, shape: table.shape };
}
