/**
 * A table of the arrays of one group (Zarr v3 or v2), as xarray's `ds[vars].to_dataframe()` lays them out: each
 * array a variable over named dimensions, broadcast over the union of the table's dimensions (see
 * table/dataset-model.ts); datetime64/timedelta64 arrays become timestamp/duration columns, plain arrays (bool,
 * integers, floats, strings) companion columns. With coordinates asked for, each dimension's index is its
 * coordinate array where the group has one. Every array is validated, and keeps its own chunk grid and codecs,
 * before any chunk is read.
 */
import { checkObjectArgument, checkOptionNamesOf, optionsArgument, storeArgument } from "./call-arguments.js";
import { cfAutoUnit, hasFloatCounts, isCfTimeMetadata, parseCfTimeDecoding, type CfOptions, type CfTimeDecoding } from "./cf/cf-time-array.js";
import { abortable, throwIfAborted } from "./abort.js";
import { Dt64ExportError, errorFieldsOf, UsageError } from "./errors.js";
import { columnNameFor, normalizeArrayPath, whereIs, type LocatedArray, type TimeArray } from "./open-array.js";
import { openStore, type OpenedStore, type OpenStoreOptions, type StoreSettings } from "./store/open-store.js";
import { poolOf, type Pooled } from "./memory/opened-pool.js";
import { compareNames, consolidatedNodeOf, listStoreTree, noNodeError, readMembersAhead, readNodeDocument, type ZarrFormat } from "./store-tree.js";
import { nodeNotFound } from "./store/refused-probes.js";
import { arrayMetadataPlace, attributesOf, isTimeArray, parsePlainArrayMetadata, parseTimeArrayMetadata, type NodeMetadata, type PlainArrayMetadata, type TimeArrayMetadata } from "./zarr/array-metadata.js";
import type { ChunkValues } from "./zarr/chunk-values.js";
import { createChunkSource, createPlainChunkSource, type ChunkSource } from "./zarr/chunk-source.js";
import { parsePlainDataType } from "./zarr/plain-dtype.js";
import { v2ValuesOf } from "./zarr/v2-metadata.js";
import { describeVariable, dimensionNamesOf, isCoordinateOf, isDimensionCoordinate, layOutTable, selectWholeDataset, type DatasetVariable, type TableDimension } from "./table/dataset-model.js";
import { withCoordinatesLeftOut } from "./table/index-source.js";
import { inTableOrder } from "./table/transposed-variable.js";
import { unsignedCodingOf, withUnsignedCoding, type UnsignedCoding } from "./cf/unsigned-coding.js";
import { refusedNodesOf, type RefusedNode } from "./store/refused-nodes.js";
import { isStaleConsolidated, staleConsolidatedOf } from "./store/stale-consolidated.js";
import { keepingReads } from "./store/kept-reads.js";
import { boundedCoordinateOf, boundsParentFor } from "./table/bounds-parent.js";
import { withBoundsAttributes } from "./cf/bounds-attributes.js";
import { coordinateFit, coordinatesAttributeNames, declaredCoordinates } from "./table/attached-coordinates.js";
import { DeferredAutoUnits } from "./table/deferred-auto-units.js";

/**
 * An array of the table; `axes` are the table axes of its own axes, increasing (see layOutTable): an array over
 * the table's dimensions in another order is seen transposed (metadata and chunks, see transposed-variable.ts).
 */
export type TableColumn =
	| {
			readonly kind: "time";
			readonly name: string;
			readonly metadata: TimeArrayMetadata;
			readonly chunks: ChunkSource;
			readonly axes: readonly number[];
			readonly coordinate?: true;
			readonly datasetCoordinate?: true;
	  }
	| {
			readonly kind: "plain";
			readonly name: string;
			readonly metadata: PlainArrayMetadata;
			readonly chunks: ChunkSource<ChunkValues>;
			readonly axes: readonly number[];
			/** A CF time array opened with CF decoding: how it decodes (cf/cf-time-array.ts). */
			readonly cfTime?: CfTimeDecoding;
			/** `_Unsigned` applied (CF decoding on): `metadata` holds the type it reads the stored integers as. */
			readonly unsigned?: UnsignedCoding;
			/** An auxiliary coordinate of the columns asked for, added as xarray's `ds[names]` adds it (attached-coordinates.ts). */
			readonly coordinate?: true;
			/**
			 * `columns: "all"`: a coordinate of the dataset (named by a `coordinates` attribute, as xarray's
			 * `decode_coords` reads it, see attached-coordinates.ts), a column `all` takes as `ds.to_dataframe()` does,
			 * yet, as an attached coordinate, the time column only when named (select/time-selection.ts).
			 */
			readonly datasetCoordinate?: true;
			/**
			 * A CF boundary variable (CF decoding on): the coordinate whose `bounds` attribute names it, found as its
			 * units are (table/bounds-parent.ts), or, for a CF time array with units of its own, whose `bounds` or
			 * `climatology` names it (boundedCoordinateOf). It is the time column only when named (select/time-selection.ts).
			 */
			readonly boundsOf?: string;
			/**
			 * Maybe a CF boundary variable whose coordinate was not seen (boundedCoordinateOf's `unseen`: no consolidated
			 * metadata, the bounds of an auxiliary coordinate): the time column only when named, as one is.
			 */
			readonly unseenBounds?: true;
	  };

