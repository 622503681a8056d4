/**
 * A table of arrays of the same shape from one group (Zarr v3 or v2): datetime64/timedelta64 arrays and CF time
 * arrays (unless `cf: false`) become timestamp/duration columns, plain arrays (bool, integers, floats, strings) companion columns. Every array is validated, and keeps
 * its own chunk grid and codecs, before any chunk is read.
 */
import { isCfTimeArray, openCfTimeArray, type CfOptions, type CfTimeArray } from "./cf/cf-time-array.js";
import { Dt64ExportError, UsageError } from "./errors.js";
import { columnNameFor, normalizeArrayPath, type TimeArray } from "./open-array.js";
import type { BufferPool } from "./store/buffer-pool.js";
import { openStore, type OpenedStore, type OpenStoreOptions } from "./store/open-store.js";
import { listStoreTree, noNodeMessage, readNodeDocument } from "./store-tree.js";
import { isTimeArray, metadataFileOf, parsePlainArrayMetadata, parseTimeArrayMetadata, type PlainArrayMetadata, type TimeArrayMetadata } from "./zarr/array-metadata.js";
import type { ChunkValues } from "./zarr/chunk-values.js";
import { createChunkSource, createPlainChunkSource, type ChunkSource } from "./zarr/chunk-source.js";
import { parsePlainDataType } from "./zarr/plain-dtype.js";
import { v2ValuesOf } from "./zarr/v2-metadata.js";

export type TableColumn =
	| { readonly kind: "time"; readonly name: string; readonly metadata: TimeArrayMetadata; readonly chunks: ChunkSource }
	| { readonly kind: "plain"; readonly name: string; readonly metadata: PlainArrayMetadata; readonly chunks: ChunkSource<ChunkValues> }
	| ({ readonly kind: "cf-time"; readonly name: string } & CfTimeArray);

/** Arrays of one shape, read side by side as the columns of one table. */
export interface ZarrTable {
	readonly store: OpenedStore;
	/** The shape every column shares. */
	readonly shape: number[];
	readonly columns: readonly TableColumn[];
	/** A name for the output file: the group's (or the single array's) name. */
	readonly name: string;
	/** The pool it was opened with (OpenStoreOptions.bufferPool): its export takes batch memory from it too. */
	readonly bufferPool?: BufferPool;
}

export interface OpenTableOptions extends OpenStoreOptions, CfOptions {
	/** Path of the group holding the arrays; the store root by default. */
	group?: string;
	/** The arrays, by path inside the group; each column is named after the last segment of its path. */
	columns: readonly string[];
}

/** Splits and checks `--columns a,b,c`. */
export function parseColumnList(text: string): string[] {
	const names = text.split(",").map((name) => name.trim());
	if (names.some((name) => name === "")) throw new UsageError(`columns ${JSON.stringify(text)}: empty column name (write them as a,b,c)`, { option: "columns", value: text });
	return names;
}

const lastSegment = (path: string) => path.split("/").pop() as string;

/** What a group holds, for the message naming a column it does not have. */
async function describeGroup(opened: OpenedStore, group: string): Promise<string> {
	const tree = await listStoreTree(opened, group).catch(() => undefined);
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

async function openColumn(opened: OpenedStore, group: string, name: string, options: OpenTableOptions): Promise<TableColumn> {
	const { bufferPool } = options;
	const relative = normalizeArrayPath(name, "columns");
	const path = group === "" ? relative : `${group}/${relative}`;
	const shown = `${opened.location}/${path}`;
	const document = relative === "" ? undefined : await readNodeDocument(opened, path);
	if (document === undefined || document.node.kind !== "array") {
		const what = document === undefined ? "no array" : "a group, not an array,";
		throw new Dt64ExportError("COLUMN_NOT_FOUND", `columns: ${what} ${JSON.stringify(name)} in ${group === "" ? "the store root" : `group ${group}`}; ${await describeGroup(opened, group)}`, { option: "columns", path });
	}
	const { node } = document;
	const where = `${shown}/${metadataFileOf(node)}`;
	const columnName = lastSegment(relative);
	if (isTimeArray(node)) {
		const metadata = parseTimeArrayMetadata(node, where);
		return { kind: "time", name: columnName, metadata, chunks: createChunkSource(opened.store, metadata, where, { bufferPool }) };
	}
	if (options.cf !== false && isCfTimeArray(node)) return { kind: "cf-time", name: columnName, ...(await openCfTimeArray(opened.store, node, where, options)) };
	// A data type that cannot be a column is a usage error (another choice of columns), unlike a broken array.
	try {
		// The fill value is checked with the rest of the array below ("null" reads as none here).
		if (node.zarrFormat === 2) v2ValuesOf(node.json, "null");
		else parsePlainDataType(node.json.data_type);
	} catch (error) {
		throw new Dt64ExportError("COLUMN_UNSUPPORTED", `columns: array ${path}${node.zarrFormat === 2 ? ` (${where})` : ""}: ${(error as Error).message}`, { option: "columns", path, cause: error });
	}
	const metadata = parsePlainArrayMetadata(node, where);
	return { kind: "plain", name: columnName, metadata, chunks: createPlainChunkSource(opened.store, metadata, where, { bufferPool }) };
}

/** Opens the named arrays of a group as one table; they must all have the same shape. */
export async function openTable(location: string, options: OpenTableOptions): Promise<ZarrTable> {
	if (!Array.isArray(options.columns) || options.columns.length === 0) throw new UsageError("columns: name at least one array", { option: "columns" });
	const opened = await openStore(location, options);
	const group = options.group === undefined ? "" : normalizeArrayPath(options.group);
	const groupDocument = await readNodeDocument(opened, group);
	if (groupDocument === undefined) throw new Dt64ExportError("ARRAY_NOT_FOUND", noNodeMessage(opened, group), { path: group });
	if (groupDocument.node.kind !== "group") {
		throw new UsageError(`${group === "" ? "the store root" : `group ${group}`} is an array: the columns are arrays of a group, named by group`, { option: "group", path: group });
	}
	const columns: TableColumn[] = [];
	for (const name of options.columns) columns.push(await openColumn(opened, group, name, options));
	const seen = new Set<string>();
	for (const column of columns) {
		if (seen.has(column.name)) throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `columns: two arrays give the column name ${JSON.stringify(column.name)}`, { option: "columns", value: column.name });
		seen.add(column.name);
	}
	const shape = columns[0].metadata.shape;
	if (columns.some((column) => column.metadata.shape.join() !== shape.join())) {
		const shapes = columns.map((column) => `${column.name} ${JSON.stringify(column.metadata.shape)}`).join(", ");
		throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `columns: the arrays must have the same shape, got ${shapes}`, { option: "columns" });
	}
	return { store: opened, shape, columns, name: columnNameFor(location, group), bufferPool: options.bufferPool };
}

/** A one-column table of a CF time array, `name` its column: how a CF time array alone is exported. */
export function tableOfCfTimeArray(store: OpenedStore, array: CfTimeArray, name: string): ZarrTable {
	return { store, shape: array.metadata.shape, columns: [{ kind: "cf-time", name, ...array }], name };
}

/** A one-column table of an opened time array: how a single array is exported. */
export function tableOfTimeArray(array: TimeArray): ZarrTable {
	return {
		store: array.store,
		shape: array.metadata.shape,
		columns: [{ kind: "time", name: array.name, metadata: array.metadata, chunks: array.chunks }],
		name: array.name,
		bufferPool: array.bufferPool,
	};
}
