import { Dt64ExportError, UsageError } from "../errors.js";
import { DATETIME_UNITS, type DatetimeUnit, type DatetimeUnitSpelling, normalizeUnit } from "./units.js";

/**
 * The validated data type of a Zarr v3 array of numpy times: `numpy.datetime64` (instants) or its sibling
 * `numpy.timedelta64` (durations). Both are int64 counts of `scaleFactor` units with -2^63 as NaT.
 */
export interface Datetime64Type {
	readonly kind: TimeKind;
	readonly unit: DatetimeUnit;
	readonly scaleFactor: number;
}

export type TimeKind = "datetime64" | "timedelta64";

export const DATETIME64_NAME = "numpy.datetime64";
export const TIMEDELTA64_NAME = "numpy.timedelta64";
const KIND_BY_NAME: ReadonlyMap<string, TimeKind> = new Map([
	[DATETIME64_NAME, "datetime64"],
	[TIMEDELTA64_NAME, "timedelta64"],
]);
export const MAX_SCALE_FACTOR = 2_147_483_647;

function describe(value: unknown): string {
	if (value === undefined) return "nothing";
	if (typeof value === "string") return JSON.stringify(value);
	return JSON.stringify(value) ?? String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuse(message: string, code: "METADATA_INVALID" | "UNSUPPORTED" = "METADATA_INVALID"): never {
	throw new Dt64ExportError(code, `data_type: ${message}`, { field: "data_type" });
}

function checkNoExtraKeys(object: Record<string, unknown>, allowed: readonly string[], where: string): void {
	for (const key of Object.keys(object)) {
		if (!allowed.includes(key)) refuse(`unexpected field ${JSON.stringify(key)} in ${where}`);
	}
}

function parseUnit(unit: unknown): DatetimeUnit {
	if (typeof unit !== "string") refuse(`configuration.unit must be a string, got ${describe(unit)}`);
	if (!(DATETIME_UNITS as readonly string[]).includes(unit)) {
		const hint = (DATETIME_UNITS as readonly string[]).find((u) => u.toLowerCase() === unit.toLowerCase());
		refuse(
			`unknown configuration.unit ${JSON.stringify(unit)}` +
				(hint ? ` (units are case-sensitive: did you mean ${JSON.stringify(hint)}?)` : `; expected one of ${DATETIME_UNITS.join(" ")}`),
		);
	}
	return normalizeUnit(unit as DatetimeUnitSpelling);
}

function parseScaleFactor(scale: unknown): number {
	if (typeof scale !== "number") refuse(`configuration.scale_factor must be an integer, got ${describe(scale)}`);
	if (!Number.isInteger(scale)) refuse(`configuration.scale_factor must be an integer, got ${describe(scale)}`);
	if (scale < 1 || scale > MAX_SCALE_FACTOR) {
		refuse(`configuration.scale_factor must be in [1, ${MAX_SCALE_FACTOR}], got ${describe(scale)}`);
	}
	return scale;
}

/** What a `data_type` is, for messages that refuse a non-datetime64 array. */
export function describeDataType(dataType: unknown): string {
	if (typeof dataType === "string") return dataType;
	if (isPlainObject(dataType) && typeof dataType.name === "string") return dataType.name;
	return describe(dataType);
}

/** True for the data types this tool exports: `numpy.datetime64` and `numpy.timedelta64`. */
export function isTimeDataType(dataType: unknown): boolean {
	// The bare name too, which the spec does not allow (these types need their unit): parsing it says so.
	const name = isPlainObject(dataType) ? dataType.name : dataType;
	return typeof name === "string" && KIND_BY_NAME.has(name);
}

/**
 * Validates the `data_type` of a Zarr v3 `zarr.json` against the zarr-extensions `numpy.datetime64` (or
 * `numpy.timedelta64`) spec. Accepts exactly the spec: anything else is refused with a message naming the field
 * and the bad value.
 */
export function parseDatetime64Type(dataType: unknown): Datetime64Type {
	if (typeof dataType === "string" && KIND_BY_NAME.has(dataType)) {
		refuse(`${describe(dataType)} needs its configuration: {"name": ${describe(dataType)}, "configuration": {"unit": ..., "scale_factor": ...}}`);
	}
	if (!isPlainObject(dataType)) {
		refuse(`expected {"name": "${DATETIME64_NAME}", "configuration": {...}}, got ${describe(dataType)}`);
	}
	const kind = typeof dataType.name === "string" ? KIND_BY_NAME.get(dataType.name) : undefined;
	if (kind === undefined) {
		refuse(`not a ${DATETIME64_NAME} array: name is ${describe(dataType.name)}`);
	}
	checkNoExtraKeys(dataType, ["name", "configuration"], "data_type");
	const configuration = dataType.configuration;
	if (!isPlainObject(configuration)) refuse(`configuration must be an object, got ${describe(configuration)}`);
	checkNoExtraKeys(configuration, ["unit", "scale_factor"], "data_type.configuration");
	if (!("unit" in configuration)) refuse("configuration.unit is missing");
	if (!("scale_factor" in configuration)) refuse("configuration.scale_factor is missing");
	const unit = parseUnit(configuration.unit);
	if (kind === "timedelta64" && (unit === "Y" || unit === "M")) {
		// Valid metadata (the spec allows Y and M): a type this package does not export.
		refuse(`configuration.unit ${JSON.stringify(unit)} is a calendar unit and not a fixed duration; timedelta64 in years or months cannot be exported`, "UNSUPPORTED");
	}
	return { kind, unit, scaleFactor: parseScaleFactor(configuration.scale_factor) };
}

/** numpy's spelling of the type, e.g. `datetime64[10us]`, for messages and inspect output. */
export function formatDatetime64Type(type: Datetime64Type): string {
	const { kind, unit, scaleFactor } = (typeof type === "object" && type !== null ? type : {}) as Partial<Datetime64Type>;
	if ((kind !== "datetime64" && kind !== "timedelta64") || !(DATETIME_UNITS as readonly unknown[]).includes(unit) || !Number.isInteger(scaleFactor) || (scaleFactor as number) < 1) {
		const given = typeof type === "object" && type !== null ? JSON.stringify(type) : String(type);
		throw new UsageError(`formatDatetime64Type: type must be { kind, unit, scaleFactor } as parseDatetime64Type gives it, got ${given}`, { option: "type" });
	}
	if (unit === "generic") return kind;
	return `${kind}[${scaleFactor === 1 ? "" : scaleFactor}${unit}]`;
}
