/**
 * `dt64-export inspect`: what a store holds, node by node, and whether each array can be exported, with the
 * first and last value of each exportable array. A report is plain data (`inspectStore`), printed as text
 * (`formatInspectReport`) or JSON (`inspectReportToJson`).
 */
import { checkObjectArgument, checkOptionNamesOf, optionsArgument, storeArgument } from "./call-arguments.js";
import { isStaleConsolidated, staleConsolidatedOf, staleConsolidatedWarning } from "./store/stale-consolidated.js";
import { abortable, throwIfAborted } from "./abort.js";
import { attributesOf, cfArrayContext, cfTimeUnit, hasFloatCounts, isCfTimeArray, openCfTimeDecoding, type CfTimeDecoding } from "./cf/cf-time-array.js";
import { baseCfTargetUnit } from "./cf/cf-target-unit.js";
import { cfTimeKindOf } from "./cf/cf-time-coding.js";
import { withBoundsAttributes } from "./cf/bounds-attributes.js";
import { boundsNamedIn } from "./table/bounds-candidates.js";
import { boundsParentFor, type NodeLookup } from "./table/bounds-parent.js";
import { CfDecodeError, decodeCfCounts } from "./cf/decode-cf-times.js";
import { isMaskableType, maskRuleOf } from "./cf/masking.js";
import { unsignedCodingOf, withUnsignedCoding, type UnsignedCoding } from "./cf/unsigned-coding.js";
import { isMissingValue } from "./cf/missing-value.js";
import { packingRuleOf, type PackingRule } from "./cf/packing.js";
import { isCfBoolean } from "./cf/boolean-coding.js";
import type { OverflowPolicy, Rounding } from "./convert/options.js";
import { formatIsoDuration, formatIsoTimestamp } from "./convert/iso8601.js";
import { resolveTargetUnit } from "./convert/plan.js";
import { ConversionError, convertTimestamps, type TimestampValues } from "./convert/to-arrow-timestamps.js";
import { describeDataType, formatDatetime64Type, parseDatetime64Type, type Datetime64Type } from "./dtype/datetime64.js";
import { formatFillValue, parseFillValue } from "./dtype/fill-value.js";
import type { TargetUnit } from "./dtype/units.js";
import { Dt64ExportError, UsageError, type ErrorCode } from "./errors.js";
import { rawMemberText } from "./json/raw-member.js";
import { openStore, type OpenedStore, type OpenStoreOptions } from "./store/open-store.js";
import { safeLineText } from "./message-text.js";
import { isListingRefused, type ListingRefusedError } from "./store/listing-errors.js";
import { listStoreTree, readNodeDocument, type StoreTree, type TreeDiscovery, type TreeEntry } from "./store-tree.js";
import {
	arrayMetadataPlace,
	isTimeArray,
	parsePlainArrayMetadata,
	parseTimeArrayMetadata,
	v3FormOf,
	type ArrayNode,
	type CodecMetadata,
	type PlainArrayMetadata,
	type TimeArrayMetadata,
	type V3ArrayForm,
} from "./zarr/array-metadata.js";
import { chunkRowsBox } from "./zarr/chunk-box.js";
import { createChunkSource, createPlainChunkSource, type ChunkSource } from "./zarr/chunk-source.js";
import type { ChunkValues, NumericValues } from "./zarr/chunk-values.js";
import { keepingChunks } from "./zarr/kept-chunks.js";
import { coreTypeNameOfObject, isPlainDataType } from "./zarr/plain-dtype.js";
import { plainArrowTypeName } from "./arrow/type-names.js";
import { cOrderCoordinates, cStrides, product } from "./zarr/grid.js";
import { decodeThreadsAsked } from "./zarr/codecs/decode-threads-asked.js";
import { missingChunksOf } from "./zarr/missing-chunks.js";
import { checkHttpStoreOptions } from "./store/http-store.js";
import { stringifyExactIntegers } from "./json/exact-integers.js";

export interface InspectOptions extends OpenStoreOptions {
	/** Chunks read from each end of an array to find its first and last value before giving up (default 64). */
	maxChunks?: number | undefined;
}

export interface InspectReport {
	/** The store as it may be shown (an URL's query string is redacted). */
	readonly store: string;
	readonly storeKind: OpenedStore["kind"];
	/** How the nodes were found: walking a folder, listing a zip, consolidated metadata, or not at all. */
	readonly discovery: TreeDiscovery;
	/**
	 * Where the consolidated metadata the nodes were read from disagrees with their own documents (read where they
	 * cost nothing: a folder or a zip): the warning that says what differs and how to update the store.
	 */
	readonly staleConsolidatedMetadata?: string;
	/** Set when the listing is partial, e.g. a group over HTTP without consolidated metadata. */
	readonly note?: string;
	readonly nodes: InspectNode[];
}

/** The first or last value of an array that is not NaT, as far as it was looked for. */
export type EndValue =
	| {
			readonly status: "found";
			/** Its row in the export: the flat index in C order. */
			readonly row: number;
			/** The stored count: an int64 for datetime arrays, the number as stored for CF time arrays. */
			readonly count: bigint | number;
			/** ISO 8601: a timestamp for datetime64, a duration for timedelta64; null when it cannot be converted. */
			readonly iso: string | null;
			readonly note?: string;
	  }
	| { readonly status: "none" }
	| { readonly status: "unknown"; readonly chunksRead: number }
	| { readonly status: "error"; readonly message: string };

