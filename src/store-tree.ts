/**
 * The nodes of a store below a group, found the way each kind of store allows: a folder is walked, a zip's
 * entries are listed, and an HTTP store (which cannot be listed) is read through its consolidated metadata,
 * v3 inline `consolidated_metadata` in the group's zarr.json or, for a v2 store, `.zmetadata`. An object store
 * (s3://, gs://) is read through its consolidated metadata too when it has some (one request), else its
 * prefixes are listed. A node is a v3 `zarr.json` or, where there is none, a v2 `.zarray` or `.zgroup` (with its
 * `.zattrs`); a group's members are looked for in the group's format first (readNodeDocument).
 */
import { existsSync, readdirSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import type { AbsolutePath } from "./store/readable.js";
import { isCfTimeArray } from "./cf/cf-time-array.js";
import { throwIfAborted } from "./abort.js";
import { Dt64ExportError, isDt64ExportError, withErrorFields } from "./errors.js";
import { parseJson } from "./json/parse-json.js";
import { rawMemberText, rawMembers } from "./json/raw-member.js";
import { METADATA_READS_IN_FLIGHT } from "./store/metadata-documents.js";
import { listedTooDeep, listedTooMany, MAX_LISTED_DEPTH, MAX_LISTED_MEMBERS } from "./store/listing-bounds.js";
import type { OpenedStore } from "./store/open-store.js";
import { isRefusedKey } from "./store/refused-key.js";
import { nodeNotFound, recordRefusedProbe } from "./store/refused-probes.js";
import { attributesOf, documentKey, isTimeArray, metadataFileOf, parseNodeJson, type NodeMetadata } from "./zarr/array-metadata.js";
import type { RefusedNode } from "./store/refused-nodes.js";
import { describeDifference, onlyConsolidatedDescription, recordStaleConsolidated } from "./store/stale-consolidated.js";
import { parseV2NodeJson, ZARRAY, ZATTRS, ZGROUP } from "./zarr/v2-metadata.js";

const ZMETADATA = ".zmetadata";

/** A node's metadata document as read: the node it describes and its exact text (for int64 fill values). */
export interface NodeDocument {
	readonly node: NodeMetadata;
	readonly text: string;
}

/** One node of the tree: its metadata (v3 or v2), or why its metadata could not be read. */
export type TreeEntry = { readonly path: string; readonly node: NodeMetadata } | { readonly path: string; readonly error: string };

/** The Zarr format of a node: a group's members are read in the group's first (readNodeDocument). */
export type ZarrFormat = NodeMetadata["zarrFormat"];

/** How the nodes were found; `root-only` means the store can be neither listed nor read as consolidated. */
export type TreeDiscovery = "directory" | "zip" | "consolidated" | "consolidated-v2" | "listing" | "root-only";

export interface StoreTree {
	/** The group (or array) the tree starts at, then its descendants, in path order. */
	readonly entries: TreeEntry[];
	readonly discovery: TreeDiscovery;
}

function nodeKey(nodePath: string, file: string): AbsolutePath {
	return `/${nodePath ? `${nodePath}/` : ""}${file}` as AbsolutePath;
}

function where(opened: OpenedStore, nodePath: string, file = "zarr.json"): string {
	return `${opened.location}${nodePath ? `/${nodePath}` : ""}/${file}`;
}

/**
 * A metadata document of the node at `nodePath`, undefined when absent. Every read here is a probe (the document
 * may not exist), so a 403 that may be a missing key counts as absent, and is kept for the node's error. Each is
 * read once per opened store (see metadata-documents.ts), under the signal the store was opened with.
 */
async function readText(opened: OpenedStore, nodePath: string, key: AbsolutePath, shownAs: string): Promise<string | undefined> {
	try {
		return await opened.documents.read(key);
	} catch (error) {
		throwIfAborted(opened.signal);
		if (isRefusedKey(error)) {
			recordRefusedProbe(opened, nodePath, error);
			return undefined;
		}
		// The stores' own errors already name the file or URL that failed; only a library's bare error needs it. Their
		// fields name the store as it was given (an object store's HTTP requests go to an endpoint's URL) and the document.
		if (isDt64ExportError(error)) throw withErrorFields(error, ["READ_FAILED"], { path: opened.location, key: key.slice(1) }, "replace");
		throw new Dt64ExportError("READ_FAILED", `${shownAs}: cannot read: ${(error as Error).message}`, { path: opened.location, key: key.slice(1), cause: error });
	}
}

async function readV3Document(opened: OpenedStore, nodePath: string): Promise<NodeDocument | undefined> {
	const shownAs = where(opened, nodePath);
	const text = await readText(opened, nodePath, nodeKey(nodePath, "zarr.json"), shownAs);
	return text === undefined ? undefined : { node: parseNodeJson(text, nodePath, shownAs), text };
}

/**
 * A v2 node's `.zarray` or else `.zgroup`, with its `.zattrs`. `member`: the node is a member of a v2 group, which
 * almost always has both documents, so its `.zattrs` is asked for beside its `.zarray` rather than after it.
 */
async function readV2Document(opened: OpenedStore, nodePath: string, member: boolean): Promise<NodeDocument | undefined> {
	const attributesKey = nodeKey(nodePath, ZATTRS);
	for (const [file, kind] of [
		[ZARRAY, "array"],
		[ZGROUP, "group"],
	] as const) {
		// Only started here: its outcome (a refusal to record, say) is taken below, and only for a node that is there.
		if (member && kind === "array") opened.documents.readAhead([nodeKey(nodePath, ZARRAY), attributesKey]);
		const v2Text = readText(opened, nodePath, nodeKey(nodePath, file), where(opened, nodePath, file));
		const text = await v2Text;
		if (text === undefined) continue;
		const attributes = await readText(opened, nodePath, attributesKey, where(opened, nodePath, ZATTRS));
		return { node: parseV2NodeJson(kind, text, attributes, nodePath, where(opened, nodePath, file)), text };
	}
	return undefined;
}

/**
 * Reads and parses the metadata of a node: its zarr.json or, when there is none, its v2 `.zarray` or `.zgroup`
 * (v3 wins where both exist, as zarr-python opens a path). Undefined when the node has neither. `firstFormat`: the
 * format of the group the node is a member of, when known, looked for first, as zarr-python 3 reads a group's
 * members in the group's own format: a member of a v2 group costs no zarr.json probe (a request per array over an
 * object store), and is read as v2 where it has both. The other format's metadata is read when it has none.
 */
async function readOwnNodeDocument(opened: OpenedStore, nodePath: string, firstFormat?: ZarrFormat): Promise<NodeDocument | undefined> {
	if (firstFormat === 2) return (await readV2Document(opened, nodePath, true)) ?? (await readV3Document(opened, nodePath));
	if (firstFormat === undefined) opened.documents.readAhead(layoutProbes(nodePath));
	return (await readV3Document(opened, nodePath)) ?? (await readV2Document(opened, nodePath, false));
}

/**
 * The documents that may say what a node of unknown format is, asked for together (as zarr-python 3 opens a node of
 * unknown format), the store root's consolidated `.zmetadata` with them: over an object store each is a round trip of
 * 30-100 ms, and one after another they were five before the first array's. They are then taken in the order they
 * always were (zarr.json first, then the v2 documents), so the format that wins where several exist, and the error
 * where one fails, stay those of reading them one by one; a probe the answer does not need is never looked at.
 */
function layoutProbes(nodePath: string): AbsolutePath[] {
	return [...["zarr.json", ZARRAY, ZGROUP, ZATTRS], ...(nodePath === "" ? [ZMETADATA] : [])].map((file) => nodeKey(nodePath, file));
}

/**
 * The metadata of a node as the store's consolidated metadata gives it, when the store has some and lists the node
 * (xarray's open_zarr reads a store so by default, and zarr's open_consolidated), else its own documents. Its own
 * documents are read as well, and a difference is kept for the warning (stale-consolidated.ts): the store was
 * written to after it was consolidated. A node the consolidated metadata does not list is read from its own.
 */
export async function readNodeDocument(opened: OpenedStore, nodePath: string, firstFormat?: ZarrFormat): Promise<NodeDocument | undefined> {
	const reading = consolidatedViewOf(opened);
	// The node's own documents are asked for beside the store's, not after them; an error of the store's comes first.
	const ownReading = readOwnNodeDocument(opened, nodePath, firstFormat);
	ownReading.catch(() => undefined);
	const view = await reading;
	const own = await ownReading;
	if (view === undefined) return own;
	const listed = view.entries.get(nodePath);
	if (listed === undefined) {
		if (own !== undefined && nodePath !== "") recordStaleConsolidated(opened, nodePath, `${nodePath}: not in ${view.document}, which lists what xarray's open_zarr sees`);
		return own;
	}
	// A node the consolidated metadata holds unreadable is read from its own documents, as before.
	if (!("node" in listed)) return own;
	if (own === undefined) {
		recordStaleConsolidated(opened, nodePath, onlyConsolidatedDescription(nodePath, view.document, listed.node.zarrFormat === 2 ? (listed.node.kind === "array" ? ZARRAY : ZGROUP) : "zarr.json"));
	} else {
		const difference = describeDifference(nodePath, { json: own.node.json, attributes: attributesOf(own.node) }, { json: listed.node.json, attributes: attributesOf(listed.node) }, documentKey(nodePath, metadataFileOf(own.node)), view.document);
		if (difference !== undefined) recordStaleConsolidated(opened, nodePath, difference);
	}
	// A group's text is read for its own inline consolidated metadata, exactly (int64 fill values): its own document's.
	return { node: listed.node, text: listed.node.kind === "array" ? listed.node.text : (own?.text ?? JSON.stringify(listed.node.json)) };
}

/**
 * Starts reading the own documents of the members `paths` of a group of format `format` (a v2 member's `.zarray` and
 * `.zattrs`, a v3 member's zarr.json), all at once (METADATA_READS_IN_FLIGHT at a time): the arrays a table opens,
 * each then read by readNodeDocument in the order it is opened, which finds its documents read, and meets the first
 * failure where it met it reading one array after another. Over an object store the documents of 31 arrays were 31
 * round trips before the first chunk.
 */
export function readMembersAhead(opened: OpenedStore, paths: Iterable<string>, format: ZarrFormat): void {
	const files = format === 2 ? [ZARRAY, ZATTRS] : ["zarr.json"];
	opened.documents.readAhead([...paths].flatMap((nodePath) => files.map((file) => nodeKey(nodePath, file))));
}

/**
 * The node at `nodePath` as the store's consolidated metadata lists it, undefined where it has none or lists none
 * there (its own documents are not read): what an export will open, known before it opens it.
 */
export async function consolidatedNodeOf(opened: OpenedStore, nodePath: string): Promise<NodeMetadata | undefined> {
	const listed = (await consolidatedViewOf(opened))?.entries.get(nodePath);
	return listed !== undefined && "node" in listed ? listed.node : undefined;
}

/**
 * The arrays directly in the group at `group` as the store's consolidated metadata lists them (nothing is read but
 * the consolidated metadata, and no difference with their own documents is looked for); undefined where the store has
 * none, or it does not list the group.
 */
export async function consolidatedArraysOf(opened: OpenedStore, group: string): Promise<{ readonly path: string; readonly node: NodeMetadata }[] | undefined> {
	const view = await consolidatedViewOf(opened);
	if (view === undefined || !view.entries.has(group)) return undefined;
	const prefix = group === "" ? "" : `${group}/`;
	return [...view.entries.values()].flatMap((entry) => ("node" in entry && entry.node.kind === "array" && entry.path.startsWith(prefix) && !entry.path.slice(prefix.length).includes("/") ? [{ path: entry.path, node: entry.node }] : []));
}

/** The nodes a store's consolidated metadata lists, by path, and the document holding it. */
interface ConsolidatedView {
	readonly document: string;
	readonly entries: ReadonlyMap<string, TreeEntry>;
}

const consolidatedViews = new WeakMap<OpenedStore, Promise<ConsolidatedView | undefined>>();

/**
 * The store root's consolidated metadata, read once per opened store: a v3 root group's inline
 * `consolidated_metadata`, or a v2 store's `.zmetadata` (as xarray's open_zarr reads it, at the store root whatever
 * the group); undefined when there is none.
 */
function consolidatedViewOf(opened: OpenedStore): Promise<ConsolidatedView | undefined> {
	let view = consolidatedViews.get(opened);
	if (view === undefined) {
		view = readConsolidatedView(opened);
		consolidatedViews.set(opened, view);
		// A failed read is read again by whoever asks next (an abort, a reset past its retries).
		view.catch(() => consolidatedViews.delete(opened));
	}
	return view;
}

async function readConsolidatedView(opened: OpenedStore): Promise<ConsolidatedView | undefined> {
	const root = await readOwnNodeDocument(opened, "");
	if (root?.node.kind === "array") return undefined;
	if (root?.node.zarrFormat === 3) {
		const found = new Map<string, TreeEntry>();
		if (!consolidatedEntries(root.text, "", where(opened, ""), "zarr.json", found)) return undefined;
		found.set("", { path: "", node: root.node });
		return { document: "zarr.json (consolidated_metadata)", entries: found };
	}
	const text = await readText(opened, "", nodeKey("", ZMETADATA), where(opened, "", ZMETADATA));
	if (text === undefined) return undefined;
	const entries = new Map(zmetadataEntries(text, "", where(opened, "", ZMETADATA)).map((entry) => [entry.path, entry]));
	return { document: ZMETADATA, entries };
}

export async function readNode(opened: OpenedStore, nodePath: string, firstFormat?: ZarrFormat): Promise<NodeMetadata | undefined> {
	return (await readNodeDocument(opened, nodePath, firstFormat))?.node;
}

function join(parent: string, child: string): string {
	return parent ? `${parent}/${child}` : child;
}

/**
 * Names in code point order, as Python's `sorted` orders them (zarr-python lists a group's members so, and xarray
 * takes its variables in that order): the same on every machine. `localeCompare` ordered them by the user's locale
 * (`sv_SE` puts `Ä` after `z`, `en_US` before `b`) and case-blind (`precip` before `Tmax`).
 */
export function compareNames(a: string, b: string): number {
	for (let i = 0, j = 0; i < a.length && j < b.length; ) {
		const x = a.codePointAt(i)!;
		const y = b.codePointAt(j)!;
		if (x !== y) return x - y;
		i += x > 0xffff ? 2 : 1;
		j += y > 0xffff ? 2 : 1;
	}
	return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function comparePaths(a: string, b: string): number {
	const x = a === "" ? [] : a.split("/");
	const y = b === "" ? [] : b.split("/");
	for (let i = 0; i < Math.min(x.length, y.length); i++) {
		const order = compareNames(x[i], y[i]);
		if (order !== 0) return order;
	}
	return x.length - y.length;
}

async function entryAt(opened: OpenedStore, nodePath: string, groupFormat?: ZarrFormat): Promise<TreeEntry | undefined> {
	try {
		const document = await readNodeDocument(opened, nodePath, groupFormat);
		return document === undefined ? undefined : { path: nodePath, node: document.node };
	} catch (error) {
		// An abort is no node's error: the listing stops.
		throwIfAborted(opened.signal);
		return { path: nodePath, error: (error as Error).message };
	}
}

/** Walks the sub-folders of groups; the folders of arrays (their chunks) are not entered. */
async function walkDirectory(opened: OpenedStore, root: string, rootFormat: ZarrFormat): Promise<TreeEntry[]> {
	const found: TreeEntry[] = [];
	const walk = async (relative: string, format: ZarrFormat): Promise<void> => {
		const entries = await fs.readdir(path.join(opened.directory!, relative), { withFileTypes: true });
		for (const entry of entries.sort((a, b) => compareNames(a.name, b.name))) {
			if (!entry.isDirectory()) continue;
			const child = join(relative, entry.name);
			const node = await entryAt(opened, child, format);
			if (node === undefined) continue;
			found.push(node);
			if ("node" in node && node.node.kind === "group") await walk(child, node.node.zarrFormat);
		}
	};
	await walk(root, rootFormat);
	return found;
}

/**
 * `read` of each item, `width` items at a time (the next starts as one ends, not batch after batch), the results
 * in the items' order whatever order they end in.
 */
async function mapInOrder<T, R>(items: readonly T[], width: number, read: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array(items.length);
	let next = 0;
	const lane = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await read(items[index]);
		}
	};
	await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
	return results;
}

