import { Dt64ExportError, UsageError } from "../errors.js";
import type { TableColumn } from "../open-table.js";

/**
 * The names of the index columns: the arrays' `dimension_names` where one of them names the dimension (the first
 * column that does wins), else `dim_0`, `dim_1`... A name that is also a value column's, or repeated, is refused.
 */
export function indexColumnNames(columns: readonly TableColumn[], rank: number, valueNames: readonly string[]): string[] {
	const names: string[] = Array.from({ length: rank }, (_, axis) => `dim_${axis}`);
	const named = new Array<boolean>(rank).fill(false);
	for (const column of columns) {
		const given = column.metadata.dimensionNames;
		if (given === undefined || given === null) continue;
		if (!Array.isArray(given) || given.length !== rank || given.some((name) => name !== null && typeof name !== "string")) {
			throw new Dt64ExportError("METADATA_INVALID", `array ${column.metadata.path || "/"}: dimension_names must be ${rank} strings or nulls, got ${JSON.stringify(given)}`);
		}
		given.forEach((name, axis) => {
			if (name !== null && name !== "" && !named[axis]) {
				names[axis] = name;
				named[axis] = true;
			}
		});
	}
	const seen = new Set<string>();
	names.forEach((name, axis) => {
		if (valueNames.includes(name)) {
			const fix = columns.length === 1 ? "name the value column otherwise" : "rename the array or its dimension";
			throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `index column ${JSON.stringify(name)} (dimension ${axis}) has the name of a value column: ${fix}`, {
				value: name,
				...(columns.length === 1 ? { option: "column" } : {}),
			});
		}
		if (seen.has(name)) throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `dimensions ${names.indexOf(name)} and ${axis} are both named ${JSON.stringify(name)}: index columns need distinct names`, { value: name });
		seen.add(name);
	});
	return names;
}