export interface InspectNode {
	/** The path inside the store, as `--array` takes it; "" for the root. */
	readonly path: string;
	readonly kind: "group" | "array" | "invalid";
	readonly zarrFormat?: 2 | 3;
	/** Why the node's metadata could not be read, for `invalid`. */
	readonly error?: string;
	/**
	 * `false` for an `invalid` node of a store whose nodes are found by walking it (a folder, a bucket's listing): the
	 * walk does not enter a node it cannot read, so what it holds (a group's arrays) is not listed. Absent otherwise.
	 */
	readonly membersListed?: false;
	/** `datetime64[10us]`, or the data type's name (a v2 dtype string) for other arrays. */
	readonly dataType?: string;
	/** Zarr v2 only: the `.zarray` dtype as written, byte order included, e.g. `>M8[10us]`. */
	readonly dtype?: string;
	readonly unit?: string;
	readonly scaleFactor?: number;
	readonly shape?: number[];
	/** The chunks that are read and decoded: the inner chunks of a sharded array. */
	readonly chunkShape?: number[];
	readonly shardShape?: number[];
	readonly indexLocation?: string;
	readonly indexCodecs?: string[];
	/** The codec chain of each chunk (inside the shards of a sharded array), e.g. `bytes(little)`, `zstd(level=3)`. */
	readonly codecs?: string[];
	/** Exact: `NaT` or the int64 count for datetime arrays (`null` for a v2 array without one), the JSON as written for others. */
	readonly fillValue?: string;
	/**
	 * What a missing chunk reads as when it is not the fill value (see MissingChunks, the export's rule): `null`, the
	 * column's nulls, or `refused`, an export stops at it (CHUNK_MISSING). Absent: the fill value.
	 */
	readonly missingChunks?: "null" | "refused";
	readonly exportable?: boolean;
	/** Why the array cannot be exported. */
	readonly reason?: string;
	/** The code of the error behind `reason` (`CALENDAR_UNSUPPORTED`), and the option that would change it, if any (`convertCalendar`). */
	readonly reasonCode?: ErrorCode;
	readonly reasonOption?: string;
	/** The Arrow type of an export with `--unit auto`, e.g. `timestamp[ms]`, or of a companion column, e.g. `double`. */
	readonly arrowType?: string;
	/**
	 * A float CF time array's Arrow type with `--unit auto` and rounding to the nearest, when it is another, or when
	 * the array is exportable only with rounding (a count that is not a whole number of ns).
	 */
	readonly arrowTypeRounded?: string;
	/**
	 * A float CF time array's Arrow type with `--unit auto` and flooring (`--allow-truncate`), when it is another than
	 * `arrowType`: the unit its fractions ask for cannot hold every date (hourly float days before 1678), and auto takes
	 * the finest that does, as the export does from the earliest and latest counts.
	 */
	readonly arrowTypeFloored?: string;
	/**
	 * A float CF time array: whether inspect read its counts (at most `maxChunks` chunks), so that `arrowType` is the
	 * unit `--unit auto` gives and `exportable` says whether every count is a whole number of ns; false: none was
	 * read, `arrowType` is the coarsest the units allow and a count between two ns, which an exact export refuses,
	 * would not be seen.
	 */
	readonly floatCountsRead?: boolean;
	/** For arrays of other data types: whether they can be exported next to datetime64 arrays (`--columns`). */
	readonly companion?: boolean;
	/** Why an array of a plain data type cannot be a companion column. */
	readonly companionReason?: string;
	/**
	 * How CF masking and unpacking make a companion column's `arrowType` of its stored values, e.g. `null where
	 * _FillValue, then unpacked by scale_factor; int16 as stored without CF decoding`; absent when they do not apply.
	 */
	readonly cfDecoding?: string;
	/** A half float array: how its values become the column's, `float16 widened exactly to float32` (Arrow has no half floats DuckDB or polars read). */
	readonly widening?: string;
	/** The CF attributes a reader needs to understand the numbers (units, calendar, markers, packing, names), as written. */
	readonly attributes?: Record<string, unknown>;
	/**
	 * The coordinate whose CF `bounds` (or `climatology`) names this array: when the array takes its units or calendar
	 * from it, or when it is a time array of its own (`boundsOwnUnits`: xarray's `time_bnds` of instants).
	 */
	readonly boundsOf?: string;
	/** A time array of its own (units and calendar, or datetime64) that `boundsOf` names as its bounds: the time column only when named. */
	readonly boundsOwnUnits?: true;
	/** A CF time array: its units and calendar, e.g. `hours since 2020-01-01 00:00:00, proleptic_gregorian`. */
	readonly cfTime?: string;
	/**
	 * A CF time array of packed counts: how the export unpacks them before decoding them to `arrowType`, as xarray's
	 * decode_cf does (after masking): `count × scaleFactor + addOffset` in `unpackedType`.
	 */
	readonly cfPacking?: CfPackingReport;
	/** `dimension_names` as written, the names of index columns (`--index`). */
	readonly dimensionNames?: (string | null)[];
	readonly first?: EndValue;
	readonly last?: EndValue;
}

/** The unpacking of packed CF time counts (InspectNode.cfPacking). */
export interface CfPackingReport {
	/** The counts' type as read: the stored data type, or the one `_Unsigned` reads it as. */
	readonly countType: string;
	/** The attributes as numbers (an integer past 2^53 a bigint, JSON text its digits); each absent when the array has not that attribute. */
	readonly scaleFactor?: number | bigint;
	readonly addOffset?: number | bigint;
	/**
	 * The type of the unpacked counts, `float32` or `float64`, in which they are computed (see cf/packing.ts); `int64`
	 * for integer counts with integer factors one of which is past 2^53, unpacked exactly.
	 */
	readonly unpackedType: "float32" | "float64" | "int64";
}

const DEFAULT_MAX_CHUNKS = 64;
const INT32_MIN = -2_147_483_648;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function integerList(value: unknown): number[] | undefined {
	return Array.isArray(value) && value.every((n) => Number.isSafeInteger(n)) ? (value as number[]) : undefined;
}

function scalarText(value: unknown): string {
	return typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
}

const BLOSC_SHUFFLE: Readonly<Record<number, string>> = { 0: "noshuffle", 1: "shuffle", 2: "bitshuffle" };

/** A codec with the configuration that matters to a reader: `bytes(little)`, `zstd(level=3)`, `blosc(lz4, clevel=5, shuffle)`. */
function formatCodec(codec: CodecMetadata): string {
	const c = codec.configuration ?? {};
	switch (codec.name) {
		case "bytes":
			return c.endian === undefined ? "bytes" : `bytes(${scalarText(c.endian)})`;
		case "crc32c":
			return "crc32c";
		case "gzip":
		case "zlib":
			return c.level === undefined ? codec.name : `${codec.name}(level=${scalarText(c.level)})`;
		case "zstd":
			return `zstd(${[`level=${scalarText(c.level ?? 0)}`, ...(c.checksum === true ? ["checksum"] : [])].join(", ")})`;
		case "blosc": {
			const shuffle = typeof c.shuffle === "number" ? (BLOSC_SHUFFLE[c.shuffle] ?? String(c.shuffle)) : c.shuffle;
			const parts = [c.cname, c.clevel === undefined ? undefined : `clevel=${scalarText(c.clevel)}`, shuffle];
			return `blosc(${parts.filter((part) => part !== undefined).map(scalarText).join(", ")})`;
		}
		default: {
			const entries = Object.entries(c);
			return entries.length === 0 ? codec.name : `${codec.name}(${entries.map(([key, value]) => `${key}=${scalarText(value)}`).join(", ")})`;
		}
	}
}

function codecList(value: unknown): CodecMetadata[] {
	return Array.isArray(value) ? value.filter((codec): codec is CodecMetadata => isObject(codec) && typeof codec.name === "string") : [];
}

/** Strips the `<where>: ` that validation messages start with: the report names the node already. */
function reasonOf(error: unknown, where: string): string {
	const message = (error as Error).message;
	return message.startsWith(`${where}: `) ? message.slice(where.length + 2) : message;
}

/** Why an array cannot be exported: the reason, with the error's code and option for a caller's advice. */
function refusalOf(error: unknown, where: string): Pick<InspectNode, "reason" | "reasonCode" | "reasonOption"> {
	const reason = reasonOf(error, where);
	if (!(error instanceof Dt64ExportError)) return { reason };
	const { option } = error as { option?: unknown };
	return { reason, reasonCode: error.code, ...(typeof option === "string" ? { reasonOption: option } : {}) };
}

