import { cfTimeUnit, hasFloatCounts, parseCfTimeDecoding, type CfTimeDecoding } from "../cf/cf-time-array.js";
import { cfTimeField } from "../cf/cf-time-field.js";
import { baseCfTargetUnit } from "../cf/cf-target-unit.js";
import { decodeCfTimes } from "../cf/decode-cf-times.js";
import { markOverflowNulls } from "../convert/overflow-nulls.js";
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
	const field = cfTimeField(context.name, metadata, coding, scaleAfter ? "ms" : unit, plan.timezone);
	const options = { unit, rounding: plan.conversion.rounding, onOverflow: plan.conversion.onOverflow, dataType: metadata.dataType.name };
	return {
		field,
		decode(values, describePosition) {
			let decoded = decodeCfTimes(values as NumericValues, coding, markers, { ...options, describePosition, allocateBitmap: context.allocateBitmap });
			if (scaleAfter) decoded = secondsAsMillis(decoded, { ...options, describePosition, allocateBitmap: context.allocateBitmap });
			markOverflowNulls(decoded);
			return { values: decoded.values, validity: decoded.validity === null ? undefined : { bitmap: decoded.validity, nullCount: decoded.nullCount } };
		},
		empty: () => new BigInt64Array(0),
	};
}
