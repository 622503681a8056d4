import type { Table } from "apache-arrow";

/** A column of `to_dataframe().reset_index()` as the golden scripts spell it: values as text, "nan" and "NaT" missing. */
export interface XarrayColumn {
	readonly name: string;
	readonly dtype: string;
	readonly values: string[];
}

/** xarray's values as an export with `unit: "ms"` gives them: NaN and NaT (masked) as null, times as ISO text to the millisecond. */
export function xarrayValues(column: XarrayColumn): (number | string | null)[] {
	if (column.dtype.startsWith("datetime64")) return column.values.map((value) => (value === "NaT" ? null : `${value.slice(0, 23)}Z`));
	return column.values.map((value) => (value === "nan" ? null : Number(value)));
}

/** The table's column `k` spelled as xarrayValues spells `column`: numbers, ISO text for times, null. */
export function exportedValues(table: Table, k: number, column: XarrayColumn): (number | string | null)[] {
	const time = column.dtype.startsWith("datetime64");
	return [...table.getChildAt(k)!].map((value) => (value === null ? null : time ? new Date(Number(value)).toISOString() : Number(value)));
}
