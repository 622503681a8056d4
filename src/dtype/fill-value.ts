import { Dt64ExportError } from "../errors.js";
import { datetime64Instants } from "../select/time-instants.js";
import { parseTimeBound } from "../select/time-bounds.js";
import type { Datetime64Type } from "./datetime64.js";

/** numpy's NaT: the smallest int64. */
export const NAT = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Parses the `fill_value` of a datetime64 array from its exact JSON source text (see `rawMemberText`): an
 * integer literal in int64 range, or the string "NaT". Returns the int64 count; NaT is -2^63 either way.
 */
export function parseFillValue(rawText: string | undefined): bigint {
	if (rawText === undefined) throw new Dt64ExportError("METADATA_INVALID", "fill_value: missing", { field: "fill_value" });
	const text = rawText.trim();
	if (INTEGER_LITERAL.test(text)) {
		const value = BigInt(text);
		if (value < NAT || value > INT64_MAX) {
			throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} is outside the int64 range [-2^63, 2^63-1]`, { field: "fill_value" });
		}
		return value;
	}
	if (text.startsWith('"')) {
		const value: unknown = JSON.parse(text);
		if (value === "NaT") return NAT;
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: the only string allowed is "NaT", got ${text}`, { field: "fill_value" });
	}
	if (/^-?[0-9]/.test(text)) {
		const why = /[eE]/.test(text) ? "an exponent" : /\./.test(text) ? "a fraction" : "leading zeros";
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} must be an integer literal without ${why}`, { field: "fill_value" });
	}
	throw new Dt64ExportError("METADATA_INVALID", `fill_value: expected an int64 integer or "NaT", got ${text}`, { field: "fill_value" });
}

/**
 * The `fill_value` of a v2 datetime64/timedelta64 array (`null` aside): as parseFillValue, and, for datetime64, a date
 * string, which zarr-python 2 reads as numpy does (`np.array(value, dtype)`): an ISO 8601 date or date-time in the
 * array's unit (a zone is converted to UTC, as numpy's deprecated reading does), and "" for NaT. numpy floors a time
 * finer than the unit; here such a string is refused rather than floored.
 */
export function parseV2FillValue(rawText: string | undefined, type: Datetime64Type): bigint {
	const text = rawText?.trim();
	if (text === undefined || !text.startsWith('"') || type.kind !== "datetime64") return parseFillValue(rawText);
	const value: unknown = JSON.parse(text);
	if (typeof value !== "string" || value === "NaT") return parseFillValue(rawText);
	if (value === "") return NAT;
	const refuse = (why: string): never => {
		throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${text} ${why}`, { field: "fill_value" });
	};
	if (type.unit === "generic") return refuse('is a date, and a generic datetime64 (no unit) holds only NaT');
	let instant: bigint;
	try {
		instant = parseTimeBound(value);
	} catch {
		return refuse('is neither an integer, "NaT" nor an ISO 8601 date or date-time (as numpy reads one, e.g. "2020-01-01T00:00:00")');
	}
	const count = countAt(instant, type);
	if (count === "outside") return refuse("is outside the int64 range of the array's unit");
	if (count === undefined) return refuse(`is not a whole number of the array's unit (${type.scaleFactor === 1 ? "" : type.scaleFactor}${type.unit}): numpy would floor it`);
	return count;
}

/**
 * The count of `type` whose instant is exactly `instant` (attoseconds), undefined when it falls between two counts,
 * "outside" past the int64 counts (NaT aside). The counts' instants increase with them.
 */
function countAt(instant: bigint, type: Datetime64Type): bigint | undefined | "outside" {
	const instantOf = datetime64Instants(type);
	// The last count whose instant is at most `instant`, by bisection over int64 (exact for calendar units too).
	let low = NAT + 1n;
	let high = INT64_MAX;
	if (instantOf(low)! > instant || instantOf(high)! < instant) return "outside";
	while (low < high) {
		const middle = (low + high + 1n) >> 1n;
		if (instantOf(middle)! <= instant) low = middle;
		else high = middle - 1n;
	}
	return instantOf(low) === instant ? low : undefined;
}

export function formatFillValue(fill: bigint): string {
	return fill === NAT ? "NaT" : fill.toString();
}
