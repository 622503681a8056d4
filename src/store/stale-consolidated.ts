/**
 * Where a store's consolidated metadata (`.zmetadata`, or a v3 group's inline `consolidated_metadata`) disagrees
 * with the documents of the nodes it lists: a store appended to (`to_zarr(append_dim=..., consolidated=False)`) or
 * given a variable (`mode="a"`) after it was consolidated. The consolidated metadata is what xarray's `open_zarr`
 * reads by default, and what every export and inspect read (store-tree.ts); each difference seen where a node's own
 * documents are read as well is kept here, per opened store, for the warning that says so.
 */
import type { OpenedStore } from "./open-store.js";

const found = new WeakMap<OpenedStore, Map<string, string>>();

/** Keeps what was seen of the node at `path` (one description per node: the first seen). */
export function recordStaleConsolidated(opened: OpenedStore, path: string, description: string): void {
	let seen = found.get(opened);
	if (seen === undefined) found.set(opened, (seen = new Map()));
	if (!seen.has(path)) seen.set(path, description);
}

/** Whether the consolidated metadata of the node at `path` was seen to differ from its own documents (or they are missing). */
export function isStaleConsolidated(opened: OpenedStore, path: string): boolean {
	return found.get(opened)?.has(path) === true;
}

/** The differences seen so far, in path order: `time: shape [8] in time/.zarray, [4] in .zmetadata`. */
export function staleConsolidatedOf(opened: OpenedStore): string[] {
	const seen = found.get(opened);
	return seen === undefined ? [] : [...seen.keys()].sort().map((path) => seen.get(path)!);
}

/** Sorted keys at every level: two documents with the same members in another order are the same. */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
	if (typeof value === "object" && value !== null) {
		const object = value as Record<string, unknown>;
		return `{${Object.keys(object).sort().map((key) => `${JSON.stringify(key)}:${canonical(object[key])}`).join(",")}}`;
	}
	// An integer a marker attribute writes past 2^53 is read exactly, as a bigint (see exact-integers.ts).
	if (typeof value === "bigint") return value.toString();
	return JSON.stringify(value) ?? "undefined";
}

/**
 * How a node's own document (`own`, named `ownDocument`) differs from what the consolidated metadata (`listed`, in
 * `consolidatedDocument`) says of it; undefined when they agree. The shape is spelled out (an append changes it),
 * other members and the attributes are named.
 */
export function describeDifference(
	path: string,
	own: { json: Record<string, unknown>; attributes: Record<string, unknown> },
	listed: { json: Record<string, unknown>; attributes: Record<string, unknown> },
	ownDocument: string,
	consolidatedDocument: string,
): string | undefined {
	const members = [...new Set([...Object.keys(own.json), ...Object.keys(listed.json)])].filter((key) => key !== "attributes" && key !== "consolidated_metadata" && canonical(own.json[key]) !== canonical(listed.json[key]));
	const differs = members.filter((key) => key !== "shape");
	if (canonical(own.attributes) !== canonical(listed.attributes)) differs.push("attributes");
	if (members.length === 0 && differs.length === 0) return undefined;
	const name = path === "" ? "the root" : path;
	const shape = members.includes("shape") ? ` shape ${canonical(own.json.shape)} in ${ownDocument}, ${canonical(listed.json.shape)} in ${consolidatedDocument}` : "";
	const others = differs.length === 0 ? "" : `${shape === "" ? "" : ";"} ${differs.join(", ")} differ${differs.length === 1 ? "s" : ""} between ${ownDocument} and ${consolidatedDocument}`;
	return `${name}:${shape}${others}`;
}

/**
 * What is said of a node the consolidated metadata (`consolidatedDocument`) lists without a document of its own
 * (`ownDocument`, `.zarray` or `zarr.json`): `no_zarray: in .zmetadata, but no .zarray of its own`.
 */
export function onlyConsolidatedDescription(path: string, consolidatedDocument: string, ownDocument: string): string {
	return `${path === "" ? "the root" : path}: in ${consolidatedDocument}, but no ${ownDocument} of its own`;
}

/** The node's name in a description of onlyConsolidatedDescription's; undefined for a description of another kind. */
function onlyConsolidatedNode(description: string): string | undefined {
	return /^(.*): in \S+, but no \S+ of its own$/s.exec(description)?.[1];
}

/**
 * The warning for a store whose consolidated metadata disagrees with its nodes' own documents: what differs, what
 * was read, what xarray sees and how to update the store. A node whose metadata is only in the consolidated metadata
 * (its own document never written, or removed) is not said to be written to since: consolidating the store again
 * would drop it. Undefined when nothing differs.
 */
export function staleConsolidatedWarning(differences: readonly string[]): string | undefined {
	if (differences.length === 0) return undefined;
	const only = differences.filter((description) => onlyConsolidatedNode(description) !== undefined);
	const stale = differences.filter((description) => onlyConsolidatedNode(description) === undefined);
	const read = "Read as the consolidated metadata says, as xarray's open_zarr reads the store by default";
	if (only.length === 0) {
		return `the store's consolidated metadata is stale (written to since it was consolidated): ${stale.join("; ")}. ${read} (open_zarr(..., consolidated=False) reads the arrays' own metadata); update it with zarr.consolidate_metadata(store)`;
	}
	const names = only.map((description) => onlyConsolidatedNode(description)!);
	const them = names.length === 1 ? names[0] : names.join(", ");
	const onlyThere = `the metadata of ${them} is only in the store's consolidated metadata (no document of ${names.length === 1 ? "its" : "their"} own: never written, or removed since): ${only.join("; ")}`;
	if (stale.length === 0) {
		return `${onlyThere}. ${read} (open_zarr(..., consolidated=False) does not find ${names.length === 1 ? "it" : "them"}, and zarr.consolidate_metadata(store) would leave ${names.length === 1 ? "it" : "them"} out)`;
	}
	return `the store's consolidated metadata is stale (written to since it was consolidated): ${stale.join("; ")}; and ${onlyThere}. ${read} (open_zarr(..., consolidated=False) reads the arrays' own metadata, and does not find ${them}); update it with zarr.consolidate_metadata(store), which leaves ${them} out`;
}
