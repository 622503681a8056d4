/**
 * What the summary line adds when `--on-overflow null` wrote values as null: how many, per column, so that
 * following the OVERFLOW error's advice shows what it cost. No count, no words.
 */
import type { Schema } from "apache-arrow";
import type { OverflowNulls } from "../convert/overflow-nulls.js";
import { countText } from "./count-text.js";

const UNIT_NAMES: Readonly<Record<string, string>> = { SECOND: "s", MILLISECOND: "ms", MICROSECOND: "us", NANOSECOND: "ns" };

/**
 * The unit a column was written in, when the schema says (a commit reads none). Read from the type's text
 * (`Timestamp<NANOSECOND, "UTC">`, `Duration<MICROSECOND>`), as the CLI's other schema checks are: the CLI loads
 * apache-arrow only with an export's stages, and this module is loaded at start.
 */
function unitOf(schema: Schema | undefined, column: string): string | undefined {
	const type = schema?.fields.find((field) => field.name === column)?.type;
	const unit = type === undefined ? undefined : /^(?:Timestamp|Duration)<([A-Z]+)/.exec(String(type))?.[1];
	return unit === undefined ? undefined : UNIT_NAMES[unit];
}

/** `; 9,655 values of time outside int64 in ns written as null`, or "" when none. */
export function overflowNullsText(counts: OverflowNulls, schema?: Schema): string {
	const columns = Object.entries(counts).filter(([, count]) => count > 0);
	if (columns.length === 0) return "";
	const values = (count: number) => `${countText(count)} ${count === 1 ? "value" : "values"}`;
	if (columns.length === 1) {
		const [column, count] = columns[0];
		const unit = unitOf(schema, column);
		return `; ${values(count)} of ${column} outside int64${unit === undefined ? "" : ` in ${unit}`} written as null`;
	}
	const each = columns.map(([column, count]) => {
		const unit = unitOf(schema, column);
		return `${countText(count)} of ${column}${unit === undefined ? "" : ` (${unit})`}`;
	});
	return `; values outside int64 in their unit written as null: ${each.join(", ")}`;
}