/** The index of one dimension: its coordinate array, or its positions (a dimension without one, or by choice). */
export type TableIndex =
	| {
			readonly kind: "positions";
			readonly name: string;
			readonly axis: number;
			/** Positions by choice (`indexSource: "positions"`); otherwise the dimension has no coordinate array. */
			readonly chosen?: boolean;
	  }
	| {
			readonly kind: "coordinate";
			readonly name: string;
			readonly axis: number;
			readonly column: TableColumn;
			/** Its place among the columns asked for, when `columns` named it: the value column it is without the index. */
			readonly named?: number;
	  };

/** Arrays of one group, read side by side and broadcast as the columns of one table. */
export interface ZarrTable {
	readonly store: OpenedStore;
	readonly dimensions: readonly TableDimension[];
	/** The table's shape: its dimensions' lengths. */
	readonly shape: number[];
	/**
	 * The value columns, in the order asked for (a coordinate that is the index of its dimension is not one), then the
	 * auxiliary coordinates xarray attaches to them (CF `coordinates`, marked `coordinate`), in code point order.
	 */
	readonly columns: readonly TableColumn[];
	/** One per dimension, in the table's order. */
	readonly index: readonly TableIndex[];
	/**
	 * Arrays `--columns all` left out, or coordinates of the columns asked for, each described with the reason:
	 * `time_bnds(time=48, bnds=2): dimension bnds is not among...`.
	 */
	readonly leftOut: readonly string[];
	/**
	 * The dimension coordinates (`time`, `lat`, `lon`) of the table's dimensions that `columns: "all"` did not export:
	 * they are the index, and its index here is positions (`indexSource: "positions"`, which exporting without index
	 * columns implies). Absent when there are none.
	 */
	readonly coordinatesLeftOut?: readonly string[];
	/**
	 * `columns: "all"` only: the dimensions whose coordinate array the group holds, which `all` takes as the index
	 * rather than as columns. Those whose index is positions are `coordinatesLeftOut`, here and in the stages of the
	 * table exported without index columns (table/index-source.ts).
	 */
	readonly indexCoordinates?: readonly string[];
	/**
	 * Where the store's consolidated metadata, which the table was opened from (as xarray's open_zarr reads it),
	 * disagrees with the documents of the arrays it read: `time: shape [8] in time/.zarray, [4] in .zmetadata`.
	 * Absent when they agree (or the store has none). See staleConsolidatedWarning.
	 */
	readonly staleConsolidatedMetadata?: readonly string[];
	/**
	 * The time array found without being named (the one of its group's tree) was found beside these nodes, whose
	 * metadata is refused and which were not searched: a time array there would have made the choice ambiguous.
	 * Absent when there are none (or the array was named). See refusedNodesWarning.
	 */
	readonly refusedNodes?: readonly RefusedNode[];
	/** A name for the output file: the group's (or the single array's) name. */
	readonly name: string;
}

/** `coordinates`: each dimension's coordinate array is its index where the group has one; `positions`: never. */
export type IndexSource = "coordinates" | "positions";

export interface OpenTableOptions extends OpenStoreOptions, CfOptions {
	/** Path of the group holding the arrays; the store root by default. */
	group?: string | undefined;
	/** The arrays, by path inside the group, each column named after the last segment of its path; or "all". */
	columns: readonly string[] | "all";
	/** Where index columns come from; coordinates by default. */
	indexSource?: IndexSource | undefined;
}

/** openTable's options as the package's own stages give them: a caller's and the pipeline's `bufferPool` (StoreSettings). */
export type OpenTableSettings = OpenTableOptions & Pick<StoreSettings, "bufferPool">;

const lastSegment = (path: string) => path.split("/").pop() as string;

/** What a group holds, for the message naming a column it does not have. */
async function describeGroup(opened: OpenedStore, group: string): Promise<string> {
	const tree = await listStoreTree(opened, group).catch(() => {
		// Only what the group holds is left unsaid: an abort ends the opening.
		throwIfAborted(opened.signal);
		return undefined;
	});
	if (tree === undefined || tree.discovery === "root-only") return "its arrays cannot be listed (an HTTP store without consolidated metadata)";
	const arrays = tree.entries.slice(1).flatMap((entry) => {
		if (!("node" in entry) || entry.node.kind !== "array") return [];
		const name = group === "" ? entry.path : entry.path.slice(group.length + 1);
		// v2 arrays by their dtype as written (`<f8`), v3 ones by their data type's name.
		const dataType = entry.node.zarrFormat === 2 ? entry.node.json.dtype : entry.node.json.data_type;
		return [`${name} (${typeof dataType === "string" ? dataType : String((dataType as { name?: unknown } | null)?.name ?? JSON.stringify(dataType))})`];
	});
	return arrays.length === 0 ? "it holds no arrays" : `it holds ${arrays.join(", ")}`;
}

