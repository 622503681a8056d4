/**
 * The Arrow field of a decoded CF time array. Apart from cf-time-array.ts, which opening a store needs, so that
 * apache-arrow (a third of the CLI's code) is loaded only by the export's stages, while its first chunks are read
 * and decoded (test/cli-bundle.test.ts checks that no module the CLI starts with imports it).
 */
import { stringifyExactIntegers } from "../json/exact-integers.js";
import type { Field } from "apache-arrow";
import { CF_ALIGN_ON_KEY, CF_DECODED_KEY, CF_INVALID_DATES_KEY } from "../arrow/field-metadata-keys.js";
import { arrowTimeField } from "../arrow/time-field.js";
import type { TargetUnit } from "../dtype/units.js";
import type { PlainArrayMetadata } from "../zarr/array-metadata.js";
import type { CfTimeCoding } from "./cf-time-coding.js";

/** The attributes a decoded CF time field keeps, as written: what a reader needs to tell what was decoded. */
const KEPT_TIME_ATTRIBUTES = ["units", "calendar", "dtype", "long_name", "standard_name"] as const;

/**
 * The Arrow field of a decoded CF time array: Timestamp (Duration for the timedelta form), nullable, its metadata
 * the Zarr data type, the CF attributes kept as written and `zarr.cf_decoded: "true"` (and for a model calendar's
 * converted dates `zarr.cf_align_on`, and `zarr.cf_invalid_dates: "dropped"` when the rows of its dates the
 * proleptic Gregorian calendar lacks were left out). Packed counts keep the `scale_factor` and `add_offset` they were
 * unpacked by, as JSON text (`12`, `-60.5`): the stored counts, which `zarr.data_type` names, are not the decoded
 * values' counts without them.
 */
export function cfTimeField(name: string, metadata: PlainArrayMetadata, coding: CfTimeCoding, unit: TargetUnit, timezone: string | null, dropsInvalidDates = false): Field {
	const duration = coding.kind === "duration";
	const field = arrowTimeField({ name, kind: duration ? "timedelta64" : "datetime64", unit, timezone: duration ? null : timezone, zarrDataType: metadata.rawDataType });
	for (const key of KEPT_TIME_ATTRIBUTES) if (typeof metadata.attributes[key] === "string") field.metadata.set(key, metadata.attributes[key] as string);
	if (coding.packing !== null) for (const [key, value] of Object.entries(coding.packing.applied)) field.metadata.set(key, stringifyExactIntegers(value));
	field.metadata.set(CF_DECODED_KEY, "true");
	if (coding.alignOn !== null) field.metadata.set(CF_ALIGN_ON_KEY, coding.alignOn);
	if (dropsInvalidDates) field.metadata.set(CF_INVALID_DATES_KEY, "dropped");
	return field;
}
