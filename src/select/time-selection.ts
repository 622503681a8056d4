/**
 * Which rows of a table an export reads: the time range (by binary search when the time column is sorted, all
 * rows otherwise), then this process's part of them. Works on the opened table, before any Arrow stage exists.
 */
import { cellBoundsNamedBy } from "../cf/bounds-attributes.js";
import type { CalendarAlignment } from "../cf/calendar-alignment.js";
import { cfRefusal } from "../cf/cf-time-array.js";
import { cfTimeKindOf, parseCfTimeCoding } from "../cf/cf-time-coding.js";
import { cfInstantOf } from "../cf/decode-cf-times.js";
import { cfTimeUnit, type CfTimeDecoding } from "../cf/cf-time-array.js";
import { resolveTargetUnit } from "../convert/plan.js";
import type { TargetUnit } from "../dtype/units.js";
import { isMaskableType } from "../cf/masking.js";
import { cfMissingValueMarkers, type MissingValueMarkers } from "../cf/missing-value.js";
import { Dt64ExportError, UsageError } from "../errors.js";
import type { TableColumn, ZarrTable } from "../open-table.js";
import { readBands, readLimits, type ReadLimits } from "../stream/chunk-bands.js";
import type { ChunkValues, NumericValues } from "../zarr/chunk-values.js";
import type { BufferPool } from "../memory/buffer-pool.js";
import { poolOf } from "../memory/opened-pool.js";
import { chunkRowsBox, readingWithin } from "../zarr/chunk-box.js";
import type { ChunkSource } from "../zarr/chunk-source.js";
import { KEPT_CHUNK_OVERHEAD_BYTES, keepingChunks } from "../zarr/kept-chunks.js";
import { product } from "../zarr/grid.js";
import { cfTimeBlock } from "./cf-time-block.js";
import { partRows, type Part } from "./part.js";
import type { TimeBounds } from "./time-bounds.js";
import type { NormalizedConversionOptions } from "../convert/options.js";
import type { Datetime64Type } from "../dtype/datetime64.js";
import { ATTOSECONDS_PER_UNIT } from "../dtype/units.js";
import { ATTOSECONDS_PER_TARGET_UNIT, datetime64Instants, type InstantOf } from "./time-instants.js";
import { ceilDiv } from "../convert/bigint-division.js";
import { INT64_MAX, INT64_MIN, wordsOf } from "./int64-words.js";
import { searchTimeRange, unsortedWithin, WHOLE_CHECK_VALUES, type RowRange, type TimeBlock, type TimeBlocks, type WholeCheck } from "./time-search.js";

export interface RowSelection {
	/** Rows along the first axis this process reads. */
	readonly rows: RowRange;
	/** Whether a time range was found by search (the rows read then only need checking); false: every row is filtered. */
	readonly sorted: boolean;
	/** Blocks of the time column the search read. */
	readonly probes: number;
	/**
	 * Why the time column could not be searched, when it could not; undefined with `sorted` false when no search was
	 * asked for (`rangeSearch: false`).
	 */
	readonly unsortedReason?: string;
}

/** How the instants of the time column's stored values are found: numpy datetime64 counts, or CF time counts. */
type TimeCoding =
	| {
			readonly kind: "datetime64";
			readonly type: Datetime64Type;
			/** Rounded to the nearest of this unit, coarser than the data's, when the export rounds (see timeCodingOf). */
			readonly nearestIn?: TargetUnit;
	  }
	| { readonly kind: "cf"; readonly markers: MissingValueMarkers; readonly instantOf: (value: number | bigint) => bigint | null };

/** The time column chosen, and where its values are among the output's fields (undefined: not exported). */
export interface TimeSource {
	readonly column: TableColumn;
	readonly field: number | undefined;
	readonly name: string;
	readonly coding: TimeCoding;
	/**
	 * Every chunk of the column read while searching is kept by its source for a second read (keepingTimeChunks, the
	 * whole column within its bound): the search keeps no block of its own (TimeBlocks.readsKept).
	 */
	readonly readsKept?: boolean;
}

