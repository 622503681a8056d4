import { arrowTimeField } from "../arrow/time-field.js";
import { markOverflowNulls } from "../convert/overflow-nulls.js";
import { planConversion } from "../convert/plan.js";
import { asParquetSecondsRefusal, secondsAsMillis } from "../convert/seconds-as-millis.js";
import { convertWithPlan } from "../convert/to-arrow-timestamps.js";
import type { TableColumn } from "../open-table.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** A numpy datetime64/timedelta64 column: Arrow Timestamp/Duration through the exact conversion core (NaT null). */
export function planTimeColumn(column: Extract<TableColumn, { kind: "time" }>, context: ColumnContext): ColumnPlan {
	const { plan } = context;
	const source = column.metadata.dataType;
	const asked = plan.conversion;
	let conversion = asked;
	let conversionPlan = planConversion(source, asked.unit);
	// Parquet has no seconds unit: seconds are written as milliseconds. When every value is a whole number of
	// seconds (a source unit of a second or coarser) the core converts to ms directly; otherwise the values are
	// converted to s first, so that the seconds' truncation rule holds whatever the output format, then scaled.
	const toSeconds = plan.secondsAsMillis && conversionPlan.target === "s";
	const scaleAfter = toSeconds && conversionPlan.mode === "linear" && conversionPlan.q !== 1n;
	if (toSeconds && !scaleAfter) {
		conversion = { ...asked, unit: "ms" };
		conversionPlan = planConversion(source, "ms");
	}
	const unit = toSeconds ? "ms" : conversionPlan.target;
	const field = arrowTimeField({ name: context.name, kind: source.kind, unit, timezone: plan.timezone, zarrDataType: column.metadata.rawDataType });
	return {
		field,
		decode(values, describePosition) {
			const options = { ...conversion, describePosition, allocateBitmap: context.allocateBitmap };
			let converted: ReturnType<typeof convertWithPlan>;
			try {
				converted = convertWithPlan(values as BigInt64Array, conversionPlan, { ...options, inPlace: context.convertInPlace });
			} catch (error) {
				throw toSeconds ? asParquetSecondsRefusal(error) : error;
			}
			if (scaleAfter) converted = secondsAsMillis(converted, options);
			markOverflowNulls(converted);
			return { values: converted.values, validity: converted.validity === null ? undefined : { bitmap: converted.validity, nullCount: converted.nullCount } };
		},
		empty: () => new BigInt64Array(0),
	};
}