/** What opening a column needs of the table's options. */
type ColumnOpening = Pick<OpenTableSettings, "bufferPool" | "cf" | "unit" | "rounding" | "convertCalendar" | "alignOn"> & {
	/** Where `--unit auto`'s passes over float CF counts wait for the table to be laid out; without it they run at once. */
	readonly deferredUnits?: DeferredAutoUnits;
};

/**
 * Called once a table is laid out, before any chunk is read for it (`--unit auto`'s pass over float CF counts, then
 * the export's): the CLI checks there the output name the table gives, so that an export refused for it reads nothing.
 */
export type BeforeReadingValues = (table: ZarrTable) => void | Promise<void>;

/** A group of the store, by path, and its Zarr format: its members' metadata is read in that format first. */
interface GroupAt {
	readonly path: string;
	readonly format: ZarrFormat;
}

/**
 * Opens the array `name` of a group as a column. One asked for as a column (`as` "column", the default) whose codec
 * this package does not read is COLUMN_UNSUPPORTED, a usage error as a data type no column holds is; a CF time array
 * exported alone ("array") is refused UNSUPPORTED, as any array exported alone.
 */
async function openColumn(opened: OpenedStore, { path: group, format }: GroupAt, name: string, options: ColumnOpening, as: "column" | "array" = "column"): Promise<Omit<TableColumn, "axes">> {
	const relative = normalizeArrayPath(name, "columns");
	const path = group === "" ? relative : `${group}/${relative}`;
	const document = relative === "" ? undefined : await readNodeDocument(opened, path, format);
	if (document === undefined || document.node.kind !== "array") {
		const what = document === undefined ? "no array" : "a group, not an array,";
		const notFound = new Dt64ExportError("COLUMN_NOT_FOUND", `columns: ${what} ${JSON.stringify(name)} in ${group === "" ? "the store root" : `group ${group}`}; ${await describeGroup(opened, group)}`, { option: "columns", path });
		// A column whose metadata a bucket refused may be there: the refusal says so.
		throw document === undefined ? nodeNotFound(opened, opened.location, path, () => notFound) : notFound;
	}
	// A coordinate's boundary variable decodes with the coordinate's units and calendar where it has none (CF bounds).
	const parent = options.cf === false ? undefined : await boundsParentFor(opened, { path: group, format }, document.node);
	const node = parent === undefined ? document.node : withBoundsAttributes(document.node, parent);
	const where = `${opened.location}/${arrayMetadataPlace(node, isStaleConsolidated(opened, node.path))}`;
	try {
		const column = await openArrayColumn(opened, node, path, lastSegment(relative), where, options);
		if (column.kind !== "plain") return column;
		// A CF time array with units of its own is a boundary variable too when a coordinate's attribute names it.
		const cfTime = "cfTime" in column ? column.cfTime : undefined;
		if (parent !== undefined) return { ...column, boundsOf: parent.name } as Omit<TableColumn, "axes">;
		const bounded = cfTime === undefined ? undefined : await boundedCoordinateOf(opened, { path: group, format }, node);
		if (bounded === undefined) return column;
		if ("coordinate" in bounded) return { ...column, boundsOf: bounded.coordinate } as Omit<TableColumn, "axes">;
		return { ...column, unseenBounds: true } as Omit<TableColumn, "axes">;
	} catch (error) {
		throw as === "column" && isUnsupported(error) ? columnUnsupported(error, path, where, false) : error;
	}
}

/**
 * An array that cannot be a column: a data type no column holds, or a codec (or layout) this package does not read.
 * A usage error (another choice of columns), unlike a broken array: `columns: array <path> (<metadata file>): why`.
 */
function columnUnsupported(error: Error, path: string, where: string, showWhere: boolean): Dt64ExportError {
	const located = error.message.startsWith(`${where}: `);
	const why = located ? error.message.slice(where.length + 2) : error.message;
	const field = error instanceof Dt64ExportError ? error.field : undefined;
	// The cause is the refusal without the metadata file (this message names it): what `--columns all` lists.
	const cause = located ? new Dt64ExportError(error instanceof Dt64ExportError ? error.code : "UNSUPPORTED", why, { ...errorFieldsOf(error), cause: error }) : error;
	return new Dt64ExportError("COLUMN_UNSUPPORTED", `columns: array ${path}${showWhere || located ? ` (${where})` : ""}: ${why}`, { option: "columns", path, ...(field === undefined ? {} : { field }), cause });
}

/** Whether an error is an UNSUPPORTED refusal, which a column's opening makes COLUMN_UNSUPPORTED (see columnUnsupported). */
const isUnsupported = (error: unknown): error is Dt64ExportError => error instanceof Dt64ExportError && error.code === "UNSUPPORTED";

