/**
 * What an export under `--drop-invalid-dates` says of the rows it left out because their time coordinate held a date
 * the proleptic Gregorian calendar lacks: said even with --quiet, as forbidden chunks read as missing are, since
 * those rows are in the store and not in the output.
 */
import { countText } from "./count-text.js";

/** `; 10 rows of dates the proleptic Gregorian calendar lacks left out`, for the summary line, or "" when none were. */
export function droppedDatesText(dropped: number | undefined): string {
	if (dropped === undefined || dropped === 0) return "";
	return `; ${countText(dropped)} ${dropped === 1 ? "row" : "rows"} of dates the proleptic Gregorian calendar lacks left out`;
}

/** The warning line, or undefined when no row was left out. */
export function droppedDatesNotice(dropped: number | undefined): string | undefined {
	if (dropped === undefined || dropped === 0) return undefined;
	const rows = `${countText(dropped)} ${dropped === 1 ? "row" : "rows"}`;
	return `dt64-export: warning: ${rows} left out (--drop-invalid-dates): ${dropped === 1 ? "its" : "their"} time is a date the proleptic Gregorian calendar lacks (a 29 or 30 February of the model calendar), as xarray's convert_calendar(align_on="date") drops them\n`;
}
