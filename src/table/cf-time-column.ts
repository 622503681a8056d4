import { arrowTimeField } from "../arrow/time-field.js";
import { baseCfTargetUnit } from "../cf/cf-target-unit.js";
import { parseCfTimeCoding, type CfTimeCoding } from "../cf/cf-time-coding.js";
import { decodeCfTimes } from "../cf/decode-cf-times.js";
import { secondsAsMillis } from "../convert/seconds-as-millis.js";
import { cfMissingValueMarkers, type MissingValueMarkers } from "../cf/missing-value.js";
import type { TargetUnit } from "../dtype/units.js";
import { errorInContext } from "../errors.js";
import type { TableColumn } from "../open-table.js";
import type { NumericValues } from "../zarr/chunk-values.js";
import type { ColumnContext, ColumnPlan } from "./column-plan.js";

/** Field metadata key marking a column decoded from CF time counts ("true"). */
export const CF_DECODED_KEY = "zarr.cf_decoded";

/**
 * A CF time companion column (`<unit> since <date>`, or xarray's timedelta form), such as an xarray time
 * coordinate: decoded exactly by cf's core, missing values to null. `--unit auto` is the coarsest unit the units and
 * the reference need (baseCfTargetUnit); for float counts, the one every value needs too (cfAutoUnit, read when the
 * column is opened). Parquet has no seconds unit: seconds are written as milliseconds there, as for datetime64.
 */
export function planCfTimeColumn(column: Extract<TableColumn, { kind: "plain" }>, context: ColumnContext): ColumnPlan {
	const { metadata } = column;
	const { plan } = context;
	const type = metadata.dataType.name;
	let coding: CfTimeCoding;
	let markers: MissingValueMarkers;
	try {
		coding = parseCfTimeCoding(metadata.attributes, { convertCalendar: plan.convertCalendar });
		markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: type, attributes: metadata.attributes, fillValue: metadata.fillValue });
	} catch (error) {
		throw errorInContext(`array ${metadata.path}`, error, "METADATA_INVALID", { path: metadata.path });
	}
	const asked = plan.conversion.unit;
	// Float counts: the unit their values need, read when the column was opened (ns if it was opened without that).
	const unit: TargetUnit = asked !== "auto" ? asked : (column.cfAutoUnit ?? (type === "float32" || type === "float64" ? "ns" : baseCfTargetUnit(coding)));
	// Values are decoded in their unit (so the truncation rule holds whatever the format), seconds then scaled to ms.
	const scaleAfter = plan.secondsAsMillis && unit === "s";
	const duration = coding.kind === "duration";
	const field = arrowTimeField({ name: context.name, kind: duration ? "timedelta64" : "datetime64", unit: scaleAfter ? "ms" : unit, timezone: duration ? null : plan.timezone, zarrDataType: metadata.rawDataType });
	for (const key of ["units", "calendar"]) if (typeof metadata.attributes[key] === "string") field.metadata.set(key, metadata.attributes[key] as string);
	field.metadata.set(CF_DECODED_KEY, "true");
	const options = { unit, allowTruncate: plan.conversion.allowTruncate, onOverflow: plan.conversion.onOverflow, dataType: type };
	return {
		field,
		decode(values, describePosition) {
			let decoded = decodeCfTimes(values as NumericValues, coding, markers, { ...options, describePosition, allocateBitmap: context.allocateBitmap });
			if (scaleAfter) decoded = secondsAsMillis(decoded, { ...options, describePosition, allocateBitmap: context.allocateBitmap });
			return { values: decoded.values, validity: decoded.validity === null ? undefined : { bitmap: decoded.validity, nullCount: decoded.nullCount } };
		},
		empty: () => new BigInt64Array(0),
	};
}
