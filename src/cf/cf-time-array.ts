/**
 * A CF time array as every path opens it: detection, its decoding (coding and missing-value markers) worked out
 * once from its metadata, and the unit `--unit auto` gives it. A CF time array exported alone, a table column, an
 * index coordinate and inspect's first and last values all go through here and decode with decodeCfTimes: one set of
 * rules, one unit choice, and one field metadata (cf-time-field.ts).
 */
import type { Rounding, TargetUnitOption } from "../convert/options.js";
import type { TargetUnit } from "../dtype/units.js";
import { Dt64ExportError, errorInContext, UsageError } from "../errors.js";
import { parseNumpyPlainDtype } from "../dtype/numpy-plain-dtype.js";
import { attributesOf, inArrayDocument, type NodeMetadata, type PlainArrayMetadata } from "../zarr/array-metadata.js";
import type { ChunkSource } from "../zarr/chunk-source.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";
import { cOrderCoordinates } from "../zarr/grid.js";
import type { PlainTypeName } from "../zarr/plain-dtype.js";
import type { CalendarAlignment } from "./calendar-alignment.js";
import { unitHoldingExtremes } from "./auto-unit-range.js";
import { baseCfTargetUnit, refineTargetUnits, roundedAutoUnit, type AutoUnits } from "./cf-target-unit.js";
import { widenExtremes, type CountExtremes } from "./count-extremes.js";
import { cfTimeKindOf, parseCfTimeCoding, type CfTimeCoding } from "./cf-time-coding.js";
import type { MaskableType } from "./masking.js";
import { cfMissingValueMarkers, isFloatType, type MissingValueMarkers } from "./missing-value.js";

/** How CF time arrays are opened. */
export interface CfOptions {
	/** Decode CF time arrays (default true); false reads them as the plain numbers they hold. */
	cf?: boolean | undefined;
	/** Export a model calendar's (noleap, all_leap, 360_day) date labels as the same proleptic Gregorian labels. */
	convertCalendar?: boolean | undefined;
	/**
	 * With `convertCalendar`, how a model calendar's dates become proleptic Gregorian ones: `date` (default) keeps
	 * each label, `year` moves each 360_day date by its day of the year (xarray's `align_on`).
	 */
	alignOn?: CalendarAlignment | undefined;
	/** The export's unit: with `auto` (the default) the values of a float array are read once to choose it. */
	unit?: TargetUnitOption | undefined;
	/**
	 * The export's rounding (ConversionOptions): with `unit` auto, `floor` or `nearest` has that read find the
	 * earliest and latest counts too, for a unit that holds them (auto-unit-range.ts).
	 */
	rounding?: Rounding | undefined;
}

/** The numeric data types a CF time array may have. */
const CF_TIME_DATA_TYPES: ReadonlySet<string> = new Set(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"]);

/** The precision of float counts as stored: half floats are read widened to float32, but were rounded as halves. */
const SIGNIFICAND_BITS: Readonly<Record<string, number>> = { float16: 11, float32: 24, float64: 53 };

/** How a CF time array decodes: worked out once, when it is opened. */
export interface CfTimeDecoding {
	readonly coding: CfTimeCoding;
	readonly markers: MissingValueMarkers;
	/**
	 * The units of `--unit auto`, for exact values and for values rounded to the nearest; undefined for float counts
	 * whose values were not read (see openCfTimeDecoding).
	 */
	readonly autoUnit: AutoUnits | undefined;
}

export { attributesOf };

/**
 * The numeric data type name of an array node, or undefined for any other data type (or a broken v2 dtype). A v2
 * array's is read from its dtype alone: whether its codecs are supported is no part of whether it is a CF time array
 * (an unsupported one is refused naming the codec when the array is opened, not taken for data).
 */
function numericTypeOf(node: NodeMetadata): string | undefined {
	if (node.kind !== "array") return undefined;
	let dataType: unknown;
	try {
		dataType = node.zarrFormat === 2 ? parseNumpyPlainDtype(node.json.dtype).dataType : node.json.data_type;
	} catch {
		return undefined;
	}
	return typeof dataType === "string" && CF_TIME_DATA_TYPES.has(dataType) ? dataType : undefined;
}

/** Whether a node is a CF time array: numbers with CF time units (`<unit> since <date>`, or xarray's timedelta form). */
export function isCfTimeArray(node: NodeMetadata): boolean {
	return numericTypeOf(node) !== undefined && cfTimeKindOf(attributesOf(node)) !== undefined;
}

/** Whether validated array metadata is a CF time array's (the same rule as isCfTimeArray). */
export function isCfTimeMetadata(metadata: PlainArrayMetadata): boolean {
	return CF_TIME_DATA_TYPES.has(metadata.dataType.name) && cfTimeKindOf(metadata.attributes) !== undefined;
}

/** How refusals name a CF time array: `array <path>`. */
export function cfArrayContext(path: string): string {
	return `array ${path === "" ? "(the store root)" : path}`;
}

/**
 * The coding and markers of a CF time array; refusals (months since, a model calendar without `convertCalendar`,
 * a leap-second calendar, a reference date that does not exist...) name the array: `array <path>: ...`.
 */
export function parseCfTimeDecoding(metadata: PlainArrayMetadata, options: Pick<CfOptions, "convertCalendar" | "alignOn">): { coding: CfTimeCoding; markers: MissingValueMarkers } {
	try {
		const coding = parseCfTimeCoding(metadata.attributes, { convertCalendar: options.convertCalendar, alignOn: options.alignOn, dataType: metadata.dataType.name as MaskableType });
		const markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: metadata.dataType.name as PlainTypeName, attributes: metadata.attributes, fillValue: metadata.fillValue });
		return { coding, markers };
	} catch (error) {
		throw cfRefusal(cfArrayContext(metadata.path), error, metadata);
	}
}