/**
 * Lists an object store's prefixes below `root`, group by group (the prefixes of arrays, their chunks, are not
 * listed), reading the metadata of each child prefix; a prefix without any is not a node and is skipped. A listing
 * names the child prefixes, not the documents in them (listing each would list a v2 array's chunks too): each
 * child's documents are read in its group's format, many children at once (the store bounds the reads in flight,
 * see metadata-documents.ts), their entries kept in path order whatever order the answers come in. The walk is
 * bounded (listing-bounds.ts): the server decides what its listings say.
 */
async function walkListing(opened: OpenedStore, root: string, rootFormat: ZarrFormat): Promise<TreeEntry[]> {
	const found: TreeEntry[] = [];
	let members = 0;
	const walk = async (group: string, format: ZarrFormat, depth: number): Promise<void> => {
		if (depth > MAX_LISTED_DEPTH) throw listedTooDeep(opened.location);
		const { folders } = await opened.list!(group, opened.signal);
		members += folders.length;
		if (members > MAX_LISTED_MEMBERS) throw listedTooMany(opened.location);
		const children = folders.filter((name) => name !== "." && name !== "..").map((name) => join(group, name));
		// As many children as reads in flight, each with its reads queued: a group of 100,000 arrays holds no more.
		const entries = await mapInOrder(children, METADATA_READS_IN_FLIGHT, (child) => entryAt(opened, child, format));
		for (const entry of entries) {
			if (entry === undefined) continue;
			found.push(entry);
			if ("node" in entry && entry.node.kind === "group") await walk(entry.path, entry.node.zarrFormat, depth + 1);
		}
	};
	await walk(root, rootFormat, 0);
	return found;
}