/** Shape, chunking and codecs as written, for any v3 array (nothing here is validated). */
function v3Layout(json: Record<string, unknown>): Partial<InspectNode> {
	const grid = isObject(json.chunk_grid) && isObject(json.chunk_grid.configuration) ? json.chunk_grid.configuration.chunk_shape : undefined;
	const codecs = codecList(json.codecs);
	// Sharding last, after array -> array codecs (transposes) or alone: those are listed before its inner codecs.
	const sharding = codecs.at(-1)?.name === "sharding_indexed" ? (codecs.at(-1)!.configuration ?? {}) : undefined;
	if (sharding === undefined) return { shape: integerList(json.shape), chunkShape: integerList(grid), codecs: codecs.map(formatCodec) };
	const inner = codecList(sharding.codecs ?? [{ name: "bytes", configuration: { endian: "little" } }]);
	const index = codecList(sharding.index_codecs ?? [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }]);
	return {
		shape: integerList(json.shape),
		shardShape: integerList(grid),
		chunkShape: integerList(sharding.chunk_shape),
		indexLocation: scalarText(sharding.index_location ?? "end"),
		indexCodecs: index.map(formatCodec),
		codecs: [...codecs.slice(0, -1), ...inner].map(formatCodec),
	};
}

/** The fill value JSON as written: exact for integers past 2^53, compact otherwise. */
function rawFillValue(text: string, json: Record<string, unknown>): string {
	const raw = rawMemberText(text, "fill_value")?.trim();
	if (raw !== undefined && /^-?[0-9]+$/.test(raw)) return raw;
	return JSON.stringify(json.fill_value ?? null);
}

function isNaT(words: Int32Array, i: number): boolean {
	return words[2 * i + 1] === INT32_MIN && words[2 * i] === 0;
}

/** Whether the i-th value of a chunk is absent (NaT, or a CF missing value): end values skip those. */
type IsAbsent = (chunk: NumericValues, i: number) => boolean;

const isNaTValue: IsAbsent = (chunk, i) => {
	const int64 = chunk as BigInt64Array;
	return isNaT(new Int32Array(int64.buffer, int64.byteOffset + 8 * i, 2), 0);
};

/**
 * The first (direction 1) or last (-1) value of a decoded chunk that is not absent and lies inside the array, with
 * its flat C-order index in the array. A chunk is a box of the array, so C order inside it is C order outside.
 */
function scanChunk(chunk: NumericValues, chunkShape: readonly number[], coords: readonly number[], shape: readonly number[], direction: 1 | -1, isAbsent: IsAbsent) {
	const origin = coords.map((c, axis) => c * chunkShape[axis]);
	const extent = origin.map((start, axis) => Math.min(chunkShape[axis], shape[axis] - start));
	const chunkStrides = cStrides(chunkShape);
	const arrayStrides = cStrides(shape);
	for (let step = 0; step < chunk.length; step++) {
		const i = direction === 1 ? step : chunk.length - 1 - step;
		if (isAbsent(chunk, i)) continue;
		let rest = i;
		let row = 0;
		let inside = true;
		for (let axis = 0; axis < chunkShape.length; axis++) {
			const local = Math.floor(rest / chunkStrides[axis]);
			rest -= local * chunkStrides[axis];
			if (local >= extent[axis]) {
				inside = false;
				break;
			}
			row += (origin[axis] + local) * arrayStrides[axis];
		}
		if (inside) return { row, count: chunk[i] };
	}
	return undefined;
}

/** The most bytes of decoded chunks inspect keeps of one array (see endsKept). */
const KEPT_END_BYTES = 16 * 2 ** 20;

/**
 * An array's chunks with those of its first and last rows of chunks kept once read (up to KEPT_END_BYTES): the
 * first and last values are looked for there, after the unit of float CF counts read them all, and a one-chunk
 * array's first and last value are in the same chunk. Each was a request again (three of the same chunk).
 */
function endsKept<V extends ChunkValues>(source: ChunkSource<V>): ChunkSource<V> {
	const rows = source.gridShape[0] ?? 1;
	return keepingChunks(source, KEPT_END_BYTES, (coords) => coords.length === 0 || coords[0] === 0 || coords[0] === rows - 1);
}

/** What inspect reads for an array's first and last values, and how it spells them. */
interface EndSearch {
	readonly source: ChunkSource<NumericValues>;
	readonly shape: number[];
	/** The most chunks read from each end; past it, the answer is "unknown". */
	readonly maxChunks: number;
	readonly signal: AbortSignal | undefined;
	readonly isAbsent: IsAbsent;
	readonly format: (count: bigint | number, row: number) => { iso: string | null; note?: string };
}

/**
 * Reads chunks from one end until a value is found. In N-d arrays the first value in C order can be in any
 * chunk of the first row of chunks that has one, so whole rows of chunks are read; past `maxChunks` the answer
 * is "unknown".
 */
async function findEnd({ source, shape, maxChunks, signal, isAbsent }: EndSearch, direction: 1 | -1): Promise<{ row: number; count: bigint | number } | "none" | number> {
	if (shape.length === 0) {
		const chunk = await source.read([], signal);
		return isAbsent(chunk, 0) ? "none" : { row: 0, count: chunk[0] };
	}
	if (product(shape) === 0) return "none";
	const grid = source.gridShape;
	const across = grid.slice(1);
	let read = 0;
	for (let step = 0; step < grid[0]; step++) {
		const band = direction === 1 ? step : grid[0] - 1 - step;
		// Read as a pass over this row of chunks only: a sharded array reads those inner chunks, not whole shards.
		const row = chunkRowsBox(grid, { start: band, end: band + 1 });
		let best: { row: number; count: bigint | number } | undefined;
		for (const forward of cOrderCoordinates(across)) {
			if (read === maxChunks) return read;
			const rest = direction === 1 ? forward : forward.map((c, axis) => across[axis] - 1 - c);
			const coords = [band, ...rest];
			const found = scanChunk(await source.read(coords, signal, row), source.chunkShape, coords, shape, direction, isAbsent);
			read++;
			if (found !== undefined && (best === undefined || (direction === 1 ? found.row < best.row : found.row > best.row))) best = found;
		}
		if (best !== undefined) return best;
	}
	return "none";
}

/**
 * The ISO 8601 text of a count, through the same conversion as an export with `--unit auto`; `refusal`: the error the
 * default export (exact, `--on-overflow error`) stops at on this value, which makes the array not exportable as is.
 */