/** Opens an array node as a column named `columnName`; `where` names its metadata file in messages. */
async function openArrayColumn(opened: OpenedStore, node: NodeMetadata, path: string, columnName: string, where: string, options: ColumnOpening): Promise<Omit<TableColumn, "axes">> {
	const { bufferPool } = options;
	if (isTimeArray(node)) {
		const metadata = parseTimeArrayMetadata(node, where);
		return { kind: "time", name: columnName, metadata, chunks: createChunkSource(opened.store, metadata, where, { bufferPool, forbiddenAsMissing: opened.forbiddenAsMissing, keepsReadsAlone: opened.kind !== "directory" }) };
	}
	if (node.kind !== "array") throw new Dt64ExportError("COLUMN_NOT_FOUND", `columns: ${path} is a group, not an array`, { option: "columns", path });
	// The data type first, refused whatever the codecs (a malformed one too: no column is made of it).
	try {
		// The fill value is checked with the rest of the array below ("null" reads as none here).
		parsePlainDataType(node.zarrFormat === 2 ? v2ValuesOf(node.json, "null").dataType : node.json.data_type, attributesOf(node));
	} catch (error) {
		throw columnUnsupported(error as Error, path, where, node.zarrFormat === 2);
	}
	// `_Unsigned` is CF's first step: the bytes are read as the type it says, for masking, unpacking and CF time alike.
	const stored = parsePlainArrayMetadata(node, where);
	const unsigned = options.cf === false ? undefined : unsignedCodingOf(stored);
	const metadata = unsigned === undefined ? stored : withUnsignedCoding(stored);
	const cfTime = options.cf !== false && isCfTimeMetadata(metadata);
	const readsUnit = cfTime && (options.unit ?? "auto") === "auto";
	// Float counts are read once here for --unit auto's unit: what that pass reads is kept for the export's.
	const kept = readsUnit ? keepingReads(opened.store) : undefined;
	const chunks = createPlainChunkSource(kept ?? opened.store, metadata, where, { bufferPool, forbiddenAsMissing: opened.forbiddenAsMissing, keepsReadsAlone: opened.kind !== "directory" });
	const plain = { kind: "plain", name: columnName, metadata, chunks, ...(unsigned === undefined ? {} : { unsigned }) } as const;
	if (!cfTime) return plain;
	let parsed: Omit<CfTimeDecoding, "autoUnit">;
	try {
		parsed = parseCfTimeDecoding(metadata, options);
	} catch {
		// A refused coding (months since...) is refused when the column is planned, before any read: an array that
		// `--columns all` leaves out is never refused.
		kept?.stopKeeping();
		return plain;
	}
	const pass = async () => {
		try {
			return await cfAutoUnit(metadata, chunks, parsed, readsUnit, opened.signal, { findRange: (options.rounding ?? "error") !== "error" });
		} finally {
			kept?.stopKeeping();
		}
	};
	let autoUnit: CfTimeDecoding["autoUnit"];
	// Float counts wait for the table to be laid out (a pass reads every chunk); others have their units now.
	if (readsUnit && options.deferredUnits !== undefined && hasFloatCounts(metadata, parsed.coding)) options.deferredUnits.add(path, { run: pass, drop: () => kept?.stopKeeping() });
	else autoUnit = await pass();
	const column: Omit<Extract<TableColumn, { kind: "plain" }>, "axes"> = { ...plain, cfTime: { ...parsed, autoUnit } };
	return column;
}

const variableOf = (column: Omit<TableColumn, "axes">): DatasetVariable => ({ name: column.name, shape: column.metadata.shape, dimensionNames: column.metadata.dimensionNames, documents: column.metadata });

/**
 * The names of every array directly in the group, for `--columns all`, and the members whose metadata is refused
 * (each with why), which may be arrays: left out, and said so, never dropped without a word.
 */
async function groupArrayNames(opened: OpenedStore, group: string): Promise<{ names: string[]; refused: string[] }> {
	const tree = await listStoreTree(opened, group);
	if (tree.discovery === "root-only") throw new UsageError("columns all: the group's arrays cannot be listed (an HTTP store without consolidated metadata): name them", { option: "columns", value: "all" });
	const names: string[] = [];
	const refused: string[] = [];
	for (const entry of tree.entries.slice(1)) {
		const name = group === "" ? entry.path : entry.path.slice(group.length + 1);
		if (name.includes("/")) continue;
		if ("error" in entry) refused.push(`${name}: its metadata is refused (${entry.error})`);
		else if (entry.node.kind === "array") names.push(name);
	}
	return { names, refused };
}

/** The groups directly in a group (as paths from the store root), for a message: `to_zarr(group=...)` writes datasets there. */
async function subgroupsOf(opened: OpenedStore, group: string): Promise<string[]> {
	const tree = await listStoreTree(opened, group);
	return tree.entries.slice(1).flatMap((entry) => {
		if (!("node" in entry) || entry.node.kind !== "group") return [];
		const name = group === "" ? entry.path : entry.path.slice(group.length + 1);
		return name.includes("/") ? [] : [entry.path];
	});
}