const METADATA_FILES = ["zarr.json", ZARRAY, ZGROUP];

/** Every node (a `zarr.json`, `.zarray` or `.zgroup`) among the zip's entries below `root`, except the root. */
async function listZip(opened: OpenedStore, root: string): Promise<TreeEntry[]> {
	const prefix = root ? `${root}/` : "";
	const nodePaths = opened.entries!.flatMap((name) => {
		const file = METADATA_FILES.find((candidate) => name.endsWith(`/${candidate}`));
		return file !== undefined && name.startsWith(prefix) ? [name.slice(0, -file.length - 1)] : [];
	});
	const paths = [...new Set(nodePaths)].filter(
		(nodePath) => nodePath.length > root.length && !nodePath.split("/").some((part) => part === "" || part === "." || part === ".."),
	);
	const entries: TreeEntry[] = [];
	for (const nodePath of paths) {
		const entry = await entryAt(opened, nodePath);
		if (entry !== undefined) entries.push(entry);
	}
	return entries;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The nodes in a group's inline consolidated metadata, keyed by path relative to `prefix`'s group. The
 * metadata of each node is cut out of the document's text, so that int64 fill values stay exact; nested groups
 * with consolidated metadata of their own add theirs. `document`: the store key of the zarr.json holding them all.
 */
function consolidatedEntries(groupText: string, prefix: string, shownAs: string, document: string, out: Map<string, TreeEntry>): boolean {
	const consolidatedText = rawMemberText(groupText, "consolidated_metadata");
	if (consolidatedText === undefined) return false;
	const consolidated: unknown = JSON.parse(consolidatedText);
	// Another kind than "inline" is not one this reader knows: the metadata is then as good as absent.
	if (!isObject(consolidated) || consolidated.kind !== "inline" || !isObject(consolidated.metadata)) return false;
	const members = rawMembers(rawMemberText(consolidatedText, "metadata")!);
	for (const [key, value] of Object.entries(consolidated.metadata)) {
		const nodePath = join(prefix, key);
		if (out.has(nodePath) || key.split("/").some((part) => part === "" || part === "." || part === "..")) continue;
		try {
			if (!isObject(value)) {
				throw new Dt64ExportError("METADATA_INVALID", `${shownAs}: consolidated metadata of ${JSON.stringify(key)} is not an object`, { path: document, field: "consolidated_metadata" });
			}
			// Only datetime arrays need their exact text (the fill value), and arrays whose text may write an integer
			// past 2^53 (a marker attribute's, see exact-integers.ts); re-serializing the rest is cheaper.
			const needsText = value.node_type === "group" || isObject(value.data_type) || /\d{16}/.test(members.get(key)!);
			const text = needsText ? members.get(key)! : JSON.stringify(value);
			const node = parseNodeJson(text, nodePath, `${shownAs} (consolidated metadata of ${JSON.stringify(key)})`, document);
			out.set(nodePath, { path: nodePath, node });
			if (node.kind === "group") consolidatedEntries(text, nodePath, shownAs, document, out);
		} catch (error) {
			out.set(nodePath, { path: nodePath, error: (error as Error).message });
		}
	}
	return true;
}

/**
 * Zarr v2 consolidated metadata, `{"metadata": {".zgroup": ..., "a/.zarray": ..., "a/.zattrs": ...}}`, keys
 * relative to the group at `prefix`. Each document is cut out of the text, so that int64 fill values stay exact.
 */
function zmetadataEntries(text: string, prefix: string, shownAs: string): TreeEntry[] {
	const document = documentKey(prefix, ZMETADATA);
	const json = parseJson(text, shownAs, document);
	if (!isObject(json) || !isObject(json.metadata)) throw new Dt64ExportError("METADATA_INVALID", `${shownAs}: expected {"metadata": {...}}`, { path: document, field: "metadata" });
	// zarr-python 2's open_consolidated, which xarray's open_zarr calls, refuses any other format (or none): a document
	// of a format it does not know cannot be taken to list the store's arrays as format 1 does.
	if (json.zarr_consolidated_format !== 1) {
		const found = json.zarr_consolidated_format === undefined ? "missing" : `${JSON.stringify(json.zarr_consolidated_format)}`;
		throw new Dt64ExportError(
			"METADATA_INVALID",
			`${shownAs}: zarr_consolidated_format is ${found}, expected 1, the only consolidated metadata format zarr-python 2 and xarray read (both refuse this store); remove ${ZMETADATA} to read the arrays' own metadata, or write it again with zarr.consolidate_metadata(store)`,
			{ path: document, field: "zarr_consolidated_format" },
		);
	}
	const members = rawMembers(rawMemberText(text, "metadata")!);
	const entries: TreeEntry[] = [];
	for (const key of Object.keys(json.metadata)) {
		const match = /^(?:(.*)\/)?\.z(group|array)$/.exec(key);
		if (match === null) continue;
		const relative = match[1] ?? "";
		if (relative !== "" && relative.split("/").some((part) => part === "" || part === "." || part === "..")) continue;
		const nodePath = join(prefix, relative);
		try {
			const attributesText = members.get(`${relative ? `${relative}/` : ""}${ZATTRS}`);
			const node = parseV2NodeJson(match[2] as "group" | "array", members.get(key)!, attributesText, nodePath, `${shownAs} (metadata of ${JSON.stringify(key)})`, document);
			entries.push({ path: nodePath, node });
		} catch (error) {
			entries.push({ path: nodePath, error: (error as Error).message });
		}
	}
	return entries;
}

/** The `.zmetadata` of the group at `root`, or else the store root's entries below `root`. */
async function zmetadataBelow(opened: OpenedStore, root: string): Promise<TreeEntry[] | undefined> {
	for (const group of root === "" ? [""] : [root, ""]) {
		const shownAs = where(opened, group, ZMETADATA);
		const text = await readText(opened, group, nodeKey(group, ZMETADATA), shownAs);
		if (text === undefined) continue;
		const entries = zmetadataEntries(text, group, shownAs);
		return group === root ? entries : entries.filter((entry) => entry.path.startsWith(`${root}/`));
	}
	return undefined;
}

async function consolidatedBelow(opened: OpenedStore, root: string, rootText: string): Promise<TreeEntry[] | undefined> {
	const found = new Map<string, TreeEntry>();
	if (consolidatedEntries(rootText, root, where(opened, root), documentKey(root, "zarr.json"), found)) return [...found.values()];
	if (root === "") return undefined;
	// A subgroup without its own: the store root's may list it and its children.
	const storeRoot = await readNodeDocument(opened, "").catch(() => {
		throwIfAborted(opened.signal);
		return undefined;
	});
	if (storeRoot === undefined || storeRoot.node.kind !== "group") return undefined;
	if (!consolidatedEntries(storeRoot.text, "", where(opened, ""), "zarr.json", found)) return undefined;
	return [...found.values()].filter((entry) => entry.path.startsWith(`${root}/`));
}

function sorted(rootEntry: TreeEntry, descendants: TreeEntry[], discovery: TreeDiscovery): StoreTree {
	return { entries: [rootEntry, ...descendants.filter((e) => e.path !== rootEntry.path).sort((a, b) => comparePaths(a.path, b.path))], discovery };
}

/**
 * The error for a location that holds no node: ARRAY_NOT_FOUND, or ACCESS_DENIED when its probes were refused by a
 * bucket that answers 403 for missing keys (see refused-probes.ts).
 */
export function noNodeError(opened: OpenedStore, nodePath: string): Dt64ExportError {
	return nodeNotFound(opened, opened.location, nodePath, () =>
		new Dt64ExportError("ARRAY_NOT_FOUND", `${opened.location}${nodePath ? `/${nodePath}` : ""}: no zarr.json, .zarray or .zgroup (not a Zarr array or group)${inZipFolder(opened, nodePath) ?? nodesInside(opened, nodePath)}`, { path: nodePath }),
	);
}

/**
 * A path that starts with the folder a zip holds its store in (`zip -r store.zip store.zarr`): that folder is the
 * store's root, so paths start inside it; said rather than guessed.
 */
function inZipFolder(opened: OpenedStore, nodePath: string): string | undefined {
	const folder = opened.zipFolder;
	if (folder === undefined || (nodePath !== folder && !nodePath.startsWith(`${folder}/`))) return undefined;
	const inside = nodePath.slice(folder.length + 1);
	return ` (the zip holds the store in its folder ${folder}/, which is the store's root: ${inside === "" ? `name no path for the root` : `the path is ${inside}`})`;
}

/**
 * For a local folder that is no node: the Zarr nodes just inside it, as a hint (a folder that holds `store.zarr`,
 * named instead of the store); nothing for other stores, whose listing would cost requests.
 */
function nodesInside(opened: OpenedStore, nodePath: string): string {
	if (opened.directory === undefined) return "";
	const folder = path.join(opened.directory, nodePath);
	let names: string[];
	try {
		names = readdirSync(folder).sort();
	} catch {
		return "";
	}
	const nodes = names.filter((name) => ["zarr.json", ZARRAY, ZGROUP].some((document) => existsSync(path.join(folder, name, document))));
	if (nodes.length === 0) return "";
	const shown = nodes.slice(0, 3).map((name) => JSON.stringify(name)).join(", ") + (nodes.length > 3 ? ` and ${nodes.length - 3} more` : "");
	return `; it holds the Zarr node${nodes.length === 1 ? "" : "s"} ${shown}: name ${nodes.length === 1 ? "that" : "one"} as the store (${path.join(folder, nodes[0])}), or as the array inside this one (${nodePath ? `${nodePath}/` : ""}${nodes[0]})`;
}

/**
 * The tree of nodes starting at `root`. `rootDocument` is the root's metadata when the caller already read it.
 * A store with no metadata at the top but a `.zmetadata` is listed as a v2 store.
 */
export async function listStoreTree(opened: OpenedStore, root: string, rootDocument?: NodeDocument): Promise<StoreTree> {
	const document = rootDocument ?? (await readNodeDocument(opened, root));
	if (document === undefined) {
		const v2 = root === "" ? await zmetadataBelow(opened, "") : undefined;
		if (v2 === undefined) throw noNodeError(opened, root);
		const top = v2.find((entry) => entry.path === "") ?? { path: "", node: { kind: "group" as const, zarrFormat: 2 as const, path: "", json: { zarr_format: 2 }, attributes: {} } };
		return sorted(top, v2, "consolidated-v2");
	}
	const rootEntry: TreeEntry = { path: root, node: document.node };
	if (document.node.kind === "array") {
		const discovery = opened.directory !== undefined ? "directory" : opened.entries !== undefined ? "zip" : opened.list !== undefined ? "listing" : "root-only";
		return { entries: [rootEntry], discovery };
	}
	// A folder or a zip is listed whole (cheap), each node read as the consolidated metadata gives it, and what that
	// does not list is left out, as xarray leaves it out (readNodeDocument keeps the difference for the warning).
	if (opened.directory !== undefined) return sorted(rootEntry, await asConsolidated(opened, root, await walkDirectory(opened, root, document.node.zarrFormat)), "directory");
	if (opened.entries !== undefined) return sorted(rootEntry, await asConsolidated(opened, root, await listZip(opened, root)), "zip");
	if (document.node.zarrFormat === 2) {
		const v2 = await zmetadataBelow(opened, root);
		if (v2 !== undefined) return sorted(rootEntry, v2, "consolidated-v2");
	} else {
		const consolidated = await consolidatedBelow(opened, root, document.text);
		if (consolidated !== undefined) return sorted(rootEntry, consolidated, "consolidated");
	}
	if (opened.list !== undefined) return sorted(rootEntry, await walkListing(opened, root, document.node.zarrFormat), "listing");
	return { entries: [rootEntry], discovery: "root-only" };
}

/**
 * The nodes below `root` as the store's consolidated metadata lists them, when it has some: the listed entries found
 * (`listed`, by a walk or a zip's entries), and the nodes it lists that were not found there, a node without a
 * folder of its own (no `.zarray`, no chunk: every value its fill value), which zarr-python's open_consolidated and
 * xarray's open_zarr read as listed, as a single array named by its path is read (readNodeDocument, which keeps
 * the missing document for the warning). Without consolidated metadata, what was found.
 */
async function asConsolidated(opened: OpenedStore, root: string, found: TreeEntry[]): Promise<TreeEntry[]> {
	const view = await consolidatedViewOf(opened);
	if (view === undefined) return found;
	const paths = new Set(found.map((entry) => entry.path));
	const prefix = root === "" ? "" : `${root}/`;
	const unfound = [...view.entries.values()].filter((entry) => entry.path !== root && entry.path.startsWith(prefix) && !paths.has(entry.path));
	const read = await mapInOrder(unfound, METADATA_READS_IN_FLIGHT, (entry) => entryAt(opened, entry.path, "node" in entry ? entry.node.zarrFormat : undefined));
	return [...found.filter((entry) => view.entries.has(entry.path)), ...read.filter((entry): entry is TreeEntry => entry !== undefined)];
}

/** The paths of the datetime64 (and timedelta64) arrays of a tree, below its root. */
export function timeArrayPaths(tree: StoreTree, options: { cf?: boolean } = {}): string[] {
	const cf = options.cf !== false;
	return tree.entries.slice(1).flatMap((entry) => ("node" in entry && (isTimeArray(entry.node) || (cf && isCfTimeArray(entry.node))) ? [entry.path] : []));
}

/** The nodes of a tree below its root whose metadata is refused (a walk does not enter them), in path order. */
export function refusedNodesIn(tree: StoreTree): RefusedNode[] {
	return tree.entries.slice(1).flatMap((entry) => ("error" in entry ? [{ path: entry.path, reason: entry.error }] : []));
}

/** The CF time arrays of a tree, named when decoding is off and no other time array is found. */
export function cfTimeArrayPaths(tree: StoreTree): string[] {
	return tree.entries.slice(1).flatMap((entry) => ("node" in entry && isCfTimeArray(entry.node) ? [entry.path] : []));
}