/** How the export reads CF time: whether it decodes it at all (`cf`), and whether model calendars are converted. */
export interface TimeColumnOptions {
	/** Index columns are written: a dimension's time coordinate is then an output column. */
	readonly index: boolean;
	/** The column asked for by name. */
	readonly name?: string;
	readonly cf: boolean;
	readonly convertCalendar: boolean;
	readonly alignOn: CalendarAlignment;
	/** The rows of dates the proleptic Gregorian calendar lacks are left out: the search places them (dropped-dates.ts). */
	readonly dropInvalidDates?: boolean;
	/**
	 * How the export converts times. When it rounds to the nearest unit, a range holds the rows whose exported
	 * (rounded) time is in it, as the TimeFilter compares them: the search compares rounded instants too.
	 */
	readonly conversion?: NormalizedConversionOptions;
	/** The output names of renamed columns (`rename`, old to new), which `name` may give instead of the array's. */
	readonly rename?: ReadonlyMap<string, string>;
	/** The output name of a single array's column (`column`), which `name` may give too. */
	readonly column?: string;
	/** One array is exported alone (`--array`, not `columns`): its own times select rows, a boundary variable's too. */
	readonly singleArray?: boolean;
	/**
	 * The coordinates whose `bounds` or `climatology` name arrays of the table's group, by the bounds' paths, found by
	 * reading the group whole (unseenBoundsOwners): an `unseenBounds` column's coordinate, for the refusal to name.
	 */
	readonly boundsOwners?: ReadonlyMap<string, string>;
}

/**
 * The time coding of a column that holds instants: a datetime64 array, or (with CF decoding) an array of CF time
 * counts (`<unit> since <date>`). Undefined for any other column; a CF coding the export refuses (a model calendar
 * without conversion) is refused here as the column's own decoding would refuse it.
 */
function timeCodingOf(column: TableColumn, options: TimeColumnOptions): TimeCoding | undefined {
	const nearest = options.conversion?.rounding === "nearest";
	const asked = options.conversion?.unit ?? "auto";
	if (column.kind === "time") {
		const type = column.metadata.dataType;
		if (type.kind !== "datetime64") return undefined;
		const target = resolveTargetUnit(type, asked);
		// Only a conversion that divides rounds: calendar units and coarser units land on whole target units.
		const divides = nearest && type.unit !== "Y" && type.unit !== "M" && type.unit !== "generic" && (ATTOSECONDS_PER_UNIT[type.unit] * BigInt(type.scaleFactor)) % ATTOSECONDS_PER_TARGET_UNIT[target] !== 0n;
		return divides ? { kind: "datetime64", type, nearestIn: target } : { kind: "datetime64", type };
	}
	const { metadata } = column;
	if (!options.cf || !isMaskableType(metadata.dataType.name) || cfTimeKindOf(metadata.attributes) !== "datetime") return undefined;
	let decoding: CfTimeDecoding;
	try {
		const coding = parseCfTimeCoding(metadata.attributes, { convertCalendar: options.convertCalendar, alignOn: options.alignOn, dataType: metadata.dataType.name });
		const markers = cfMissingValueMarkers({ zarrFormat: metadata.zarrFormat, dataType: metadata.dataType.name, attributes: metadata.attributes, fillValue: metadata.fillValue });
		decoding = { coding, markers, autoUnit: column.cfTime?.autoUnit };
	} catch (error) {
		throw cfRefusal(`array ${metadata.path}`, error, metadata);
	}
	// The unit the column is decoded in (cf-time-column.ts), whose nearest values the rows are then selected by.
	const nearestIn = nearest ? cfTimeUnit(decoding, metadata, asked, "nearest") : undefined;
	return { kind: "cf", markers: decoding.markers, instantOf: cfInstantOf(decoding.coding, decoding.markers, metadata.dataType.name, nearestIn, options.dropInvalidDates === true ? "drop" : "refuse") };
}