function formatCount(count: bigint, row: number, type: Datetime64Type, unit: TargetUnit): { iso: string | null; note?: string; refusal?: ConversionError } {
	const format = (value: bigint) => (type.kind === "timedelta64" ? formatIsoDuration(value, unit) : formatIsoTimestamp(value, unit));
	const convert = (rounding: Rounding, onOverflow: OverflowPolicy = "null") =>
		convertTimestamps(BigInt64Array.of(count), type, { unit, rounding, onOverflow, describePosition: () => `row ${row}` });
	let refusal: ConversionError | undefined;
	try {
		convert("error", "error");
	} catch (error) {
		if (!(error instanceof ConversionError)) throw error;
		refusal = error;
	}
	return { ...shownCount(type, unit, format, convert), ...(refusal === undefined ? {} : { refusal }) };
}

/** A count as inspect shows it: exact, else floored (as an export that floors writes it), else why it has no instant. */
function shownCount(type: Datetime64Type, unit: TargetUnit, format: (value: bigint) => string, convert: (rounding: Rounding) => TimestampValues): { iso: string | null; note?: string } {
	try {
		const converted = convert("error");
		if (converted.nullCount === 1) return { iso: null, note: `outside the int64 range in ${unit}` };
		return { iso: format(converted.values[0]) };
	} catch (error) {
		if (!(error instanceof ConversionError) || type.unit === "generic") return { iso: null, note: (error as Error).message };
		return { iso: format(convert("floor").values[0]), note: `floored to ${unit}, as an export that floors writes it` };
	}
}

async function endValue(search: EndSearch, direction: 1 | -1): Promise<EndValue> {
	try {
		const found = await findEnd(search, direction);
		if (found === "none") return { status: "none" };
		if (typeof found === "number") return { status: "unknown", chunksRead: found };
		return { status: "found", row: found.row, count: found.count, ...search.format(found.count, found.row) };
	} catch (error) {
		// Cut short, the read says nothing of the array: inspect stops.
		throwIfAborted(search.signal);
		return { status: "error", message: (error as Error).message.replace(/\s*\n\s*/g, " ") };
	}
}

/**
 * The unit flooring (`--allow-truncate`; and `--round`, when the same) writes a CF time column in when `--unit auto` takes one
 * coarser than its exact unit, which cannot hold every date (before 1678): the unit inspect shows a count in when the
 * exact unit cannot hold it.
 */
interface HeldUnit {
	readonly unit: TargetUnit;
	/** Whether rounding to the nearest (`--round`) takes that unit too. */
	readonly rounds: boolean;
}

/** The ISO 8601 text of a CF time count, decoded as an export with `--unit auto` decodes it. */
function formatCfCount(count: bigint | number, row: number, decoding: CfTimeDecoding, dataType: string, unit: TargetUnit, held?: HeldUnit): { iso: string | null; note?: string } {
	const values = typeof count === "bigint" ? BigInt64Array.of(count) : Float64Array.of(count);
	const decodeIn = (target: TargetUnit, rounding: Rounding) =>
		decodeCfCounts(values, decoding.coding, decoding.markers, { unit: target, rounding, onOverflow: "null", dataType, describePosition: () => `row ${row}` });
	const formatIn = (target: TargetUnit, value: bigint) => (decoding.coding.kind === "duration" ? formatIsoDuration(value, target) : formatIsoTimestamp(value, target));
	// Outside the exact unit's range: in the unit the flags write, when it holds the date (the exact export's refusal
	// is the array's `exportable` line).
	const outside = () => {
		const inHeld = held === undefined ? undefined : decodeIn(held.unit, "floor");
		if (held === undefined || inHeld === undefined || inHeld.nullCount === 1) return { iso: null, note: `outside the int64 range in ${unit}` };
		const whole = (() => {
			try {
				return decodeIn(held.unit, "error").nullCount === 0;
			} catch {
				return false;
			}
		})();
		const how = whole ? `in ${held.unit}, as an export that floors${held.rounds ? " or rounds" : ""} writes it` : `floored to ${held.unit}, as an export that floors writes it`;
		return { iso: formatIn(held.unit, inHeld.values[0]), note: `${how}; ${unit}, the exact unit, cannot hold it` };
	};
	try {
		const decoded = decodeIn(unit, "error");
		if (decoded.nullCount === 1) return outside();
		return { iso: formatIn(unit, decoded.values[0]) };
	} catch (error) {
		if (!(error instanceof CfDecodeError) || error.code !== "TRUNCATION") return { iso: null, note: (error as Error).message };
		const floored = decodeIn(unit, "floor");
		if (floored.nullCount === 1) return outside();
		return { iso: formatIn(unit, floored.values[0]), note: `floored to ${unit}` };
	}
}

/** The attributes inspect shows, when present: what a reader needs to understand the numbers (`coordinates`: the columns `--columns` attaches). */
const SHOWN_ATTRIBUTES = ["units", "calendar", "_FillValue", "missing_value", "scale_factor", "add_offset", "long_name", "standard_name", "dtype", "coordinates"];

function shownAttributes(node: ArrayNode): Partial<InspectNode> {
	const all = attributesOf(node);
	const shown = Object.fromEntries(SHOWN_ATTRIBUTES.filter((key) => all[key] !== undefined).map((key) => [key, all[key]]));
	return Object.keys(shown).length === 0 ? {} : { attributes: shown };
}

/**
 * A CF time array: its decoding described, exportable as a timestamp (duration) column when the coding is one this
 * tool decodes, with its first and last values decoded. The unit shown is `--unit auto`'s for integer counts; float
 * counts may ask for a finer one, which only reading every value tells.
 */
