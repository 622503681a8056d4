/**
 * A CF time array as the export opens it: an array of integers or floats whose attributes hold CF time units, with
 * its coding, missing-value markers and the Arrow unit `--unit auto` gives it. Detection is here too, so that
 * discovery, tables and inspect agree on what a CF time array is.
 */
import type { AsyncReadable } from "../store/readable.js";
import type { TargetUnitOption } from "../convert/options.js";
import type { TargetUnit } from "../dtype/units.js";
import { errorInContext } from "../errors.js";
import { parsePlainArrayMetadata, v3FormOf, type NodeMetadata, type PlainArrayMetadata } from "../zarr/array-metadata.js";
import type { ChunkValues } from "../zarr/chunk-values.js";
import { createPlainChunkSource, type ChunkSource } from "../zarr/chunk-source.js";
import { cOrderCoordinates } from "../zarr/grid.js";
import type { PlainTypeName } from "../zarr/plain-dtype.js";
import { baseCfTargetUnit, refineTargetUnit } from "./cf-target-unit.js";
import { cfTimeKindOf, parseCfTimeCoding, type CfTimeCoding } from "./cf-time-coding.js";
import { cfMissingValueMarkers, isFloatType, type MissingValueMarkers } from "./missing-value.js";

/** How CF time arrays are opened. */
export interface CfOptions {
	/** Decode CF time arrays (default true); false reads them as the plain numbers they hold. */
	cf?: boolean;
	/** Export a model calendar's (noleap, all_leap, 360_day) date labels as the same proleptic Gregorian labels. */
	convertCalendar?: boolean;
	/** The export's unit: with `auto` (the default) the values of a float array are read once to choose it. */
	unit?: TargetUnitOption;
}

/** The numeric data types a CF time array may have. */
const CF_TIME_DATA_TYPES: ReadonlySet<string> = new Set(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]);

export interface CfTimeArray {
	readonly metadata: PlainArrayMetadata;
	readonly chunks: ChunkSource<ChunkValues>;
	readonly coding: CfTimeCoding;
	readonly markers: MissingValueMarkers;
	/** The Arrow unit of `--unit auto`. */
	readonly autoUnit: TargetUnit;
}

export function attributesOf(node: NodeMetadata): Record<string, unknown> {
	if (node.zarrFormat === 2) return node.attributes;
	const attributes = node.json.attributes;
	return typeof attributes === "object" && attributes !== null && !Array.isArray(attributes) ? (attributes as Record<string, unknown>) : {};
}

/** The numeric data type name of an array node, or undefined for any other data type (or a broken v2 dtype). */
function numericTypeOf(node: NodeMetadata): string | undefined {
	if (node.kind !== "array") return undefined;
	let dataType: unknown;
	try {
		dataType = node.zarrFormat === 2 ? v3FormOf(node, "").json.data_type : node.json.data_type;
	} catch {
		return undefined;
	}
	return typeof dataType === "string" && CF_TIME_DATA_TYPES.has(dataType) ? dataType : undefined;
}

/** Whether a node is a CF time array: numbers with CF time units (`<unit> since <date>`, or xarray's timedelta form). */
export function isCfTimeArray(node: NodeMetadata): boolean {
	return numericTypeOf(node) !== undefined && cfTimeKindOf(attributesOf(node)) !== undefined;
}

/**
 * For a CF time array of float counts, the unit `--unit auto` gives it: every chunk is read once for the fractions
 * the counts hold. Undefined for anything else (integer counts need only their units and reference), and for an
 * array whose coding is refused: the column's planner says why.
 */
export async function scanCfAutoUnit(metadata: PlainArrayMetadata, chunks: ChunkSource<ChunkValues>, options: CfOptions): Promise<TargetUnit | undefined> {
	if (!isFloatType(metadata.dataType.name) || cfTimeKindOf(metadata.attributes) === undefined) return undefined;
	let coding: CfTimeCoding;
	let markers: MissingValueMarkers;
	try {
		coding = parseCfTimeCoding(metadata.attributes, options);
		markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: metadata.dataType.name as PlainTypeName, attributes: metadata.attributes, fillValue: metadata.fillValue });
	} catch {
		return undefined;
	}
	return scanAutoUnit(chunks, coding, markers, baseCfTargetUnit(coding));
}

/** Reads every chunk once to find the unit float counts need (a fraction of a second asks for a finer unit). */
async function scanAutoUnit(chunks: ChunkSource<ChunkValues>, coding: CfTimeCoding, markers: MissingValueMarkers, base: TargetUnit): Promise<TargetUnit> {
	let unit = base;
	for (const coords of cOrderCoordinates(chunks.gridShape)) {
		if (unit === "ns") break;
		unit = refineTargetUnit((await chunks.read(coords)) as Exclude<ChunkValues, string[]>, coding, markers, unit);
	}
	return unit;
}

/**
 * Opens a CF time array; `where` names it in messages. Refusals (months since, a model calendar without
 * `convertCalendar`, a reference date that does not exist...) name the array and what is wrong.
 */
export async function openCfTimeArray(store: AsyncReadable, node: NodeMetadata, where: string, options: CfOptions = {}): Promise<CfTimeArray> {
	const metadata = parsePlainArrayMetadata(node, where);
	const attributes = metadata.attributes;
	let coding: CfTimeCoding;
	let markers: MissingValueMarkers;
	try {
		coding = parseCfTimeCoding(attributes, options);
		markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: metadata.dataType.name as PlainTypeName, attributes, fillValue: metadata.fillValue });
	} catch (error) {
		throw errorInContext(`${where}: CF time`, error, "METADATA_INVALID", { path: metadata.path });
	}
	const chunks = createPlainChunkSource(store, metadata, where);
	const base = baseCfTargetUnit(coding);
	const scan = isFloatType(metadata.dataType.name) && (options.unit ?? "auto") === "auto";
	const autoUnit = scan ? await scanAutoUnit(chunks, coding, markers, base) : base;
	return { metadata, chunks, coding, markers, autoUnit };
}