/** The time coding of a column, or undefined where it has none or its coding is refused (for a hint, not a choice). */
function timeCodingOrNone(column: TableColumn, options: TimeColumnOptions): TimeCoding | undefined {
	try {
		return timeCodingOf(column, options);
	} catch {
		return undefined;
	}
}

/**
 * The table's boundary variables, by path, each to the name of its coordinate: those a `bounds` or `climatology`
 * attribute (CF 1.10 §7.1, §7.4) of one of its arrays names (a coordinate names a variable of its own group), and
 * those opened as one (`boundsOf`: they took their coordinate's units, or a coordinate names them; the coordinate then
 * perhaps not in the table: `time_bnds` exported without `time`, or in a table without index columns), or found one by
 * `owners` (TimeColumnOptions.boundsOwners); `unseen`: those that may be one, their coordinate unseen (`unseenBounds`,
 * and no array of the table nor `owners` names them).
 */
function boundaryVariables(table: ZarrTable, owners: ReadonlyMap<string, string> = new Map()): { known: Map<string, string>; unseen: Set<string> } {
	const arrays = [...table.index.flatMap((entry) => (entry.kind === "coordinate" ? [entry.column] : [])), ...table.columns];
	const known = new Map<string, string>();
	const unseen = new Set<string>();
	for (const column of arrays) {
		if (column.kind === "plain" && column.boundsOf !== undefined) known.set(column.metadata.path, column.boundsOf);
		if (column.kind === "plain" && column.unseenBounds === true) unseen.add(column.metadata.path);
		const { path, attributes } = column.metadata;
		for (const namedPath of cellBoundsNamedBy(path, attributes)) if (!known.has(namedPath)) known.set(namedPath, path.slice(path.lastIndexOf("/") + 1));
	}
	for (const path of unseen) {
		const owner = known.get(path) ?? owners.get(path);
		if (owner === undefined) continue;
		known.set(path, owner);
		unseen.delete(path);
	}
	return { known, unseen };
}

/** An auxiliary coordinate among the columns: attached to those asked for, or one of the dataset's that `all` takes. */
const isCoordinate = (column: TableColumn) => column.coordinate === true || column.datasetCoordinate === true;

/**
 * The column whose time selects and partitions rows: `name`, or the table's only time column (datetime64 or CF
 * time), a value column or a dimension's coordinate (an index column, output with `index` only). A boundary variable
 * (`time_bnds` of `time`, see boundaryVariables) is one only when named or exported alone, as an auxiliary
 * coordinate: it never competes with its coordinate, the time axis an xarray user selects by (`ds.sel(time=...)`).
 */
