import { Dt64ExportError } from "../errors.js";
import { DATETIME64_NAME, MAX_SCALE_FACTOR, TIMEDELTA64_NAME, type TimeKind } from "./datetime64.js";
import { DATETIME_UNITS } from "./units.js";

/**
 * A Zarr v2 `dtype` of numpy times, as numpy's `dtype.str` spells it: `<M8[ns]`, `>M8[10us]`, `<M8` (generic),
 * `|M8[D]`, `<m8[ms]`. Parsing it yields the zarr-extensions v3 `data_type` the rest of the package reads, and
 * the byte order of the stored counts.
 */
export interface NumpyTimeDtype {
	readonly kind: TimeKind;
	/** `<` and `|` are little-endian (`|`, "not applicable", is what numpy writes for one-byte types; an 8-byte
	 * count stored that way was written on a little-endian machine), `>` big-endian. */
	readonly endian: "little" | "big";
	/** The v3 form: `{"name": "numpy.datetime64", "configuration": {"unit": ..., "scale_factor": ...}}`. */
	readonly dataType: { name: string; configuration: { unit: string; scale_factor: number } };
}

const TIME_DTYPE = /^([<>|])([Mm])8(?:\[([0-9]*)([^\]]*)\])?$/;
const BYTE_ORDER_PREFIX = /^[<>|=]/;

/** True when a v2 `dtype` claims to be a datetime64 or timedelta64, valid or not (`<M8[xs]` included). */
export function isNumpyTimeDtype(dtype: unknown): dtype is string {
	return typeof dtype === "string" && /^[<>|=]?[Mm]8(?:\[|$)/.test(dtype);
}

/** What a v2 `dtype` is, for messages that refuse it: structured and object dtypes are named as such. */
export function describeNumpyDtype(dtype: unknown): string {
	if (Array.isArray(dtype)) return `${JSON.stringify(dtype)} (structured)`;
	if (dtype === "|O" || dtype === "O") return `${JSON.stringify(dtype)} (object)`;
	return JSON.stringify(dtype) ?? String(dtype);
}

/** Parses a v2 datetime64/timedelta64 dtype string; anything else is refused with a message naming `field`. */
export function parseNumpyTimeDtype(dtype: unknown, field = "dtype"): NumpyTimeDtype {
	// A dtype numpy writes that this package cannot export (timedelta64 in years or months) is UNSUPPORTED, not invalid.
	const refuse = (why: string, code: "METADATA_INVALID" | "UNSUPPORTED" = "METADATA_INVALID"): never => {
		throw new Dt64ExportError(code, `${field} ${describeNumpyDtype(dtype)}: ${why}`, { field });
	};
	if (typeof dtype !== "string") return refuse("not a numpy.datetime64 or numpy.timedelta64 dtype string");
	const match = TIME_DTYPE.exec(dtype);
	if (match === null) {
		if (isNumpyTimeDtype(dtype) && !BYTE_ORDER_PREFIX.test(dtype)) return refuse(`no byte order: expected "<", ">" or "|" before ${dtype}`);
		if (dtype.startsWith("=")) return refuse(`native byte order "=" is not portable: expected "<", ">" or "|"`);
		return refuse(isNumpyTimeDtype(dtype) ? "expected e.g. <M8[ns], >M8[10us] or <M8" : "not a numpy.datetime64 (M8) or numpy.timedelta64 (m8) dtype");
	}
	const [, order, letter, digits, unitText] = match;
	const kind: TimeKind = letter === "M" ? "datetime64" : "timedelta64";
	const unit = match[4] === undefined ? "generic" : unitText;
	if (!(DATETIME_UNITS as readonly string[]).includes(unit)) {
		return refuse(`unit ${JSON.stringify(unit)} is not a numpy unit (expected one of ${DATETIME_UNITS.filter((u) => u !== "generic").join(" ")})`);
	}
	if (unit === "generic" && digits) return refuse("the generic unit takes no multiplier");
	const scale = digits ? Number(digits) : 1;
	if (!Number.isSafeInteger(scale) || scale < 1 || scale > MAX_SCALE_FACTOR) {
		return refuse(`multiplier ${digits} is outside [1, ${MAX_SCALE_FACTOR}]`);
	}
	if (kind === "timedelta64" && (unit === "Y" || unit === "M")) {
		return refuse(`unit ${JSON.stringify(unit)} is a calendar unit and not a fixed duration; timedelta64 in years or months cannot be exported`, "UNSUPPORTED");
	}
	return {
		kind,
		endian: order === ">" ? "big" : "little",
		dataType: { name: kind === "datetime64" ? DATETIME64_NAME : TIMEDELTA64_NAME, configuration: { unit, scale_factor: scale } },
	};
}
