import { Duration, Field, TimeUnit, Timestamp } from "apache-arrow";
import type { TimeKind } from "../dtype/datetime64.js";
import type { TargetUnit } from "../dtype/units.js";
import { ZARR_DATA_TYPE_KEY } from "./field-metadata-keys.js";

const ARROW_TIME_UNIT: Readonly<Record<TargetUnit, TimeUnit>> = {
	s: TimeUnit.SECOND,
	ms: TimeUnit.MILLISECOND,
	us: TimeUnit.MICROSECOND,
	ns: TimeUnit.NANOSECOND,
};

export type TimeArrowType = Timestamp | Duration;

/**
 * The Arrow type of an exported column: `Timestamp(unit, timezone)` for datetime64 (naive, timezone null, unless
 * one is asked for, as pyarrow maps numpy), `Duration(unit)` for timedelta64.
 */
function arrowTimeType(kind: TimeKind, unit: TargetUnit, timezone: string | null = null): TimeArrowType {
	return kind === "timedelta64" ? new Duration(ARROW_TIME_UNIT[unit]) : new Timestamp(ARROW_TIME_UNIT[unit], timezone);
}

export interface TimeFieldOptions {
	name: string;
	kind: TimeKind;
	unit: TargetUnit;
	timezone?: string | null;
	/** The `data_type` member of zarr.json, as it was written. */
	zarrDataType: unknown;
}

export function arrowTimeField(options: TimeFieldOptions): Field<TimeArrowType> {
	const metadata = new Map([[ZARR_DATA_TYPE_KEY, JSON.stringify(options.zarrDataType)]]);
	return new Field(options.name, arrowTimeType(options.kind, options.unit, options.timezone ?? null), true, metadata);
}