async function describeCfTimeArray(opened: OpenedStore, node: ArrayNode, other: InspectNode, where: string, maxChunks: number): Promise<InspectNode> {
	// Decoded as time, it is no companion column (unless --no-cf, where it is its numbers): none of the companion's
	// fields (its type, and how CF decoding or widening makes it) describe the time it decodes to.
	const { reason: _notTime, companion: _companion, companionReason: _why, arrowType: _plain, cfDecoding: _decoding, widening: _widening, ...described } = other;
	const attributes = attributesOf(node);
	const cfTime = `${String(attributes.units)}${cfTimeKindOf(attributes) === "duration" ? ", timedelta" : `, ${typeof attributes.calendar === "string" ? attributes.calendar : "standard"}`}`;
	let metadata: PlainArrayMetadata;
	let chunks: ChunkSource<ChunkValues>;
	let decoding: CfTimeDecoding;
	let scanned: boolean;
	let unsigned: UnsignedCoding | undefined;
	try {
		const stored = parsePlainArrayMetadata(node, where);
		unsigned = unsignedCodingOf(stored);
		metadata = withUnsignedCoding(stored);
		chunks = endsKept(createPlainChunkSource(opened.store, metadata, where, { forbiddenAsMissing: opened.forbiddenAsMissing }));
		// Float counts may need a finer unit than their units: every value is read for it, when that is few chunks.
		scanned = product(chunks.gridShape) <= maxChunks;
		// Read as the export reads them for `--unit auto`, and on until a count that is not a whole number of ns: an
		// exact export refuses it, whatever the unit.
		// Their earliest and latest counts too, as the export's auto pass finds them for --round and --allow-truncate:
		// before 1678 (after 2262) the unit their fractions ask for may not hold every date, and auto takes a coarser.
		decoding = await openCfTimeDecoding(metadata, chunks, { readValues: scanned, signal: opened.signal, findInexact: true, findRange: scanned });
	} catch (error) {
		throwIfAborted(opened.signal);
		const refusal = refusalOf(error, where);
		const prefix = `${cfArrayContext(node.path)}: `;
		const reason = refusal.reason ?? "";
		return { ...described, cfTime, exportable: false, ...refusal, reason: reason.startsWith(prefix) ? `CF time refused: ${reason.slice(prefix.length)}` : reason };
	}
	// Unread float counts are shown in their base unit, said to be a lower bound.
	const unsure = decoding.autoUnit === undefined;
	const unit = unsure ? baseCfTargetUnit(decoding.coding) : cfTimeUnit(decoding, metadata, "auto", "error");
	const nearest = unsure ? unit : cfTimeUnit(decoding, metadata, "auto", "nearest");
	const floored = unsure ? unit : cfTimeUnit(decoding, metadata, "auto", "floor");
	const typeName = decoding.coding.kind === "duration" ? "duration" : "timestamp";
	const arrowType = `${typeName}[${unit}]${unsure && unit !== "ns" ? " or a finer unit if a float count needs one" : ""}`;
	const inexact = decoding.autoUnit?.inexact;
	const rounded = nearest === unit && inexact === undefined ? {} : { arrowTypeRounded: `${typeName}[${nearest}]` };
	// Flooring keeps the exact unit, unless that unit cannot hold every date (before 1678: auto takes a coarser).
	const flooredType = floored === unit ? {} : { arrowTypeFloored: `${typeName}[${floored}]` };
	const held: HeldUnit | undefined = floored === unit ? undefined : { unit: floored, rounds: nearest === floored };
	const search: EndSearch = {
		source: chunks as ChunkSource<NumericValues>,
		shape: metadata.shape,
		maxChunks,
		signal: opened.signal,
		isAbsent: (chunk, i) => isMissingValue(decoding.markers, chunk[i]),
		format: (count, row) => formatCfCount(count, row, decoding, metadata.dataType.name, unit, held),
	};
	const first = await endValue(search, 1);
	const last = await endValue(search, -1);
	const floatCountsRead = hasFloatCounts(metadata, decoding.coding) ? { floatCountsRead: !unsure } : {};
	// A count between two nanoseconds is refused by an exact export in every unit: rounding (or flooring) exports it.
	const exportable =
		inexact === undefined
			? { exportable: true }
			: { exportable: false, reason: `${metadata.dataType.name} count ${inexact} is not a whole number of ns, which an exact export refuses`, reasonCode: "TRUNCATION" as const, reasonOption: "rounding" };
	const read = unsigned === undefined ? (metadata.dataType.name === "float16" ? `, counts ${HALF_WIDENING}` : "") : `, counts read as ${unsigned.read} by _Unsigned "${unsigned.unsigned}"`;
	const packing = decoding.coding.packing === null ? {} : { cfPacking: packingReport(metadata.dataType.name, decoding.coding.packing) };
	return { ...described, cfTime: `${cfTime}${read}`, ...packing, ...exportable, arrowType, ...rounded, ...flooredType, ...floatCountsRead, first, last };
}

function packingReport(countType: string, rule: PackingRule): CfPackingReport {
	return {
		countType,
		...(rule.applied.scale_factor === undefined ? {} : { scaleFactor: rule.integerFactors?.scale ?? rule.scaleFactor }),
		...(rule.applied.add_offset === undefined ? {} : { addOffset: rule.integerFactors?.offset ?? rule.addOffset }),
		unpackedType: rule.target,
	};
}

/** `int16 counts × scale_factor 12 + add_offset -60, in float64 as xarray unpacks them`. */
function packingText(packing: CfPackingReport): string {
	const scale = packing.scaleFactor === undefined ? "" : ` × scale_factor ${packing.scaleFactor}`;
	const offset = packing.addOffset === undefined ? "" : ` + add_offset ${packing.addOffset}`;
	return `${packing.countType} counts${scale}${offset}, unpacked in ${packing.unpackedType} (CF's rule)`;
}

/** Shape, chunking and codecs as a v2 `.zarray` writes them, for arrays that are not read as v3. */
function v2Layout(json: Record<string, unknown>): Partial<InspectNode> {
	const codecs = [...(Array.isArray(json.filters) ? json.filters : []), ...(json.compressor ? [json.compressor] : [])]
		.filter(isObject)
		.map(({ id, ...configuration }) => formatCodec({ name: scalarText(id), configuration }));
	return { shape: integerList(json.shape), chunkShape: integerList(json.chunks), codecs };
}

const dtypeText = (dtype: unknown) => (typeof dtype === "string" ? dtype : JSON.stringify(dtype));

/** The fill value of a datetime array: exact, `NaT`, `null` for a v2 array without one, else as written. */
function timeFillValue(form: V3ArrayForm): string {
	const text = form.fillValueText?.trim();
	if (form.zarrFormat === 2 && text === "null") return "null";
	try {
		return formatFillValue(parseFillValue(text));
	} catch {
		// As written: exact for integers (past int64 here), compact otherwise.
		if (text === undefined) return "null";
		return /^-?[0-9]+$/.test(text) ? text : JSON.stringify(JSON.parse(text));
	}
}

/**
 * The Arrow type a companion column gets, as the export plans it (table/plain-column.ts): its stored type, or after
 * CF masking (null) and unpacking (Float32/Float64), said in `cfDecoding`.
 */
function companionType(storedMetadata: PlainArrayMetadata): Pick<InspectNode, "arrowType" | "cfDecoding" | "widening"> {
	return { ...cfCompanionType(storedMetadata), ...(storedMetadata.dataType.name === "float16" ? { widening: HALF_WIDENING } : {}) };
}

const HALF_WIDENING = "float16 widened exactly to float32";

function cfCompanionType(storedMetadata: PlainArrayMetadata): Pick<InspectNode, "arrowType" | "cfDecoding"> {
	const stored = plainArrowTypeName(storedMetadata.dataType.name);
	const unsigned = unsignedCodingOf(storedMetadata);
	const metadata = withUnsignedCoding(storedMetadata);
	const type = metadata.dataType.name;
	if (!isMaskableType(type)) return { arrowType: stored };
	const mask = maskRuleOf({ name: metadata.path, type, zarrFormat: metadata.zarrFormat, attributes: metadata.attributes, fillValue: metadata.fillValue });
	const packing = packingRuleOf(metadata.path, type, metadata.attributes);
	const boolean = isCfBoolean(metadata.attributes);
	if (mask === undefined && packing === undefined && !boolean && unsigned === undefined) return { arrowType: stored };
	const steps = [
		...(unsigned === undefined ? [] : [`read as ${unsigned.read} by _Unsigned "${unsigned.unsigned}"`]),
		...(mask === undefined ? [] : [`null where ${Object.keys(mask.applied).join(", ")}`]),
		...(packing === undefined ? [] : [`unpacked by ${Object.keys(packing.applied).join(" and ")}`]),
		...(boolean ? ['non-zero as true, xarray\'s dtype "bool"'] : []),
	];
	const arrowType = plainArrowTypeName(boolean ? "bool" : packing === undefined ? type : packing.target);
	return { arrowType, cfDecoding: `${steps.join(", then ")}; ${stored} as stored without CF decoding` };
}

