import { Dt64ExportError } from "../errors.js";

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

export function formatFillValue(fill: bigint): string {
	return fill === NAT ? "NaT" : fill.toString();
}
