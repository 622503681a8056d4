/**
 * What an export says when `--unit auto` took a coarser unit than a float CF time column's fractions ask for, because
 * that unit cannot hold every value's date (cf/auto-unit-range.ts): which unit it took, and that values are floored or
 * rounded in it. A line per such column, said before anything is written, as the other notices of a planned export
 * (columns left out, stale metadata): so it says what the export takes, not what it wrote, which a refusal met later
 * (a date the calendar lacks, an overflow) would belie.
 */
import { cfAutoUnitChoice } from "../cf/cf-time-array.js";
import type { NormalizedConversionOptions } from "../convert/options.js";
import type { TableColumn, ZarrTable } from "../open-table.js";

/** The int64 span of the units finer than s, which a value's date may leave. */
const SPANS: Readonly<Record<string, string>> = { ns: "ns spans 1677-09-21 to 2262-04-11", us: "us spans about ±294,000 years", ms: "ms spans about ±292 million years" };

/** The CF time columns the export writes (index coordinates with `index`). */
function writtenColumns(table: ZarrTable, index: boolean): TableColumn[] {
	const coordinates = index ? table.index.flatMap((entry) => (entry.kind === "coordinate" ? [entry.column] : [])) : [];
	return [...coordinates, ...table.columns];
}

/** The notice lines (without the `dt64-export: ` prefix), none when auto's unit is the one the fractions ask for. */
export function cfAutoUnitNotices(table: ZarrTable, conversion: NormalizedConversionOptions, index: boolean): string[] {
	if (conversion.unit !== "auto" || conversion.rounding === "error") return [];
	const how = conversion.rounding === "floor" ? "floored (--allow-truncate)" : "rounded to the nearest (--round)";
	return writtenColumns(table, index).flatMap((column) => {
		if (column.kind !== "plain" || column.cfTime?.autoUnit === undefined) return [];
		const { unit, fractions } = cfAutoUnitChoice(column.cfTime.autoUnit, column.cfTime, column.metadata, conversion.rounding);
		if (fractions === undefined) return [];
		return [`${column.name}: --unit auto takes ${unit}, the finest unit that holds every value's date (${fractions}, which its values' fractions ask for, does not: ${SPANS[fractions]}); values that are not a whole number of ${unit} are ${how}`];
	});
}