/** Whether an array of a plain data type can be a companion column: its metadata, codecs and CF attributes are checked as an export would. */
function describeCompanion(opened: OpenedStore, node: ArrayNode, where: string): Partial<InspectNode> {
	try {
		const metadata = parsePlainArrayMetadata(node, where);
		createPlainChunkSource(opened.store, metadata, where);
		return { companion: true, ...companionType(metadata) };
	} catch (error) {
		return { companion: false, companionReason: reasonOf(error, where) };
	}
}

/** `dimension_names` (or v2 `_ARRAY_DIMENSIONS`), when some dimension is named. */
function dimensionNamesOf(form: Record<string, unknown>): Partial<InspectNode> {
	const names = form.dimension_names;
	return Array.isArray(names) && names.some((name) => name !== null) ? { dimensionNames: names as (string | null)[] } : {};
}

/**
 * A v2 array's `_ARRAY_DIMENSIONS` (`.zattrs`), when its v3 form cannot be made (a codec or dtype this package does
 * not read): the names need neither, and are shown as a readable array's are. A list that does not name each
 * dimension is left out (reading the array refuses it).
 */
function v2DimensionNames(node: Extract<ArrayNode, { zarrFormat: 2 }>): Partial<InspectNode> {
	const names = node.attributes._ARRAY_DIMENSIONS;
	const shape = node.json.shape;
	if (!Array.isArray(names) || !Array.isArray(shape) || names.length !== shape.length || !names.every((name) => typeof name === "string")) return {};
	return dimensionNamesOf({ dimension_names: names });
}

/**
 * An array of another data type than numpy times: not exportable alone, maybe as a companion column. A v2 array
 * is shown as it is read (its v3 data type and codecs) when its dtype can be, else as written, saying why not.
 */
function describeOtherArray(opened: OpenedStore, node: ArrayNode, base: InspectNode, where: string): InspectNode {
	const notTime = (dataType: string) => ({ fillValue: rawFillValue(node.text, node.json), exportable: false, reason: `data type is ${dataType}, not numpy.datetime64 or numpy.timedelta64` });
	if (node.zarrFormat === 3) {
		// A core type written as an object is shown as written: it is not the type its name says (see parsePlainDataType).
		const dataType = coreTypeNameOfObject(node.json.data_type) === undefined ? describeDataType(node.json.data_type) : JSON.stringify(node.json.data_type);
		const described = { ...base, dataType, ...v3Layout(node.json), ...dimensionNamesOf(node.json), ...notTime(dataType) };
		return isPlainDataType(node.json.data_type) ? { ...described, ...describeCompanion(opened, node, where) } : described;
	}
	let form: V3ArrayForm;
	try {
		form = v3FormOf(node, where);
	} catch (error) {
		const dataType = dtypeText(node.json.dtype);
		return { ...base, dataType, ...v2Layout(node.json), ...v2DimensionNames(node), ...notTime(dataType), companion: false, companionReason: reasonOf(error, where) };
	}
	const dataType = describeDataType(form.json.data_type);
	return { ...base, dataType, ...v3Layout(form.json), ...dimensionNamesOf(form.json), ...notTime(dataType), ...describeCompanion(opened, node, where) };
}

async function describeArray(opened: OpenedStore, node: ArrayNode, maxChunks: number): Promise<InspectNode> {
	const v2 = node.zarrFormat === 2;
	const missing = missingChunksOf(node);
	const base = { path: node.path, kind: "array" as const, zarrFormat: node.zarrFormat, ...(v2 ? { dtype: dtypeText(node.json.dtype) } : {}), ...(missing === "fill" ? {} : { missingChunks: missing }), ...shownAttributes(node) };
	const where = arrayMetadataPlace(node, isStaleConsolidated(opened, node.path));
	if (isCfTimeArray(node)) return describeCfTimeArray(opened, node, describeOtherArray(opened, node, base, where), where, maxChunks);
	if (!isTimeArray(node)) return describeOtherArray(opened, node, base, where);
	let form: V3ArrayForm;
	try {
		form = v3FormOf(node, where);
	} catch (error) {
		// Only a v2 array can fail here (its dtype, order or codecs): it is shown as written.
		return { ...base, dataType: dtypeText(node.json.dtype), ...v2Layout(node.json), ...v2DimensionNames(node as Extract<ArrayNode, { zarrFormat: 2 }>), fillValue: rawFillValue(node.text, node.json), exportable: false, ...refusalOf(error, where) };
	}
	let type: Datetime64Type | undefined;
	try {
		type = parseDatetime64Type(form.json.data_type);
	} catch {
		// Reported below as the reason it cannot be exported.
	}
	const described = {
		...base,
		dataType: type === undefined ? describeDataType(form.json.data_type) : formatDatetime64Type(type),
		...(type === undefined ? {} : { unit: type.unit, scaleFactor: type.scaleFactor }),
		...v3Layout(form.json),
		...dimensionNamesOf(form.json),
		fillValue: timeFillValue(form),
	};
	let source: ChunkSource;
	let metadata: TimeArrayMetadata;
	try {
		metadata = parseTimeArrayMetadata(node, where);
		source = endsKept(createChunkSource(opened.store, metadata, where, { forbiddenAsMissing: opened.forbiddenAsMissing }));
	} catch (error) {
		return { ...described, exportable: false, ...refusalOf(error, where) };
	}
	const unit = resolveTargetUnit(metadata.dataType, "auto");
	const arrowType = `${metadata.dataType.kind === "timedelta64" ? "duration" : "timestamp"}[${unit}]`;
	// The first and last values go through the export's own conversion: one the default export refuses (a count that is
	// not a whole number of the unit, a value of a generic datetime64, one past int64) makes the array not exportable as is.
	let refusal: ConversionError | undefined;
	const format = (count: bigint | number, row: number) => {
		const { refusal: refused, ...shown } = formatCount(count as bigint, row, metadata.dataType, unit);
		refusal ??= refused;
		return shown;
	};
	const search: EndSearch = { source, shape: metadata.shape, maxChunks, signal: opened.signal, isAbsent: isNaTValue, format };
	const first = await endValue(search, 1);
	const last = await endValue(search, -1);
	const exportable = refusal === undefined ? { exportable: true } : { exportable: false, ...refusalOf(refusal, where) };
	return { ...described, ...exportable, arrowType, first, last };
}