/** The coordinate array of a dimension: an array of the group named after it, 1-D over it; undefined if none. */
async function findCoordinate(opened: OpenedStore, group: GroupAt, dimension: TableDimension, sizedBy: string, options: ColumnOpening): Promise<Omit<TableColumn, "axes"> | undefined> {
	const path = group.path === "" ? dimension.name : `${group.path}/${dimension.name}`;
	if (dimension.name.includes("/") || normalizeArrayPath(dimension.name, "dimension name") !== dimension.name) return undefined;
	// Read once: openColumn below finds the document this read kept (metadata-documents.ts).
	const document = await readNodeDocument(opened, path, group.format);
	if (document === undefined || document.node.kind !== "array") return undefined;
	const column = await openColumn(opened, group, dimension.name, options);
	const variable = variableOf(column);
	// An array over a dimension of its own name is that dimension's coordinate: of another length (what an append
	// interrupted between the variables and their coordinate leaves), xarray refuses the dataset ("conflicting
	// sizes"); its positions in a column of the coordinate's name would pass for its values.
	if (isDimensionCoordinate(variable) && variable.shape[0] !== dimension.length) {
		throw new Dt64ExportError(
			"COLUMNS_INCOMPATIBLE",
			`dimension ${JSON.stringify(dimension.name)} has length ${dimension.length} in ${sizedBy} and ${variable.shape[0]} in its coordinate array ${path}, so they cannot share a table (xarray refuses the dataset: conflicting sizes; an append interrupted between the variables and their coordinate leaves this): write the coordinate again, or take positions for the index (\`index\` positions)`,
			{ option: "columns", path, value: dimension.name },
		);
	}
	return isCoordinateOf(variable, dimension.name, dimension.length) ? column : undefined;
}

/** The path of the array `name` of `group`; undefined for a name that is no path (openColumn refuses it). */
function memberPath(group: GroupAt, name: string): string | undefined {
	let relative: string;
	try {
		relative = normalizeArrayPath(name, "columns");
	} catch {
		return undefined;
	}
	return relative === "" ? undefined : group.path === "" ? relative : `${group.path}/${relative}`;
}

/**
 * Starts reading the metadata of the arrays `names` of `group` at once (in turn, see metadata-documents.ts): each is
 * then opened in the order named, finding its documents read, so that the first one that fails is still the one
 * reported. A name that is no path is left to openColumn to refuse.
 */
function readAhead(opened: OpenedStore, group: GroupAt, names: readonly string[]): void {
	readMembersAhead(
		opened,
		names.flatMap((name) => memberPath(group, name) ?? []),
		group.format,
	);
}

/** The dimension names a node's consolidated metadata gives it, unchecked (a guess of what will be read). */
function listedDimensionNames(node: NodeMetadata): string[] {
	const names = node.zarrFormat === 2 ? attributesOf(node)._ARRAY_DIMENSIONS : node.json.dimension_names;
	return Array.isArray(names) ? names.filter((name): name is string => typeof name === "string") : [];
}

/**
 * Starts reading, with the columns `names`, the arrays their table will open after them, as the store's consolidated
 * metadata lists them: their dimensions' coordinate arrays (for an index of coordinates) and the coordinates their
 * `coordinates` attributes and the group's name. Read after the columns, they were a round trip each. Only arrays the
 * consolidated metadata lists are read ahead: a guess never probes a path that is not there.
 */
async function readCoordinatesAhead(opened: OpenedStore, group: GroupAt, groupNode: NodeMetadata, names: readonly string[], indexSource: IndexSource): Promise<void> {
	const wanted = new Set(coordinatesAttributeNames(attributesOf(groupNode)));
	for (const name of names) {
		const path = memberPath(group, name);
		const node = path === undefined ? undefined : await consolidatedNodeOf(opened, path);
		if (node?.kind !== "array") continue;
		if (indexSource === "coordinates") for (const dimension of listedDimensionNames(node)) wanted.add(dimension);
		for (const coordinate of coordinatesAttributeNames(attributesOf(node))) wanted.add(coordinate);
	}
	const paths: string[] = [];
	for (const name of [...wanted].filter(isMemberName)) {
		const path = memberPath(group, name)!;
		if ((await consolidatedNodeOf(opened, path))?.kind === "array") paths.push(path);
	}
	readMembersAhead(opened, paths, group.format);
}

/**
 * Opens the named arrays of a group as one table, broadcast over the union of their dimensions; with `indexSource`
 * coordinates, each dimension's coordinate array (where there is one) is its index, and a coordinate named in
 * `columns` is that index rather than a value column. With `signal`, an abort rejects with Node's AbortError, the
 * request in flight cut short (OpenStoreOptions.signal).
 */
export async function openTable(locationGiven: string | URL, options: OpenTableOptions): Promise<ZarrTable> {
	const location = storeArgument(locationGiven);
	options = optionsArgument(options);
	checkOptionNamesOf("openTable", options, OPEN_TABLE_OPTION_NAMES);
	return openTableBeforeReading(location, options);
}

