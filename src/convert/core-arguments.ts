/**
 * The arguments of the pure conversion core (toArrowTimestamps, decodeCfTimes) as a JavaScript caller may give them:
 * checked where the types cannot be, once, by the public call (the package's own calls of the cores are typed), a
 * wrong one refused as USAGE naming it, as the exports' options are. Without
 * these checks an Int32Array of counts was read as int64 bytes (garbage timestamps, silently), a data type given as
 * its string ended in a TypeError, and an invalid unit for decodeCfTimes in "Cannot mix BigInt and other types".
 */
import { MAX_SCALE_FACTOR } from "../dtype/datetime64.js";
import { DATETIME_UNITS, TARGET_UNITS } from "../dtype/units.js";
import { checkOptionNamesOf, optionsArgument } from "../call-arguments.js";
import { UsageError } from "../errors.js";
import type { CfDecodeOptions } from "../cf/decode-cf-times.js";
import { OVERFLOW_CHOICES } from "./options.js";
import type { ConvertOptions } from "./to-arrow-timestamps.js";

/** A value as a message names it: a typed array or an array by its kind, a string quoted. */
function describeArgument(value: unknown): string {
	if (ArrayBuffer.isView(value)) return `${/^[AEIOU]/.test(value.constructor.name) ? "an" : "a"} ${value.constructor.name}`;
	if (Array.isArray(value)) return "an Array";
	if (value === null || value === undefined) return String(value);
	if (typeof value === "object") return "an object";
	if (typeof value === "bigint") return `${value}n`;
	return JSON.stringify(value) ?? String(value);
}

/** toArrowTimestamps' `counts`: int64 counts, or their little-endian bytes (what a codec gives). */
export function checkCounts(counts: unknown): void {
	if (counts instanceof BigInt64Array || counts instanceof Uint8Array) return;
	throw new UsageError(`toArrowTimestamps: counts must be a BigInt64Array (or its little-endian bytes, a Uint8Array), got ${describeArgument(counts)}`, { option: "counts" });
}

/** The names toArrowTimestamps takes (ConvertOptions): another is refused, an internal one too (ConvertSettings). */
const CONVERT_OPTION_NAMES = Object.keys({ unit: 0, rounding: 0, allowTruncate: 0, onOverflow: 0 } satisfies Record<keyof ConvertOptions, 0>);

/** The names decodeCfTimes takes (CfDecodeOptions): another is refused, an internal one too (CfDecodeSettings). */
const CF_DECODE_OPTION_NAMES = Object.keys({ unit: 0, rounding: 0, allowTruncate: 0, onOverflow: 0, dataType: 0 } satisfies Record<keyof CfDecodeOptions, 0>);

/**
 * toArrowTimestamps' `options`: an object (or none) of the names it takes, its own properties (optionsArgument), and
 * only those, picked: what the conversion is given. A unit given as the options (`"ms"`) or a misspelt name
 * (`unti`) was ignored: the counts came back in the source's unit, which the caller took for the unit asked for.
 */
export function convertOptionsArgument(options: unknown): ConvertOptions {
	if (options !== undefined && options !== null && (typeof options !== "object" || Array.isArray(options))) {
		throw new UsageError(`toArrowTimestamps: options must be an object ({ unit, rounding, onOverflow }), got ${describeArgument(options)}`, { option: "options" });
	}
	const given = optionsArgument(options as ConvertOptions | null | undefined);
	checkOptionNamesOf("toArrowTimestamps", given, CONVERT_OPTION_NAMES);
	const { unit, allowTruncate, rounding, onOverflow } = given;
	return { unit, allowTruncate, rounding, onOverflow };
}

/** toArrowTimestamps' `source`: a data type as parseDatetime64Type gives it. */
export function checkSourceType(source: unknown): void {
	const { kind, unit, scaleFactor } = (typeof source === "object" && source !== null ? source : {}) as Record<string, unknown>;
	const valid =
		(kind === "datetime64" || kind === "timedelta64") &&
		(DATETIME_UNITS as readonly unknown[]).includes(unit) &&
		Number.isInteger(scaleFactor) &&
		(scaleFactor as number) >= 1 &&
		(scaleFactor as number) <= MAX_SCALE_FACTOR;
	if (valid) return;
	const given = typeof source === "object" && source !== null ? JSON.stringify(source) : describeArgument(source);
	throw new UsageError(`toArrowTimestamps: source must be a data type as parseDatetime64Type gives it ({ kind, unit, scaleFactor }), got ${given}`, { option: "source" });
}

/**
 * decodeCfTimes' arguments: the coding and markers as parseCfTimeCoding and cfMissingValueMarkers give them, and the
 * options, its own properties and only the names it takes, picked: the unit decoded into (`auto` is the exports'
 * choice, made before decoding), the overflow policy, the data type's name. What the decoding is given.
 */
export function cfDecodeArguments(values: unknown, coding: unknown, markers: unknown, options: unknown): CfDecodeOptions {
	if (!ArrayBuffer.isView(values) || values instanceof DataView) {
		throw new UsageError(`decodeCfTimes: values must be a typed array of the stored counts (a Float64Array, a BigInt64Array...), got ${describeArgument(values)}`, { option: "values" });
	}
	if (typeof coding !== "object" || coding === null) {
		throw new UsageError(`decodeCfTimes: coding must be what parseCfTimeCoding gives, got ${describeArgument(coding)}`, { option: "coding" });
	}
	if (typeof markers !== "object" || markers === null) {
		throw new UsageError(`decodeCfTimes: markers must be what cfMissingValueMarkers gives, got ${describeArgument(markers)}`, { option: "markers" });
	}
	if (typeof options !== "object" || options === null) {
		throw new UsageError(`decodeCfTimes: options { unit, onOverflow, dataType } are needed, got ${describeArgument(options)}`, { option: "options" });
	}
	const given = optionsArgument(options as CfDecodeOptions);
	checkOptionNamesOf("decodeCfTimes", given, CF_DECODE_OPTION_NAMES);
	const { unit, rounding, allowTruncate, onOverflow, dataType } = given;
	if (!(TARGET_UNITS as readonly unknown[]).includes(unit)) {
		throw new UsageError(`decodeCfTimes: invalid unit ${describeArgument(unit)}: choose one of ${TARGET_UNITS.join(", ")}`, { option: "unit", value: unit });
	}
	if (!OVERFLOW_CHOICES.includes(onOverflow)) {
		throw new UsageError(`decodeCfTimes: invalid onOverflow ${describeArgument(onOverflow)}: choose one of ${OVERFLOW_CHOICES.join(", ")}`, { option: "onOverflow", value: onOverflow });
	}
	if (typeof dataType !== "string" || dataType === "") {
		throw new UsageError(`decodeCfTimes: dataType must name the values' data type ("float64", "int64"...), got ${describeArgument(dataType)}`, { option: "dataType" });
	}
	return { unit, rounding, allowTruncate, onOverflow, dataType };
}