async function describeEntry(opened: OpenedStore, entry: TreeEntry, discovery: TreeDiscovery, maxChunks: number, lookup: NodeLookup, named: ReadonlyMap<string, string>): Promise<InspectNode> {
	if ("error" in entry) return { path: entry.path, kind: "invalid", error: entry.error, ...(discovery === "directory" || discovery === "listing" ? { membersListed: false as const } : {}) };
	if (entry.node.kind === "group") return { path: entry.path, kind: "group", zarrFormat: entry.node.zarrFormat };
	// A coordinate's boundary variable is shown as an export decodes it: with the units and calendar it takes (CF
	// bounds), its coordinate found by the export's rule, in the tree already read.
	const group = entry.path.includes("/") ? entry.path.slice(0, entry.path.lastIndexOf("/")) : "";
	const parent = await boundsParentFor(opened, { path: group, format: entry.node.zarrFormat }, entry.node, lookup);
	const node = parent === undefined ? entry.node : withBoundsAttributes(entry.node, parent);
	if (node !== entry.node) return { ...(await describeArray(opened, node, maxChunks)), boundsOf: parent!.name };
	const described = await describeArray(opened, node, maxChunks);
	// Bounds with units of their own (a time array in its own right), named by a coordinate of the group: as discovery
	// and the time column take them (src/table/bounds-candidates.ts), the time array only when named.
	const coordinate = named.get(entry.path);
	const ownTime = described.kind === "array" && (described.cfTime !== undefined || isTimeArray(node));
	return coordinate !== undefined && ownTime ? { ...described, boundsOf: coordinate, boundsOwnUnits: true } : described;
}

/**
 * The most nodes of a remote store's consolidated metadata whose own documents inspect reads to check it: 2 requests
 * a v2 array (1 for v3), METADATA_READS_IN_FLIGHT at a time, so at most 8 round trips. Past it, the consolidated
 * metadata alone is read (one request), as for a store of thousands of arrays it should be.
 */
export const CHECKED_CONSOLIDATED_NODES = 64;

/**
 * Reads the own documents of the nodes a remote store's consolidated metadata lists (up to CHECKED_CONSOLIDATED_NODES),
 * all in one batch, so that where they disagree with it the report warns as it does for a folder or a zip, whose
 * documents are read as they are listed (readNodeDocument records each difference). A document that cannot be read
 * is no difference found: the report stays what the consolidated metadata says.
 */
async function readOwnDocumentsOf(opened: OpenedStore, tree: StoreTree): Promise<void> {
	if (!opened.remote || opened.entries !== undefined || (tree.discovery !== "consolidated" && tree.discovery !== "consolidated-v2")) return;
	const listed = tree.entries.slice(1).flatMap((entry) => ("node" in entry ? [entry] : []));
	if (listed.length > CHECKED_CONSOLIDATED_NODES) return;
	// Every read is asked for at once: the store's documents keep METADATA_READS_IN_FLIGHT of them in flight.
	await Promise.all(
		listed.map((entry) =>
			readNodeDocument(opened, entry.path, entry.node.zarrFormat).catch(() => {
				throwIfAborted(opened.signal);
			}),
		),
	);
}

/** Every option inspectStore takes: another name is refused (a misspelt one would be ignored). */
const INSPECT_OPTION_NAMES: readonly string[] = Object.keys({
	maxChunks: 0, headers: 0, retries: 0, timeoutMs: 0, redirects: 0, bufferPool: 0, signRequests: 0, env: 0, forbiddenAsMissing: 0,
	followLinksOutside: 0, signal: 0,
} satisfies Record<keyof InspectOptions | "bufferPool", 0>);

/**
 * Opens a store and describes every node that can be found in it; chunks are read only for first and last values.
 * With `signal`, an abort rejects with Node's AbortError, the request in flight cut short (OpenStoreOptions.signal).
 */

export async function inspectStore(locationGiven: string | URL, options: InspectOptions | null = {}): Promise<InspectReport> {
	const location = storeArgument(locationGiven);
	options = optionsArgument(options);
	checkOptionNamesOf("inspectStore", options, INSPECT_OPTION_NAMES);
	const maxChunks = options.maxChunks ?? DEFAULT_MAX_CHUNKS;
	if (!Number.isInteger(maxChunks) || maxChunks < 1) throw new UsageError(`invalid maxChunks ${maxChunks}: must be an integer >= 1`, { option: "maxChunks", value: maxChunks });
	decodeThreadsAsked();
	checkHttpStoreOptions({ headers: options.headers, retries: options.retries, timeoutMs: options.timeoutMs, redirects: options.redirects });
	return abortable(options.signal, () => inspectOpened(location, options, maxChunks));
}

async function inspectOpened(location: string, options: InspectOptions, maxChunks: number): Promise<InspectReport> {
	const opened = await openStore(location, options);
	let refusedListing: ListingRefusedError | undefined;
	const tree = await listStoreTree(opened, "").catch(async (error: unknown): Promise<StoreTree> => {
		// A bucket that may be read but not listed: its root group is still shown, with why its members are not.
		const root = isListingRefused(error) ? await readNodeDocument(opened, "") : undefined;
		if (root === undefined) throw error;
		refusedListing = error as ListingRefusedError;
		return { entries: [{ path: "", node: root.node }], discovery: "root-only" };
	});
	await readOwnDocumentsOf(opened, tree);
	opened.documents.release();
	const nodes: InspectNode[] = [];
	const treeNodes = new Map(tree.entries.flatMap((entry) => ("node" in entry ? [[entry.path, entry.node] as const] : [])));
	const lookup: NodeLookup = async (path) => treeNodes.get(path);
	const named = boundsNamedIn(treeNodes);
	for (const entry of tree.entries) {
		// A folder's reads do not look at the signal: an abort stops inspect between nodes.
		throwIfAborted(opened.signal);
		nodes.push(await describeEntry(opened, entry, tree.discovery, maxChunks, lookup, named));
	}
	const partial = tree.discovery === "root-only" && nodes[0]?.kind === "group";
	const stale = staleConsolidatedWarning(staleConsolidatedOf(opened));
	return {
		store: opened.location,
		storeKind: opened.kind,
		discovery: tree.discovery,
		...(stale === undefined ? {} : { staleConsolidatedMetadata: stale }),
		...(refusedListing !== undefined ? { note: refusedListing.note } : partial ? { note: "only the root group is listed: an HTTP store cannot be listed, and this one has no consolidated metadata" } : {}),
		nodes,
	};
}

/** The report as JSON; int64 counts are strings, since JSON numbers are doubles. */
export function inspectReportToJson(report: InspectReport): string {
	return JSON.stringify(report, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2);
}

const DISCOVERY_TEXT: Readonly<Record<TreeDiscovery, string>> = {
	directory: "walking the folder",
	zip: "listing the zip",
	consolidated: "its consolidated metadata",
	"consolidated-v2": "its Zarr v2 consolidated metadata (.zmetadata)",
	listing: "listing the bucket",
	"root-only": "reading the root",
};