/** Every option openTable takes: another name is refused (a misspelt one would be ignored); `bufferPool` only as the package's own (openStore). */
const OPEN_TABLE_OPTION_NAMES: readonly string[] = Object.keys({
	group: 0, columns: 0, indexSource: 0, cf: 0, convertCalendar: 0, alignOn: 0, unit: 0, rounding: 0, headers: 0, retries: 0, timeoutMs: 0,
	redirects: 0, bufferPool: 0, signRequests: 0, env: 0, forbiddenAsMissing: 0, followLinksOutside: 0, signal: 0,
} satisfies Record<keyof OpenTableSettings, 0>);

/** openTable, calling `beforeReading` once the table is laid out, before any of its chunks is read. */
export async function openTableBeforeReading(location: string, options: OpenTableSettings, beforeReading?: BeforeReadingValues): Promise<ZarrTable> {
	return abortable(options.signal, () => openStoreTable(location, options, beforeReading));
}

async function openStoreTable(location: string, options: OpenTableSettings, beforeReading: BeforeReadingValues | undefined): Promise<ZarrTable> {
	const all = options.columns === "all";
	if (typeof options.columns === "string" && !all) {
		const names = (options.columns as string).split(",").map((name) => name.trim());
		throw new UsageError(`columns: an array of names or "all", not the string ${JSON.stringify(options.columns)} (${JSON.stringify(names)}?)`, { option: "columns", value: options.columns });
	}
	if (!all && (!Array.isArray(options.columns) || options.columns.length === 0)) throw new UsageError("columns: name at least one array, or all", { option: "columns" });
	const indexSource = indexSourceOf(options);
	const opened = await openStore(location, options);
	try {
		const deferredUnits = new DeferredAutoUnits();
		const table = await openGroupTable(opened, location, indexSource, { ...options, deferredUnits });
		await beforeReading?.(table);
		return await deferredUnits.settle(table);
	} finally {
		// The table keeps the store for its chunks; the documents read to open it are not needed again.
		opened.documents.release();
	}
}

async function openGroupTable(opened: OpenedStore, location: string, indexSource: IndexSource, options: OpenTableSettings & ColumnOpening): Promise<ZarrTable> {
	const group = options.group === undefined ? "" : normalizeArrayPath(options.group);
	const groupDocument = await readNodeDocument(opened, group);
	if (groupDocument === undefined) throw noNodeError(opened, group);
	if (groupDocument.node.kind !== "group") {
		throw new UsageError(`${group === "" ? "the store root" : `group ${group}`} is an array: the columns are arrays of a group, named by group`, { option: "group", path: group });
	}
	const at: GroupAt = { path: group, format: groupDocument.node.zarrFormat };
	let opening: Omit<TableColumn, "axes">[] = [];
	let leftOut: string[] = [];
	const candidates: Omit<TableColumn, "axes">[] = [];
	if (options.columns === "all") {
		// An array of a type no column can hold is left out, with why, as a misfit is: `all` is every array that can be.
		const { names, refused } = await groupArrayNames(opened, group);
		const unsupported = [...refused];
		readAhead(opened, at, names);
		for (const name of names) {
			try {
				candidates.push(await openColumn(opened, at, name, options));
			} catch (error) {
				// A type no column holds, or a codec this package does not decode (UNSUPPORTED): the array cannot be read.
				if (!(error instanceof Dt64ExportError && (error.code === "COLUMN_UNSUPPORTED" || error.code === "UNSUPPORTED"))) throw error;
				unsupported.push(`${name}: ${error.cause instanceof Error ? error.cause.message : error.message}`);
			}
		}
		const selection = selectWholeDataset(candidates.map(variableOf));
		if (selection.chosen.length === 0) {
			const subgroups = await subgroupsOf(opened, group);
			const elsewhere = subgroups.length === 0 ? "" : `; its ${subgroups.length === 1 ? "group" : "groups"} ${subgroups.join(", ")} may: name one with \`group\``;
			const why = (unsupported.length === 0 ? "the group holds no data variable (only dimension coordinates, or no array)" : `no data variable of the group can be a column (${unsupported.join("; ")})`) + elsewhere;
			throw new Dt64ExportError("COLUMN_NOT_FOUND", `columns all: ${why}`, { option: "columns", value: "all", path: group });
		}
		// The dataset's coordinates among them (a forecast's valid_time): columns, yet no time column unless named.
		const declared = declaredCoordinates(
			candidates.map((column) => column.metadata),
			attributesOf(groupDocument.node),
			(name) => names.includes(name),
		);
		opening = selection.chosen.map((variable) => {
			const column = candidates.find((candidate) => candidate.name === variable.name)!;
			return declared.has(column.name) ? ({ ...column, datasetCoordinate: true } as Omit<TableColumn, "axes">) : column;
		});
		leftOut = [...selection.leftOut.map((variable) => `${describeVariable(variable)}: ${variable.reason}`), ...unsupported];
	} else {
		readAhead(opened, at, options.columns);
		await readCoordinatesAhead(opened, at, groupDocument.node, options.columns, indexSource);
		for (const name of options.columns) opening.push(await openColumn(opened, at, name, options));
		const attached = await openAttachedCoordinates(opened, at, attributesOf(groupDocument.node), opening, options);
		opening = [...opening, ...attached.columns];
		leftOut = attached.leftOut;
	}
	const table = await layOutColumns(opened, opening, { group: at, indexSource, leftOut, name: columnNameFor(location, group), options });
	if (options.columns !== "all") return table;
	// `all` takes the dimension coordinates as the index: with positions for an index, they are in no column.
	const indexCoordinates = table.dimensions.flatMap((dimension) => (candidates.some((column) => isCoordinateOf(variableOf(column), dimension.name, dimension.length)) ? [dimension.name] : []));
	return withCoordinatesLeftOut({ ...table, indexCoordinates });
}