export function findTimeColumn(table: ZarrTable, options: TimeColumnOptions): TimeSource {
	const { index, name } = options;
	const indexFields = index ? table.index.length : 0;
	const source = (column: TableColumn, field: number | undefined, sourceName: string): TimeSource[] => {
		const coding = timeCodingOf(column, options);
		return coding === undefined ? [] : [{ column, field, name: sourceName, coding }];
	};
	// A column asked for by name is the only one whose coding is looked at: another column's refused coding is no concern.
	// An auxiliary coordinate (a forecast's valid_time beside its time index) is the time column only when named.
	const single = table.columns.length === 1 && options.column !== undefined ? table.columns[0] : undefined;
	const outputName = (entryName: string, column: TableColumn) => options.rename?.get(entryName) ?? (column === single ? options.column : undefined);
	const { known: boundsOwners, unseen: unseenBoundaries } = name === undefined && options.singleArray !== true ? boundaryVariables(table, options.boundsOwners) : { known: new Map<string, string>(), unseen: new Set<string>() };
	const boundaries = new Set([...boundsOwners.keys(), ...unseenBoundaries]);
	const wanted = (entryName: string, column: TableColumn) =>
		name === undefined ? !isCoordinate(column) && !boundaries.has(column.metadata.path) : entryName === name || column.name === name || outputName(entryName, column) === name;
	const candidates: TimeSource[] = [
		...table.index.flatMap((entry) => (entry.kind === "coordinate" && wanted(entry.name, entry.column) ? source(entry.column, index ? entry.axis : undefined, entry.name) : [])),
		...table.columns.flatMap((column, k) => (wanted(column.name, column) ? source(column, indexFields + k, column.name) : [])),
	];
	// The columns of the output: the dimensions are columns only with index columns.
	const shown = (entryName: string, column: TableColumn | undefined) => {
		const renamed = column === undefined ? options.rename?.get(entryName) : outputName(entryName, column);
		return renamed === undefined ? entryName : `${renamed} (array ${entryName})`;
	};
	const names = [
		...new Set([...(index ? table.index.map((entry) => shown(entry.name, entry.kind === "coordinate" ? entry.column : undefined)) : []), ...table.columns.map((column) => shown(column.name, column))]),
	];
	let chosen: TimeSource | undefined;
	if (name !== undefined) {
		chosen = candidates[0];
		const named = names.some((shownName) => shownName === name || shownName.startsWith(`${name} (array `) || shownName.endsWith(` (array ${name})`));
		if (chosen === undefined) throw new UsageError(`timeColumn ${name}: ${named ? "not a column of times (datetime64 or CF time)" : `no such column among ${names.join(", ")}`}`, { option: "timeColumn", value: name });
	} else {
		if (candidates.length === 0) {
			const positions = table.index.flatMap((entry) => (entry.kind === "positions" ? [entry] : []));
			const chosen = positions.filter((entry) => entry.chosen === true).map((entry) => entry.name);
			const without = positions.filter((entry) => entry.chosen !== true).map((entry) => entry.name);
			const hint = !index
				? " (a dimension's time coordinate is one with index columns: `index`)"
				: chosen.length > 0
					? ` (${chosen.join(", ")} ${chosen.length === 1 ? "is a position index" : "are position indexes"}, which hold no time: a dimension's time coordinate is one with coordinate index columns, \`index\` without positions)`
					: without.length > 0
						? ` (${without.join(", ")} ${without.length === 1 ? "has" : "have"} no coordinate array in the group: ${without.length === 1 ? "its index is its positions" : "their indexes are positions"}, which hold no time)`
						: "";
			// Boundary variables of time, left out above, are named so: one may be chosen by naming it.
			const timeBounds = table.columns.filter((column) => boundaries.has(column.metadata.path) && timeCodingOrNone(column, options) !== undefined);
			// Each named with its coordinate: `valid_bnds holds valid_time's cell bounds`.
			const bounds = timeBounds.filter((column) => !unseenBoundaries.has(column.metadata.path)).map((column) => `${shown(column.name, column)} holds ${boundsOwners.get(column.metadata.path)}'s cell bounds`);
			const unseen = timeBounds.filter((column) => unseenBoundaries.has(column.metadata.path)).map((column) => shown(column.name, column));
			const boundsHint =
				(bounds.length === 0 ? "" : ` (${bounds.length === 1 ? `${bounds[0]}, a time column only when \`timeColumn\` names it` : `${bounds.join("; ")}: time columns only when \`timeColumn\` names one`})`) +
				(unseen.length === 0
					? ""
					: ` (${unseen.join(", ")} ${unseen.length === 1 ? "may hold a coordinate's cell bounds" : "may hold coordinates' cell bounds"}: two values along the last dimension, which has no coordinate array, and no consolidated metadata to say whose; ${unseen.length === 1 ? "a time column" : "time columns"} only when \`timeColumn\` names ${unseen.length === 1 ? "it" : "one"})`);
			// Auxiliary coordinates of times too (a forecast's valid_time): one may be chosen by naming it.
			const coordinates = table.columns.filter((column) => isCoordinate(column) && !boundaries.has(column.metadata.path) && timeCodingOrNone(column, options) !== undefined).map((column) => shown(column.name, column));
			const coordinatesHint =
				coordinates.length === 0
					? ""
					: ` (${coordinates.join(", ")} ${coordinates.length === 1 ? "is an auxiliary coordinate, a time column" : "are auxiliary coordinates, time columns"} only when \`timeColumn\` names ${coordinates.length === 1 ? "it" : "one"}: xarray selects by dimension coordinates)`;
			throw new UsageError(`no time column (datetime64 or CF time) to select or partition rows by among ${names.join(", ")}${hint}${coordinatesHint}${boundsHint}`, { option: "timeColumn" });
		}
		if (candidates.length > 1) throw new UsageError(`several time columns (${candidates.map((candidate) => candidate.name).join(", ")}): name one as \`timeColumn\``, { option: "timeColumn" });
		chosen = candidates[0];
	}
	if (chosen.field === undefined) throw new UsageError(`the time coordinate ${chosen.name} is exported only with index columns (\`index\`)`, { option: "index" });
	return chosen;
}