const STORE_KIND_TEXT: Readonly<Record<OpenedStore["kind"], string>> = { directory: "folder", zip: "zip", http: "HTTP", s3: "S3", gs: "Google Cloud Storage", az: "Azure Blob" };

/** `; timestamp[s] rounded to the nearest unit`, `; timestamp[us] rounded to the nearest unit or floored`, `...; timestamp[s] rounded to the nearest unit, timestamp[us] floored`. */
function roundedTypesText(node: InspectNode): string {
	const { arrowTypeRounded: rounded, arrowTypeFloored: floored } = node;
	if (floored === undefined) return rounded === undefined ? "" : `; ${rounded} rounded to the nearest unit`;
	if (rounded === undefined || rounded === floored) return `; ${floored} ${rounded === undefined ? "floored" : "rounded to the nearest unit or floored"}`;
	return `; ${rounded} rounded to the nearest unit, ${floored} floored`;
}

function formatEnd(end: EndValue, which: "first" | "last"): string {
	switch (end.status) {
		case "found":
			return `${end.iso ?? `count ${end.count}`}${end.note ? ` (${end.note})` : ""}, row ${end.row}`;
		case "none":
			return "none (every value is NaT)";
		case "unknown":
			return `unknown (no value in the ${which} ${end.chunksRead} chunks read)`;
		case "error":
			return `unknown (${end.message})`;
	}
}

const shapeText = (shape: number[] | undefined) => (shape === undefined ? "?" : `[${shape.join(", ")}]`);

export interface InspectTextOptions {
	/** Advice appended to a reason an array cannot be exported, from the error's code, option and reason (the CLI names its flag). */
	advise?: (code: ErrorCode, option: string | undefined, reason: string) => string;
}

/** The report as text, one block per node. */
export function formatInspectReport(report: InspectReport, options: InspectTextOptions = {}): string {
	checkObjectArgument("formatInspectReport", "report", report, "a report as inspectStore gives it", (value) => Array.isArray(value.nodes));
	options = optionsArgument(options);
	if (options.advise !== undefined && typeof options.advise !== "function") throw new UsageError(`formatInspectReport: advise must be a function, got ${typeof options.advise}`, { option: "advise" });
	const [root] = report.nodes;
	const kind = `${STORE_KIND_TEXT[report.storeKind]} store`;
	const count = `${report.nodes.length} node${report.nodes.length === 1 ? "" : "s"}`;
	const lines = [root?.kind === "array" ? `${report.store}: ${kind}, an array at the root` : `${report.store}: ${kind}, ${count} found by ${DISCOVERY_TEXT[report.discovery]}`];
	if (report.note !== undefined) lines.push(`note: ${report.note}`);
	if (report.staleConsolidatedMetadata !== undefined) lines.push(`warning: ${report.staleConsolidatedMetadata}`);
	let previousWasArray = true;
	for (const node of report.nodes) {
		const name = node.path === "" ? "/" : node.path;
		// Groups (one line each) are listed together; each array is a block of its own.
		if (node.kind === "array" || previousWasArray) lines.push("");
		previousWasArray = node.kind === "array";
		if (node.kind === "invalid") {
			lines.push(`${name}  invalid: ${node.error}${node.membersListed === false ? "; what it holds is not listed (not searched)" : ""}`);
			continue;
		}
		lines.push(`${name}  ${node.kind}${node.zarrFormat === 2 ? " (Zarr v2)" : ""}`);
		if (node.kind === "group") continue;
		const field = (label: string, value: string) => lines.push(`  ${label.padEnd(11)} ${value}`);
		const understood =
			node.cfTime !== undefined
				? `${node.dataType}, CF time (${node.cfTime})`
				: node.unit === undefined
					? (node.dataType ?? "?")
					: `${node.dataType} (unit ${node.unit}, scale factor ${node.scaleFactor})`;
		field("data type", node.dtype === undefined || node.dtype === node.dataType ? understood : `${understood}, dtype ${node.dtype}`);
		field("shape", shapeText(node.shape));
		if (node.shardShape !== undefined) {
			field("shards", `${shapeText(node.shardShape)}, index at the ${node.indexLocation}: ${node.indexCodecs?.join(" ") ?? ""}`);
			field("chunks", `${shapeText(node.chunkShape)} inside each shard`);
		} else {
			field("chunks", shapeText(node.chunkShape));
		}
		field("codecs", node.codecs?.length ? node.codecs.join(" ") : "none");
		field("fill value", fillValueText(node));
		if (node.attributes !== undefined) field("attributes", Object.entries(node.attributes).map(([key, value]) => `${key} ${stringifyExactIntegers(value)}`).join(", "));
		if (node.boundsOf !== undefined) {
			const why = node.boundsOwnUnits === true ? " with times of their own: the time array or time column only when named" : `: the units and calendar it lacks are ${node.boundsOf}'s`;
			field("bounds of", `${node.boundsOf} (CF cell boundaries${why})`);
		}
		if (node.cfPacking !== undefined) field("packed", `${packingText(node.cfPacking)}, then decoded${node.arrowType === undefined ? "" : ` to ${node.arrowType}`}`);
		if (node.dimensionNames !== undefined) field("dimensions", `[${node.dimensionNames.map((name) => (name === null ? "-" : name)).join(", ")}]`);
		const advice = node.reasonCode === undefined ? "" : (options.advise?.(node.reasonCode, node.reasonOption, node.reason ?? "") ?? "");
		const rounded = roundedTypesText(node);
		const unread = node.floatCountsRead === false ? " (float counts not read: whether each is a whole number of ns is not known)" : "";
		field("exportable", node.exportable ? `yes, as ${node.arrowType}${rounded}${unread}` : `no: ${node.reason}${rounded}${advice}`);
		if (node.companion !== undefined) {
			const notes = [node.widening, node.cfDecoding].filter((note) => note !== undefined);
			const decoding = notes.length === 0 ? "" : ` (${notes.join("; ")})`;
			field("companion", node.companion ? `yes, as ${node.arrowType}${decoding}: a table column, broadcast by dimension names` : `no: ${node.companionReason}`);
		}
		if (node.first !== undefined) field("first", formatEnd(node.first, "first"));
		if (node.last !== undefined) field("last", formatEnd(node.last, "last"));
	}
	// Names, data types, attributes and reasons are the store's text: none may break a line or drive a terminal.
	return `${lines.map(safeLineText).join("\n")}\n`;
}

/** The fill value, and what a missing chunk reads as when it is not that (see MissingChunks). */
function fillValueText(node: InspectNode): string {
	const value = node.fillValue ?? "?";
	if (node.missingChunks === "null") return `${value} (none: a missing chunk's strings are nulls, as zarr-python reads None there)`;
	if (node.missingChunks !== "refused") return value;
	if (value === "null") return "null (none: a missing chunk cannot be read)";
	return `${value} (no string: a missing chunk cannot be read, zarr-python 2 reads the integer ${value} there)`;
}