/** A name that is an array's own name in its group (no path, nothing to normalize). */
function isMemberName(name: string): boolean {
	try {
		return !name.includes("/") && normalizeArrayPath(name, "coordinates") === name;
	} catch {
		return false;
	}
}

/**
 * The auxiliary coordinates of the columns asked for, opened as columns, as xarray's `ds[names]` keeps them (see
 * table/attached-coordinates.ts); those whose data type no column holds are left out, with why.
 */
async function openAttachedCoordinates(opened: OpenedStore, group: GroupAt, groupAttributes: Record<string, unknown>, selected: readonly Omit<TableColumn, "axes">[], options: ColumnOpening): Promise<{ columns: Omit<TableColumn, "axes">[]; leftOut: string[] }> {
	const mentioned = [...new Set([...selected.flatMap((column) => coordinatesAttributeNames(column.metadata.attributes)), ...coordinatesAttributeNames(groupAttributes)])].filter(isMemberName);
	if (mentioned.length === 0) return { columns: [], leftOut: [] };
	readAhead(opened, group, mentioned);
	const held = new Set<string>();
	for (const name of mentioned) {
		const document = await readNodeDocument(opened, group.path === "" ? name : `${group.path}/${name}`, group.format);
		if (document?.node.kind === "array") held.add(name);
	}
	const declared = declaredCoordinates(
		selected.map((column) => column.metadata),
		groupAttributes,
		(name) => held.has(name),
	);
	const variables = selected.map(variableOf);
	const dimensions = new Set(variables.flatMap((variable) => dimensionNamesOf(variable) ?? []));
	const asked = new Set(selected.map((column) => column.name));
	const columns: Omit<TableColumn, "axes">[] = [];
	const leftOut: string[] = [];
	for (const name of [...declared].sort(compareNames)) {
		// A dimension coordinate is the index; one asked for is a column already.
		if (asked.has(name) || dimensions.has(name)) continue;
		let column: Omit<TableColumn, "axes">;
		try {
			column = await openColumn(opened, group, name, options);
		} catch (error) {
			if (!(error instanceof Dt64ExportError && error.code === "COLUMN_UNSUPPORTED")) throw error;
			leftOut.push(`the coordinate ${name}: ${error.cause instanceof Error ? error.cause.message : error.message}`);
			continue;
		}
		const fit = coordinateFit(variableOf(column), variables);
		if (fit.fits) columns.push({ ...column, coordinate: true });
		else if (fit.reason !== undefined) leftOut.push(`the coordinate ${describeVariable(variableOf(column))}: ${fit.reason}`);
	}
	return { columns, leftOut };
}

function indexSourceOf(options: { indexSource?: IndexSource }): IndexSource {
	const indexSource = options.indexSource ?? "coordinates";
	if (indexSource !== "coordinates" && indexSource !== "positions") throw new UsageError(`invalid indexSource ${JSON.stringify(indexSource)}: choose coordinates or positions`, { option: "indexSource", value: indexSource });
	return indexSource;
}

interface ColumnsLayout {
	/** The group whose arrays are the dimensions' coordinates; undefined for an array that is the store root. */
	readonly group: GroupAt | undefined;
	readonly indexSource: IndexSource;
	readonly leftOut: string[];
	readonly name: string;
	readonly options: ColumnOpening;
}