/**
 * A refusal of a CF time array's coding, after `context`: a malformed attribute (METADATA_INVALID) names the document
 * that holds it (see inArrayDocument); any other refusal (a calendar, a date) names the array.
 */
export function cfRefusal(context: string, error: unknown, metadata: PlainArrayMetadata): Dt64ExportError {
	const malformed = !(error instanceof Dt64ExportError) || error.code === "METADATA_INVALID";
	return inArrayDocument(errorInContext(context, error, "METADATA_INVALID", malformed ? {} : { path: metadata.path }), metadata, "attributes") as Dt64ExportError;
}

/**
 * Whether a CF time array's counts are floats once read: a float data type, or packed counts (`scale_factor`,
 * `add_offset`), which unpack to floats. Their values decide `--unit auto`'s unit.
 */
export function hasFloatCounts(metadata: PlainArrayMetadata, coding: CfTimeCoding): boolean {
	return coding.packing !== null || isFloatType(metadata.dataType.name as PlainTypeName);
}

/**
 * The units `--unit auto` gives a CF time array. Integer counts need only their units and reference; float counts
 * may hold fractions, so with `readValues` every chunk is read once for the units they need (stopping at ns; with
 * `findInexact`, at a count that is not a whole number of ns: see AutoUnits; with `findRange`, never, for the
 * earliest and latest counts), and without it there are none yet (undefined). Those reads go under `signal` (the
 * opening's). The extremes are read only for `findRange` (a loop more over every count).
 */
export async function cfAutoUnit(
	metadata: PlainArrayMetadata,
	chunks: ChunkSource<ChunkValues>,
	{ coding, markers }: Omit<CfTimeDecoding, "autoUnit">,
	readValues: boolean,
	signal?: AbortSignal,
	{ findInexact = false, findRange = false }: { findInexact?: boolean; findRange?: boolean } = {},
): Promise<AutoUnits | undefined> {
	const base = baseCfTargetUnit(coding);
	let units: AutoUnits = { exact: base, nearest: base };
	if (!hasFloatCounts(metadata, coding)) return units;
	if (!readValues) return undefined;
	let extremes: CountExtremes | undefined;
	for (const coords of cOrderCoordinates(chunks.gridShape)) {
		const settled = units.exact === "ns" && units.nearest === "ns" && (!findInexact || units.inexact !== undefined);
		if (settled && !findRange) break;
		const values = (await chunks.read(coords, signal)) as NumericValues;
		if (!settled) units = refineTargetUnits(values, coding, markers, units, findInexact, SIGNIFICAND_BITS[metadata.dataType.name]);
		if (findRange) extremes = widenExtremes(values, coding, markers, extremes);
	}
	return extremes !== undefined ? { ...units, extremes } : units;
}

/** Opens a CF time array's decoding: its coding (refusals named as parseCfTimeDecoding names them) and auto unit. */
export async function openCfTimeDecoding(
	metadata: PlainArrayMetadata,
	chunks: ChunkSource<ChunkValues>,
	options: Pick<CfOptions, "convertCalendar" | "alignOn"> & { readValues: boolean; signal?: AbortSignal; findInexact?: boolean; findRange?: boolean },
): Promise<CfTimeDecoding> {
	const parsed = parseCfTimeDecoding(metadata, options);
	return { ...parsed, autoUnit: await cfAutoUnit(metadata, chunks, parsed, options.readValues, options.signal, { findInexact: options.findInexact, findRange: options.findRange }) };
}

/**
 * The unit `--unit auto` gives a CF time array whose counts were read, for the rounding asked for: `unit`, and the unit
 * its values' fractions ask for (`fractions`) when it had to be coarser to hold every value's date (auto-unit-range.ts).
 */
export function cfAutoUnitChoice(autoUnit: AutoUnits, decoding: Omit<CfTimeDecoding, "autoUnit">, metadata: PlainArrayMetadata, rounding: Rounding): { unit: TargetUnit; fractions?: TargetUnit } {
	const fractions = rounding === "nearest" ? roundedAutoUnit(autoUnit) : autoUnit.exact;
	if (rounding === "error" || autoUnit.extremes === undefined) return { unit: fractions };
	const unit = unitHoldingExtremes(autoUnit.extremes, decoding.coding, decoding.markers, fractions, rounding, metadata.dataType.name);
	return unit === fractions ? { unit } : { unit, fractions };
}

/**
 * The Arrow unit of a CF time array: the one asked for, or `--unit auto`'s (for the rounding asked for). Float counts
 * opened without reading their values (a table opened with another unit than it is exported with) have no auto unit:
 * refused, rather than guessed.
 */
export function cfTimeUnit(decoding: CfTimeDecoding, metadata: PlainArrayMetadata, asked: TargetUnitOption, rounding: Rounding): TargetUnit {
	if (asked !== "auto") return asked;
	if (decoding.autoUnit !== undefined) return cfAutoUnitChoice(decoding.autoUnit, decoding, metadata, rounding).unit;
	throw new UsageError(`${cfArrayContext(metadata.path)}: its float CF time counts were not read when it was opened, so unit auto cannot choose their unit: open the table with unit auto, or export with a unit`, { option: "unit", path: metadata.path });
}
