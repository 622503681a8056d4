/**
 * Finds the coordinate whose CF `bounds` attribute names an array of a group, for the attributes the array takes
 * from it (src/cf/bounds-attributes.ts). xarray looks at every variable of the dataset; here the array's dimension
 * coordinates are looked at first (a boundary variable `time_bnds(time, nv)` belongs to `time`: their documents are
 * read for the index anyway), then every array of the group where the group's members are known without a request
 * per array: a folder, a zip, or consolidated metadata (what xarray writes and open_zarr reads). An object store or
 * HTTP store without consolidated metadata is not listed for this (a request per array of the group): there an
 * auxiliary coordinate's bounds (`valid_time_bnds` of a 2-D `valid_time`) keep their own attributes.
 */
import { throwIfAborted } from "../abort.js";
import { boundsParentOf, boundsParentsByPath, mayTakeBoundsAttributes, withBoundsAttributes, type BoundsParent } from "../cf/bounds-attributes.js";
import type { OpenedStore } from "../store/open-store.js";
import { consolidatedNodeOf, listStoreTree, readNodeDocument, type NodeDocument, type ZarrFormat } from "../store-tree.js";
import { attributesOf, isTimeArray, type ArrayNode, type NodeMetadata } from "../zarr/array-metadata.js";

/** A group of the store by path, and the format its members are read in first. */
export interface BoundsGroup {
	readonly path: string;
	readonly format: ZarrFormat;
}

const memberPath = (group: string, name: string) => (group === "" ? name : `${group}/${name}`);

function dimensionNamesOf(node: NodeMetadata): string[] {
	const names = node.zarrFormat === 2 ? attributesOf(node)._ARRAY_DIMENSIONS : node.json.dimension_names;
	return Array.isArray(names) ? [...new Set(names.filter((name): name is string => typeof name === "string" && name !== "" && !name.includes("/")))] : [];
}

/** The parents the group's arrays name, by the boundary variable's path; the first one (in name order) wins, as xarray's setdefault. */
const groupParents = new WeakMap<OpenedStore, Map<string, Promise<ReadonlyMap<string, BoundsParent>>>>();

async function listParents(opened: OpenedStore, group: string): Promise<ReadonlyMap<string, BoundsParent>> {
	const listable = opened.directory !== undefined || opened.entries !== undefined || (await consolidatedNodeOf(opened, group)) !== undefined;
	if (!listable) return new Map();
	const tree = await listStoreTree(opened, group);
	const members = tree.entries.slice(1).flatMap((entry) => ("node" in entry && entry.node.kind === "array" && !entry.path.slice(group === "" ? 0 : group.length + 1).includes("/") ? [{ path: entry.path, attributes: attributesOf(entry.node) }] : []));
	return boundsParentsByPath(members);
}

function parentsOfGroup(opened: OpenedStore, group: string): Promise<ReadonlyMap<string, BoundsParent>> {
	let byGroup = groupParents.get(opened);
	if (byGroup === undefined) {
		byGroup = new Map();
		groupParents.set(opened, byGroup);
	}
	let parents = byGroup.get(group);
	if (parents === undefined) {
		parents = listParents(opened, group);
		byGroup.set(group, parents);
		// A failed listing is read again by whoever asks next (an abort, a reset past its retries).
		parents.catch(() => byGroup.delete(group));
	}
	return parents;
}

/** The parent among the array's dimension coordinates, if one names it. */
async function dimensionParent(opened: OpenedStore, group: BoundsGroup, name: string, node: ArrayNode): Promise<BoundsParent | undefined> {
	for (const dimension of dimensionNamesOf(node)) {
		if (dimension === name) continue;
		let document: NodeDocument | undefined;
		try {
			document = await readNodeDocument(opened, memberPath(group.path, dimension), group.format);
		} catch {
			// A coordinate that cannot be read is refused where it is read as one; it is no parent here.
			throwIfAborted(opened.signal);
			continue;
		}
		if (document === undefined || document.node.kind !== "array") continue;
		const named = boundsParentOf(dimension, attributesOf(document.node));
		if (named?.bounds === name) return named.parent;
	}
	return undefined;
}

/**
 * The array `node` of `group` with the `units` and `calendar` it takes as a coordinate's boundary variable; the node
 * itself when it is no such variable, or lacks nothing, or is a datetime64 array (no CF time).
 */
export async function withBoundsAttributesOf(opened: OpenedStore, group: BoundsGroup, node: ArrayNode): Promise<ArrayNode> {
	if (isTimeArray(node) || !mayTakeBoundsAttributes(node)) return node;
	const name = group.path === "" ? node.path : node.path.slice(group.path.length + 1);
	const parent = (await dimensionParent(opened, group, name, node)) ?? (await parentsOfGroup(opened, group.path)).get(node.path);
	return parent === undefined ? node : withBoundsAttributes(node, parent);
}