/** Lays opened columns out as a table, each dimension's index its coordinate array where the group has one. */
async function layOutColumns(opened: OpenedStore, opening: Omit<TableColumn, "axes">[], { group, indexSource, leftOut, name, options }: ColumnsLayout): Promise<ZarrTable> {
	const seen = new Set<string>();
	for (const column of opening) {
		if (seen.has(column.name)) throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `columns: two arrays give the column name ${JSON.stringify(column.name)}`, { option: "columns", value: column.name });
		seen.add(column.name);
	}
	const layout = layOutTable(opening.map(variableOf));
	const columns = opening.map((column, k) => inTableOrder(column, layout.axes[k]));
	const index: TableIndex[] = [];
	// Every dimension's coordinate is looked up at once, not one round trip after another.
	if (indexSource === "coordinates" && group !== undefined) readAhead(opened, group, layout.dimensions.map((dimension) => dimension.name).filter(isMemberName));
	for (const [axis, dimension] of layout.dimensions.entries()) {
		const at = columns.findIndex((column) => column.axes.length === 1 && column.axes[0] === axis && isCoordinateOf(variableOf(column), dimension.name, dimension.length));
		const named = at === -1 ? undefined : columns[at];
		const sizedBy = columns.find((column) => column.axes.includes(axis))?.name ?? "the table";
		const coordinate = indexSource === "coordinates" ? (named ?? (group === undefined ? undefined : await findCoordinate(opened, group, dimension, sizedBy, options))) : undefined;
		if (coordinate === undefined) index.push({ kind: "positions", name: dimension.name, axis, ...(indexSource === "positions" ? { chosen: true } : {}) });
		else index.push({ kind: "coordinate", name: dimension.name, axis, column: { ...coordinate, axes: [axis] } as TableColumn, ...(named === undefined ? {} : { named: at }) });
	}
	// A coordinate named in --columns is its dimension's index column, not a second copy of it.
	const values = columns.filter((column) => !index.some((entry) => entry.kind === "coordinate" && entry.column.metadata.path === column.metadata.path));
	const stale = staleConsolidatedOf(opened);
	const refused = refusedNodesOf(opened);
	const pooled: ZarrTable & Pooled = {
		store: opened,
		dimensions: layout.dimensions,
		shape: layout.dimensions.map((dimension) => dimension.length),
		columns: values,
		index,
		leftOut,
		...(stale.length === 0 ? {} : { staleConsolidatedMetadata: stale }),
		...(refused.length === 0 ? {} : { refusedNodes: refused }),
		name,
		bufferPool: options.bufferPool,
	};
	return pooled;
}

/**
 * A CF time array found or named alone (locateTimeArray): the one column of its group's table, so that index
 * columns are its dimensions' coordinates there, as for `--columns`; an array that is the store root itself (a
 * path straight to the array), or whose parent is no group, is a table of its own.
 */
export async function openCfTimeArrayTable(located: LocatedArray, given: Omit<OpenTableSettings, "columns" | "group">, beforeReading?: BeforeReadingValues): Promise<ZarrTable> {
	const deferredUnits = new DeferredAutoUnits();
	const table = await openCfTimeArrayColumns(located, { ...given, deferredUnits });
	await beforeReading?.(table);
	return deferredUnits.settle(table);
}

async function openCfTimeArrayColumns(located: LocatedArray, options: Omit<OpenTableSettings, "columns" | "group"> & ColumnOpening): Promise<ZarrTable> {
	const { opened, arrayPath } = located;
	const segments = arrayPath.split("/");
	const columnName = segments.pop() as string;
	const group = segments.join("/");
	const parent = arrayPath === "" ? undefined : await readNodeDocument(opened, group);
	const table = { indexSource: indexSourceOf(options), leftOut: [], options };
	if (parent?.node.kind === "group") {
		const at: GroupAt = { path: group, format: parent.node.zarrFormat };
		return layOutColumns(opened, [await openColumn(opened, at, columnName, options, "array")], { ...table, group: at, name: columnNameFor(located.location, group) });
	}
	const name = columnNameFor(located.location, arrayPath);
	return layOutColumns(opened, [await openArrayColumn(opened, located.node, arrayPath, name, whereIs(located), options)], { ...table, group: undefined, name });
}

/** A one-column table of an opened time array: how a single array is exported (its index columns are positions). */
export function tableOfTimeArray(array: TimeArray): ZarrTable {
	checkObjectArgument("tableOfTimeArray", "array", array, "an array as openTimeArray gives it", (value) => typeof value.metadata === "object" && value.metadata !== null && Array.isArray((value.metadata as { shape?: unknown }).shape));
	const { shape } = array.metadata;
	const names = dimensionNamesOf({ name: array.name, shape, dimensionNames: array.metadata.dimensionNames, documents: array.metadata }) ?? shape.map((_, axis) => `dim_${axis}`);
	const dimensions = shape.map((length, axis) => ({ name: names[axis], length }));
	const stale = staleConsolidatedOf(array.store);
	const refused = refusedNodesOf(array.store);
	const pooled: ZarrTable & Pooled = {
		...(stale.length === 0 ? {} : { staleConsolidatedMetadata: stale }),
		...(refused.length === 0 ? {} : { refusedNodes: refused }),
		store: array.store,
		dimensions,
		shape,
		columns: [{ kind: "time", name: array.name, metadata: array.metadata, chunks: array.chunks, axes: shape.map((_, axis) => axis) }],
		index: dimensions.map((dimension, axis) => ({ kind: "positions", name: dimension.name, axis })),
		leftOut: [],
		name: array.name,
		bufferPool: poolOf(array),
	};
	return pooled;
}
