import { checkOptionNamesOf, optionsArgument, storeArgument } from "./call-arguments.js";
import * as path from "node:path";
import { abortable } from "./abort.js";
import { isCfTimeArray, type CfOptions } from "./cf/cf-time-array.js";
import { Dt64ExportError, UsageError } from "./errors.js";
import { openStore, type OpenedStore, type OpenStoreOptions, type StoreSettings } from "./store/open-store.js";
import type { Pooled } from "./memory/opened-pool.js";
import { nodeNotFound } from "./store/refused-probes.js";
import { localStorePath, locationWithoutQuery } from "./store/store-location.js";
import { describeRefusedNodes, recordRefusedNodes } from "./store/refused-nodes.js";
import { isStaleConsolidated } from "./store/stale-consolidated.js";
import { cfTimeArrayPaths, listStoreTree, noNodeError, readNode, readNodeDocument, refusedNodesIn, timeArrayPaths } from "./store-tree.js";
import { withBoundsAttributesOf } from "./table/bounds-parent.js";
import { withoutBoundaryVariables } from "./table/bounds-candidates.js";
import { arrayMetadataPlace, metadataFileOf, parseTimeArrayMetadata, type ArrayNode, type NodeMetadata, type TimeArrayMetadata } from "./zarr/array-metadata.js";
import { createChunkSource, type ChunkSource } from "./zarr/chunk-source.js";

/** An array ready to export: its validated metadata, and where its decoded chunks come from. */
export interface TimeArray {
	readonly store: OpenedStore;
	readonly metadata: TimeArrayMetadata;
	readonly chunks: ChunkSource;
	/** The default column name: the last path segment, `.zarr` dropped. */
	readonly name: string;
}

export interface OpenArrayOptions extends OpenStoreOptions, CfOptions {
	/** Path of the array inside the store; found automatically when the store holds exactly one time array. */
	array?: string | undefined;
}

/** openTimeArray's options as the package's own stages give them: a caller's and the pipeline's `bufferPool` (StoreSettings). */
export type OpenArraySettings = OpenArrayOptions & Pick<StoreSettings, "bufferPool">;

/**
 * Normalizes the `array` option (or a `columns` name, `option`): a relative path of plain segments that cannot leave the
 * store. A name is taken as written, `%` included (`50%`, `t%20x`: legal Zarr node names, which zarr-python opens by
 * those names): it is no URL, and every store reads it literally (a URL store encodes each segment, `%` as `%25`).
 */
export function normalizeArrayPath(input: string, option = "array"): string {
	const decoded = input;
	if (decoded.includes("\\") || decoded.includes("\0") || path.posix.isAbsolute(decoded) || /^[A-Za-z]:/.test(decoded)) {
		throw new UsageError(`${option} ${JSON.stringify(input)}: must be a relative path inside the store`, { option, value: input });
	}
	const segments = decoded.split("/").filter((segment) => segment !== "" && segment !== ".");
	if (segments.some((segment) => segment === "..")) {
		throw new UsageError(`${option} ${JSON.stringify(input)}: must not leave the store (no "..")`, { option, value: input });
	}
	return segments.join("/");
}

export function columnNameFor(storeLocation: string, arrayPath: string): string {
	// A local store is named by its folder or file as resolved: `.` or `store.zarr/..` name no column. A `file:` URL
	// is a local path spelled otherwise (`with%20space.zarr` names the folder `with space.zarr`): named as that path.
	const local = localStorePath(storeLocation);
	const source = arrayPath || (local !== undefined ? path.resolve(local) : locationWithoutQuery(storeLocation));
	const last = source.split(/[\\/]/).filter((part) => part.length > 0).pop() ?? "time";
	return last.replace(/\.zarr(?:\.zip)?$/i, "").replace(/\.zip$/i, "") || "time";
}

/** The array an export names (or finds), located in its opened store but not yet validated. */
export interface LocatedArray {
	readonly location: string;
	readonly opened: OpenedStore;
	readonly arrayPath: string;
	readonly node: NodeMetadata;
}

/**
 * Finds the array to export: `options.array`, or the one time array of the group (datetime64 or timedelta64, and CF
 * time arrays unless `cf: false`).
 */