/** The most bytes of decoded time chunks kept from the search for the export (see keepingTimeChunks): a whole-checked column's. */
const KEPT_TIME_BYTES = WHOLE_CHECK_VALUES * 8;

/**
 * The table and time column with the time column's chunks kept as the search reads them (up to KEPT_TIME_BYTES, see
 * zarr/kept-chunks.ts), so that the export's read of the range's rows finds them in memory: a time coordinate read
 * whole to check it sorted (240 chunks of one value, each a request over an object store) is not fetched again for
 * the index column, nor are the chunks a search probed around the bounds. `stopKeeping` once the rows are selected:
 * the export's own reads are not kept, and what was kept goes as the export's read passes it (each chunk of the rows
 * it reads is read once; a shard read as one buffer reads none of these) or at once (chunks outside the rows).
 */
export function keepingTimeChunks(table: ZarrTable, time: TimeSource): { table: ZarrTable; time: TimeSource; stopKeeping: (rows?: RowRange) => void } {
	const original = time.column.chunks;
	// The inner chunks of a column read a shard at a time: the export reads them into its shards' buffers, never
	// through `read`, and the shard index keeps their encoded bytes (KeptInnerChunks): decoded copies would be memory
	// for nothing (a two-sided range of the bench's sharded store: 8 probes, 6.4 MB).
	const keeps = original.shardBands === undefined ? undefined : () => false;
	const kept = keepingChunks(original as ChunkSource<ChunkValues>, KEPT_TIME_BYTES, keeps, poolOf(table));
	const swap = <C extends TableColumn>(column: C): C => (column.chunks === original ? ({ ...column, chunks: kept } as C) : column);
	// Every chunk kept, whole (8 bytes a value at most), with what each costs beside: the search keeps none of its own.
	const chunkBytes = product(original.chunkShape) * 8 + KEPT_CHUNK_OVERHEAD_BYTES;
	const readsKept = keeps === undefined && product(original.gridShape) * chunkBytes <= KEPT_TIME_BYTES;
	return {
		table: { ...table, columns: table.columns.map(swap), index: table.index.map((entry) => (entry.kind === "coordinate" ? { ...entry, column: swap(entry.column) } : entry)) },
		time: { ...time, column: swap(time.column), ...(readsKept ? { readsKept } : {}) },
		stopKeeping: (rows) => kept.stopKeeping(rows),
	};
}

/**
 * The time column as the search reads it, over its own shape (it may span fewer dimensions than the table, the
 * first among them): one block per chunk along the first axis, each read whole; a probe reads only its block's
 * chunks (inner chunks of a sharded array), a run of blocks the chunks of the run at once.
 */
