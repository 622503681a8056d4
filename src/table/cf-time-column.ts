import { cfTimeUnit, hasFloatCounts, parseCfTimeDecoding, type CfTimeDecoding } from "../cf/cf-time-array.js";
import { cfTimeField } from "../cf/cf-time-field.js";
import { baseCfTargetUnit } from "../cf/cf-target-unit.js";
import { decodeCfCounts } from "../cf/decode-cf-times.js";
import { markOverflowNulls } from "../convert/overflow-nulls.js";
import { markInvalidDates } from "../convert/dropped-dates.js";
import { secondsAsMillis } from "../convert/seconds-as-millis.js";
import type { TableColumn } from "../open-table.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** The decoding of a column opened without CF decoding (`cf: false`) and exported with it: its values unread. */
function decodingAtPlan(column: Extract<TableColumn, { kind: "plain" }>, plan: Pick<ColumnContext["plan"], "convertCalendar" | "alignOn">): CfTimeDecoding {
	const { coding, markers } = parseCfTimeDecoding(column.metadata, { convertCalendar: plan.convertCalendar, alignOn: plan.alignOn });
	const base = baseCfTargetUnit(coding);
	return { coding, markers, autoUnit: hasFloatCounts(column.metadata, coding) ? undefined : { exact: base, nearest: base } };
}

/**
 * A CF time column (`<unit> since <date>`, or xarray's timedelta form): a CF time array alone, among `--columns`, or
 * an index coordinate, decoded exactly by cf's core with the decoding worked out when the column was opened
 * (cf/cf-time-array.ts): missing values to null, `--unit auto` the coarsest exact unit. Parquet has no seconds
 * unit: seconds are decoded as seconds (the truncation rule holds whatever the format), then written as
 * milliseconds, as for datetime64.
 */
export function planCfTimeColumn(column: Extract<TableColumn, { kind: "plain" }>, context: ColumnContext): ColumnPlan {
	const { metadata } = column;
	const { plan } = context;
	const { coding, markers, autoUnit } = column.cfTime ?? decodingAtPlan(column, plan);
	const unit = cfTimeUnit({ coding, markers, autoUnit }, metadata, plan.conversion.unit, plan.conversion.rounding);
	const scaleAfter = plan.secondsAsMillis && unit === "s";
	// Only a time coordinate's dates leave their rows out; a model calendar's labels may lack a date only aligned on the date.
	const drops = plan.dropInvalidDates && context.rowFilter === true && coding.calendar?.kind === "model" && coding.alignOn === "date";
	const field = cfTimeField(context.name, metadata, coding, scaleAfter ? "ms" : unit, plan.timezone, drops);
	// Auto fell back to ns for a count no unit holds: an overflow there is refused for that count (see CfDecodeSettings).
	const unheldCount = plan.conversion.unit === "auto" && unit === "ns" ? autoUnit?.inexact : undefined;
	const options = { unit, rounding: plan.conversion.rounding, onOverflow: plan.conversion.onOverflow, dataType: metadata.dataType.name, invalidDates: drops ? ("drop" as const) : ("refuse" as const), unheldCount };
	return {
		field,
		decode(values, describePosition) {
			const counts = values as NumericValues;
			const decoded = decodeCfCounts(counts, coding, markers, { ...options, describePosition, allocateBitmap: context.allocateBitmap, inPlace: context.convertInPlace, allocateValues: context.allocateValues });
			// Counts narrower than int64 (or packed ones) were decoded into other memory: theirs is dead now, and back
			// for the next chunks (20M int32 hours to Arrow IPC: peak RSS 140-147 -> 92-100 MiB).
			if (context.convertInPlace && decoded.values.buffer !== counts.buffer) context.releaseValues?.(counts);
			const scaled = scaleAfter ? secondsAsMillis(decoded, { ...options, describePosition, allocateBitmap: context.allocateBitmap }) : decoded;
			markOverflowNulls(scaled);
			// Last: an overflow's marking clears the other null slots.
			markInvalidDates(scaled.values, decoded.invalidDates);
			return { values: scaled.values, validity: scaled.validity === null ? undefined : { bitmap: scaled.validity, nullCount: scaled.nullCount } };
		},
		empty: () => new BigInt64Array(0),
		...(drops && { dropsInvalidDates: true as const }),
	};
}
