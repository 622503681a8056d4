/**
 * The Arrow field of a decoded CF time array: Timestamp (or Duration for xarray's timedelta form), with the
 * provenance a reader needs to tell what was decoded: the Zarr data type, the CF `units` and `calendar` as written,
 * and `zarr.cf_decoded: true`.
 */
import { Field } from "apache-arrow";
import { arrowTimeField, type TimeArrowType } from "../arrow/time-field.js";
import type { TargetUnit } from "../dtype/units.js";
import type { CfTimeCoding } from "./cf-time-coding.js";

export const CF_DECODED_KEY = "zarr.cf_decoded";

export interface CfFieldOptions {
	name: string;
	coding: CfTimeCoding;
	unit: TargetUnit;
	timezone: string | null;
	zarrDataType: unknown;
	attributes: Record<string, unknown>;
}

export function cfArrowField(options: CfFieldOptions): Field<TimeArrowType> {
	const { coding, attributes } = options;
	const kind = coding.kind === "duration" ? "timedelta64" : "datetime64";
	const base = arrowTimeField({ name: options.name, kind, unit: options.unit, timezone: kind === "datetime64" ? options.timezone : null, zarrDataType: options.zarrDataType });
	const metadata = new Map(base.metadata);
	metadata.set("units", coding.units);
	if (typeof attributes.calendar === "string") metadata.set("calendar", attributes.calendar);
	if (typeof attributes.dtype === "string") metadata.set("dtype", attributes.dtype);
	metadata.set(CF_DECODED_KEY, "true");
	return new Field(base.name, base.type, true, metadata);
}
