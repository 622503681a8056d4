import { arrowTimeField } from "../arrow/time-field.js";
import { planConversion, resolveTargetUnit } from "../convert/plan.js";
import { convertWithPlan } from "../convert/to-arrow-timestamps.js";
import type { TableColumn } from "../open-table.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** A numpy datetime64/timedelta64 column: Arrow Timestamp/Duration through the exact conversion core (NaT null). */
export function planTimeColumn(column: Extract<TableColumn, { kind: "time" }>, context: ColumnContext): ColumnPlan {
	const { plan } = context;
	const source = column.metadata.dataType;
	const asked = plan.conversion;
	// Parquet has no seconds unit: such data is converted to milliseconds by the core, with its overflow rules.
	const conversion = plan.secondsAsMillis && resolveTargetUnit(source, asked.unit) === "s" ? { ...asked, unit: "ms" as const } : asked;
	const unit = resolveTargetUnit(source, conversion.unit);
	const field = arrowTimeField({ name: context.name, kind: source.kind, unit, timezone: plan.timezone, zarrDataType: column.metadata.rawDataType });
	const conversionPlan = planConversion(source, conversion.unit);
	return {
		field,
		decode(values, describePosition) {
			const converted = convertWithPlan(values as BigInt64Array, conversionPlan, {
				...conversion,
				describePosition,
				inPlace: context.convertInPlace,
				allocateBitmap: context.allocateBitmap,
			});
			return { values: converted.values, validity: converted.validity === null ? undefined : { bitmap: converted.validity, nullCount: converted.nullCount } };
		},
		empty: () => new BigInt64Array(0),
	};
}