function timeBlocks(time: TimeSource, concurrency: number | ReadLimits, signal: AbortSignal, pool?: BufferPool): TimeBlocks {
	const { column, coding } = time;
	const shape = column.metadata.shape;
	const blockOf: (values: ChunkValues) => TimeBlock =
		coding.kind === "datetime64"
			? (() => {
					const instantOf = datetime64Instants(coding.type, coding.nearestIn);
					return (values) => datetime64Block(values as BigInt64Array, coding.type, instantOf, coding.nearestIn === undefined);
				})()
			: (values) => cfTimeBlock(values as NumericValues, coding.markers, coding.instantOf);
	const chunks = column.chunks as ChunkSource<ChunkValues>;
	const blockRows = chunks.chunkShape[0];
	const limits = readLimits(concurrency);
	return {
		rows: shape[0],
		blockRows,
		rowSize: product(shape.slice(1)),
		// A pass reads blocks one request reads together (a shard's) with the same request: as many requests as for
		// blocks of their own, within the chunks in flight.
		readConcurrency: Math.min(limits.chunks, limits.requests * (chunks.chunksPerRequest?.[0] ?? 1)),
		wholeReadRequests: wholeReadRequests(chunks),
		...(time.readsKept === true ? { readsKept: true } : {}),
		description: `the time column ${JSON.stringify(time.name)} (${product(shape)} values in ${product(chunks.gridShape)} chunks)`,
		async read(block, pass) {
			const rows = { start: block * blockRows, end: Math.min(shape[0], (block + 1) * blockRows) };
			const source = pass === undefined ? chunks : readingWithin(chunks, chunkRowsBox(chunks.gridShape, pass));
			const bands = readBands(source, shape, concurrency, signal, undefined, undefined, rows);
			const { value } = await bands.next();
			await bands.return(undefined);
			const values = value!.values;
			const read = blockOf(values);
			// The chunk read for the search alone (a probe's, into the pool): its buffer goes back once the search is done with it.
			if (pool === undefined || Array.isArray(values)) return read;
			const typed = values as Exclude<ChunkValues, string[]>;
			return { ...read, release: () => pool.release(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength)) };
		},
	};
}

/** The requests a read of every chunk of a source takes: one per chunk, or per shard and its index. */
function wholeReadRequests(chunks: ChunkSource<ChunkValues>): number {
	const together = chunks.chunksPerRequest;
	if (together === undefined) return product(chunks.gridShape);
	return 2 * product(chunks.gridShape.map((n, axis) => Math.ceil(n / together[axis])));
}

const NAT_HIGH = -(2 ** 31);

/**
 * A block of int64 counts, with the search's scans done on their two 32-bit words (indexing a BigInt64Array makes
 * a BigInt per value: measured 1.2 s for the probes of a 50M-value store, against milliseconds this way). Counts
 * order as their instants do, NaT (-2^63: high word -2^31, low word 0) aside.
 */
function datetime64Block(values: BigInt64Array, type: Datetime64Type, instantOf: InstantOf, exactInstants: boolean): TimeBlock {
	const words = new Int32Array(values.buffer, values.byteOffset, values.length * 2);
	const isNat = (i: number) => words[2 * i + 1] === NAT_HIGH && words[2 * i] === 0;
	// A count's instant is count × size when exact; rounded instants are scanned through instantAt.
	const size = type.unit === "Y" || type.unit === "M" || type.unit === "generic" || !exactInstants ? undefined : ATTOSECONDS_PER_UNIT[type.unit] * BigInt(type.scaleFactor);
	return {
		length: values.length,
		instantAt: (i) => instantOf(values[i]),
		summarize() {
			let first = -1;
			let last = -1;
			let high = 0;
			let low = 0;
			for (let i = 0; i < values.length; i++) {
				if (isNat(i)) continue;
				const h = words[2 * i + 1];
				const l = words[2 * i] >>> 0;
				if (last >= 0 && (h < high || (h === high && l < low))) return "unsorted";
				if (first < 0) first = i;
				high = h;
				low = l;
				last = i;
			}
			return first < 0 ? null : { first: instantOf(values[first])!, last: instantOf(values[last])! };
		},
		// Calendar units have no fixed size, rounded instants no count bound: their blocks are scanned through instantAt.
		firstAtOrAfter:
			size === undefined
				? undefined
				: (bound) => {
						// The least count whose instant is >= bound, clamped to int64 (NaT, the least int64, is never a time).
						const count = ceilDiv(bound, size);
						if (count > INT64_MAX) return values.length;
						// biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take
						const { high: h, low: l } = wordsOf(count < INT64_MIN ? INT64_MIN : count);
						for (let i = 0; i < values.length; i++) {
							if (isNat(i)) continue;
							const wh = words[2 * i + 1];
							if (wh > h || (wh === h && words[2 * i] >>> 0 >= l)) return i;
						}
						return values.length;
					},
	};
}