export async function locateTimeArray(location: string, options: OpenArraySettings = {}): Promise<LocatedArray> {
	const opened = await openStore(location, options);
	let arrayPath = options.array === undefined ? "" : normalizeArrayPath(options.array);
	// Messages name the store as it may be shown: an HTTP location can carry a token in its query.
	const shown = opened.location;
	const document = await readNodeDocument(opened, arrayPath);
	if (document === undefined && arrayPath !== "") throw noNodeError(opened, arrayPath);
	let node = document?.node;
	// No metadata at the top can still be a v2 store known by its `.zmetadata` alone: listStoreTree decides.
	if (node === undefined || node.kind === "group") {
		const tree = await listStoreTree(opened, arrayPath, document);
		// Messages name the group asked for (`array` naming a group), not the store, when it is not the root.
		const group = `${shown}${arrayPath ? `/${arrayPath}` : ""}`;
		if (tree.discovery === "root-only") {
			throw new Dt64ExportError(
				"ARRAY_UNNAMED",
				`${group} is a group without consolidated metadata, and an HTTP store cannot be listed: name the array`,
				{ path: arrayPath, option: "array" },
			);
		}
		// A CF boundary variable of another time array found (xarray's time_bnds of instants, units of its own) is
		// not a choice: its coordinate is the time array.
		const { kept: candidates, boundaries } = await withoutBoundaryVariables(opened, tree, timeArrayPaths(tree, options));
		// Nodes whose metadata is refused may hold a time array: never passed over without a word.
		const refused = refusedNodesIn(tree);
		const notSearched = refused.length === 0 ? "" : `; not searched, their metadata refused: ${describeRefusedNodes(refused)}`;
		if (candidates.length === 0) {
			const cfArrays = options.cf === false ? cfTimeArrayPaths(tree) : [];
			const found = cfArrays.length === 0 ? "" : ` (CF time arrays, with CF decoding off: ${cfArrays.join(", ")})`;
			const what = options.cf === false ? "no numpy.datetime64 array" : "no numpy.datetime64 array and no CF time array";
			throw new Dt64ExportError("ARRAY_NOT_FOUND", `${group}: the group holds ${what}${found}${notSearched}`, { path: arrayPath, ...(cfArrays.length === 0 ? {} : { candidates: cfArrays }) });
		}
		if (candidates.length > 1) {
			const cf = options.cf !== false && cfTimeArrayPaths(tree).length > 0;
			const what = cf ? "time arrays (datetime64 or CF time)" : "datetime64 arrays";
			const bounds = boundaries.length === 0 ? "" : ` (their boundary variable${boundaries.length === 1 ? "" : "s"} ${boundaries.join(", ")} left aside)`;
			throw new Dt64ExportError("ARRAY_AMBIGUOUS", `${group}: the group holds several ${what}: ${candidates.join(", ")}${bounds}${notSearched}`, { path: arrayPath, option: "array", candidates });
		}
		recordRefusedNodes(opened, refused);
		arrayPath = candidates[0];
		// Read in the format it was found in (its group's), which for a listed tree is a read already made.
		const found = tree.entries.find((entry) => entry.path === arrayPath);
		const chosen = await readNode(opened, arrayPath, found !== undefined && "node" in found ? found.node.zarrFormat : undefined);
		if (chosen === undefined) {
			throw nodeNotFound(opened, shown, arrayPath, () => new Dt64ExportError("ARRAY_NOT_FOUND", `${shown}/${arrayPath}: listed in the consolidated metadata, but has no zarr.json or .zarray`, { path: arrayPath }));
		}
		node = chosen;
	}
	if (options.cf !== false && node.kind === "array") node = await withGroupBoundsAttributes(opened, arrayPath, node);
	return { location, opened, arrayPath, node };
}

/**
 * A CF boundary variable named alone (`array: "time_bnds"`) decodes with its coordinate's units and calendar, as it
 * does as a column (src/table/bounds-parent.ts): an array at the store root, or whose parent is no group, has none.
 */
async function withGroupBoundsAttributes(opened: OpenedStore, arrayPath: string, node: ArrayNode): Promise<ArrayNode> {
	if (arrayPath === "") return node;
	const group = arrayPath.split("/").slice(0, -1).join("/");
	const parent = await readNodeDocument(opened, group);
	return parent?.node.kind === "group" ? withBoundsAttributesOf(opened, { path: group, format: parent.node.zarrFormat }, node) : node;
}

/** Where a located array's messages say it is: its metadata file in the store. */
export function whereIs(located: LocatedArray): string {
	return located.node.kind === "array" ? `${located.opened.location}/${arrayMetadataPlace(located.node, isStaleConsolidated(located.opened, located.node.path))}` : `${located.opened.location}${located.arrayPath ? `/${located.arrayPath}` : ""}/${metadataFileOf(located.node)}`;
}

/** Opens a located datetime64 (or timedelta64) array for export. */
export function openLocatedTimeArray(located: LocatedArray, options: OpenArraySettings = {}): TimeArray {
	const { opened, node, location, arrayPath } = located;
	const where = whereIs(located);
	if (options.cf !== false && isCfTimeArray(node)) {
		throw new UsageError(`${where}: a CF time array is exported as a one-column table (openTable, exportTable or exportToFile), not by openTimeArray`, { path: arrayPath });
	}
	const metadata = parseTimeArrayMetadata(node, where);
	const { bufferPool } = options;
	const array: TimeArray & Pooled = { store: opened, metadata, chunks: createChunkSource(opened.store, metadata, where, { bufferPool, forbiddenAsMissing: opened.forbiddenAsMissing, keepsReadsAlone: opened.kind !== "directory" }), name: columnNameFor(location, arrayPath), bufferPool };
	return array;
}

/** Every option openTimeArray takes: another name is refused (a misspelt one would be ignored); `bufferPool` only as the package's own (openStore). */
const OPEN_ARRAY_OPTION_NAMES: readonly string[] = Object.keys({
	array: 0, cf: 0, convertCalendar: 0, alignOn: 0, unit: 0, rounding: 0, headers: 0, retries: 0, timeoutMs: 0,
	redirects: 0, bufferPool: 0, signRequests: 0, env: 0, forbiddenAsMissing: 0, followLinksOutside: 0, signal: 0,
} satisfies Record<keyof OpenArraySettings, 0>);

/** Opens a time array (see locateTimeArray); with `signal`, an abort rejects with Node's AbortError (OpenStoreOptions.signal). */
export async function openTimeArray(locationGiven: string | URL, options: OpenArrayOptions | null = {}): Promise<TimeArray> {
	const location = storeArgument(locationGiven);
	options = optionsArgument(options);
	checkOptionNamesOf("openTimeArray", options, OPEN_ARRAY_OPTION_NAMES);
	return abortable(options.signal, async () => {
		const located = await locateTimeArray(location, options);
		located.opened.documents.release();
		return openLocatedTimeArray(located, options);
	});
}
