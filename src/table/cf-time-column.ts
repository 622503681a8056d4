import { arrowTimeData } from "../arrow/time-field.js";
import { cfArrowField } from "../cf/cf-arrow-field.js";
import { cfTargetUnit } from "../cf/cf-time-array.js";
import { decodeCfTimes } from "../cf/decode-cf-times.js";
import type { TableColumn } from "../open-table.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/**
 * A CF time column: numbers with CF time units, decoded exactly into Arrow Timestamp (Duration for xarray's
 * timedelta form), missing values null, with the CF attributes in the field's metadata.
 */
export function planCfTimeColumn(column: Extract<TableColumn, { kind: "cf-time" }>, context: ColumnContext): ColumnPlan {
	const { plan } = context;
	const { metadata, coding, markers } = column;
	const chosen = cfTargetUnit(column, plan.conversion.unit);
	// Parquet has no seconds unit: such data is decoded to milliseconds, with the overflow rules.
	const unit = plan.secondsAsMillis && chosen === "s" ? "ms" : chosen;
	const field = cfArrowField({ name: context.name, coding, unit, timezone: plan.timezone, zarrDataType: metadata.rawDataType, attributes: metadata.attributes });
	const options = { ...plan.conversion, unit, dataType: metadata.dataType.name, allocateBitmap: context.allocateBitmap };
	return {
		field,
		toData: (values, describePosition) => arrowTimeData(field.type, decodeCfTimes(values as NumericValues, coding, markers, { ...options, describePosition })),
		empty: () => new Float64Array(0),
	};
}