/** The rows whole chunks of the columns along the first axis start at: the largest chunk length along it. */
function alignment(table: ZarrTable): number {
	const alongFirst = table.columns.filter((column) => column.axes[0] === 0);
	return Math.max(1, ...alongFirst.map((column) => column.chunks.chunkShape[0]));
}

export interface SelectRowsOptions {
	readonly bounds: TimeBounds;
	/** Find a range by searching the time column (default); false: every row is read and filtered. */
	readonly search?: boolean;
	/** The column that selects rows (see findTimeColumn). */
	readonly time?: TimeSource;
	readonly part?: Part;
	readonly concurrency: number | ReadLimits;
	/** Whether the time column may be read whole to check it sorted (default `check`; see WholeCheck). */
	readonly wholeCheck?: WholeCheck;
	/** How the export converts times. */
	readonly conversion: NormalizedConversionOptions;
	readonly signal?: AbortSignal;
}

/** The rows this export reads, with how they were found. */
export async function selectRows(table: ZarrTable, options: SelectRowsOptions): Promise<RowSelection> {
	const all = { start: 0, end: table.shape.length === 0 ? 1 : table.shape[0] };
	const ranged = options.bounds.start !== undefined || options.bounds.end !== undefined;
	if (table.shape.length === 0 && (ranged || options.part !== undefined)) throw new UsageError("a 0-d array has no rows to select or split");
	let selection: RowSelection = { rows: all, sorted: true, probes: 0 };
	if (ranged) {
		if (options.time === undefined) throw new UsageError("a time range needs a time column", { option: "timeColumn" });
		const { column, name } = options.time;
		if (options.search === false) {
			selection = { rows: all, sorted: false, probes: 0 };
		} else if (column.axes[0] !== 0) {
			// Time that does not run along the first dimension cannot bound a range of its rows: every row is filtered.
			selection = { rows: all, sorted: false, probes: 0, unsortedReason: `${name} does not run along the first dimension` };
		} else {
			const signal = options.signal ?? new AbortController().signal;
			const search = await searchTimeRange(timeBlocks(options.time, options.concurrency, signal, poolOf(table)), options.bounds, options.wholeCheck);
			selection = search.sorted ? { rows: search.rows, sorted: true, probes: search.probes } : { rows: search.rows, sorted: false, probes: search.probes, unsortedReason: search.reason };
		}
	}
	if (options.part === undefined) return selection;
	return { ...selection, rows: partRows(selection.rows, alignment(table), options.part) };
}

/**
 * Refuses a selection found by search whose time column is not sorted over the rows it reads after all (a block the
 * search skipped may hide an unsorted stretch), reading the time column's blocks over those rows: for an export in
 * chunk order, whose rows start over in time at each box of chunks along the other dimensions, where the TimeFilter
 * cannot check them as they go by.
 */
export async function checkSortedOver(time: TimeSource, rows: RowRange, concurrency: number | ReadLimits, signal: AbortSignal = new AbortController().signal): Promise<void> {
	if (rows.end <= rows.start || time.column.axes[0] !== 0) return;
	const reason = await unsortedWithin(timeBlocks(time, concurrency, signal), rows);
	if (reason !== undefined) {
		throw new Dt64ExportError("TIME_NOT_SORTED", `the time column ${JSON.stringify(time.name)} is not sorted after all (${reason}, among the rows read), though the chunks the range search read were: rows in range may lie in chunks it skipped`);
	}
}
