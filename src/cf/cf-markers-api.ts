/**
 * The CF core's `cfMissingValueMarkers` as the library exports it: the caller gives the array's fill value as its
 * metadata writes it (`.zarray`'s or zarr.json's `fill_value`: a number, a string such as "NaN" or "0x7ff8...",
 * null), or as a bigint for a 64-bit integer past 2^53, which JSON.parse would have rounded. A fill value or data
 * type the caller got wrong is a USAGE error naming the option, not the store's METADATA_INVALID.
 */
import { checkObjectArgument } from "../call-arguments.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import { type PlainFill, type PlainTypeName, parsePlainDataType, parsePlainFillValue } from "../zarr/plain-dtype.js";
import { cfMissingValueMarkers, isMissingValue, type MissingValueMarkers } from "./missing-value.js";

export interface CfMarkersSource {
	readonly zarrFormat: 2 | 3;
	/** The array's data type, by its Zarr v3 name: "int64", "float32"... */
	readonly dataType: PlainTypeName;
	readonly attributes: Record<string, unknown>;
	/**
	 * The array's `fill_value` as its metadata holds it (only a v2 array's counts as `_FillValue`, as in xarray):
	 * a number, a bigint (exact 64-bit integers), a string ("NaN", "Infinity", "-Infinity", "0x" and the bits), or
	 * null for none.
	 */
	readonly fillValue: number | bigint | string | null;
}

/** The missing-value markers every CF time export decodes with (see missing-value.ts), from public inputs. */
export function cfMarkersOf(source: CfMarkersSource): MissingValueMarkers {
	checkObjectArgument("cfMissingValueMarkers", "source", source, "{ zarrFormat, dataType, attributes, fillValue }");
	const refuse = (field: string, message: string): never => {
		throw new Dt64ExportError("USAGE", `cfMissingValueMarkers: ${message}`, { option: field });
	};
	if (source.zarrFormat !== 2 && source.zarrFormat !== 3) refuse("zarrFormat", `zarrFormat is ${JSON.stringify(source.zarrFormat)}, expected 2 or 3`);
	if (typeof source.attributes !== "object" || source.attributes === null) refuse("attributes", "attributes must be an object");
	let fill: PlainFill | null = null;
	try {
		const type = parsePlainDataType(source.dataType);
		fill = source.fillValue === null || source.fillValue === undefined ? null : parsePlainFillValue(fillValueText(source.fillValue), type);
	} catch (error) {
		if (!(error instanceof Dt64ExportError)) throw error;
		const field = error.field === "fill_value" ? "fillValue" : "dataType";
		refuse(field, `${field} ${describe(field === "fillValue" ? source.fillValue : source.dataType)}: ${error.message.replace(/^fill_value: /, "")}`);
	}
	return cfMissingValueMarkers({ zarrFormat: source.zarrFormat, dataType: source.dataType, attributes: source.attributes, fillValue: fill });
}

function fillValueText(value: unknown): string {
	if (typeof value === "bigint") return value.toString();
	if (typeof value === "number") {
		if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
			throw new Dt64ExportError("METADATA_INVALID", `fill_value: ${value} is past 2^53 and may have been rounded; pass it as a bigint`, { field: "fill_value" });
		}
		return Number.isFinite(value) ? String(value) : JSON.stringify(Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity");
	}
	if (typeof value === "string") return JSON.stringify(value);
	throw new Dt64ExportError("METADATA_INVALID", `fill_value: expected a number, a bigint, a string or null, got ${describe(value)}`, { field: "fill_value" });
}

function describe(value: unknown): string {
	if (typeof value === "bigint") return `${value}n`;
	if (typeof value === "object" && value !== null) return "an object";
	return JSON.stringify(value) ?? String(value);
}

/**
 * The CF core's `isMissingValue` as the library exports it: markers that are not cfMissingValueMarkers' (null, {}) or
 * a value that is not a number or a bigint is USAGE, where it was a TypeError or, for a string, `false` silently. The
 * decoders call the unchecked one, per value.
 */
export function isMarkedMissing(markers: MissingValueMarkers, value: number | bigint): boolean {
	checkObjectArgument("isMissingValue", "markers", markers, "what cfMissingValueMarkers gives", (given) =>
		["integers", "smallIntegers", "floats"].every((field) => given[field] instanceof Set) && typeof given.nanIsMissing === "boolean",
	);
	if (typeof value !== "number" && typeof value !== "bigint") throw new UsageError(`isMissingValue: value must be a number or a bigint, got ${typeof value}`, { option: "value" });
	return isMissingValue(markers, value);
}
