/**
 * Discovery of a group's one time array (no `array` named) and CF boundary variables: a `time_bnds` of instants, as
 * xarray writes it, has `units` and a `calendar` of its own and is a time array by its attributes, yet it is never
 * the array meant by "the time array" of a group holding its coordinate. Found among the nodes the tree already read
 * (a walked folder, a zip, a listing: every array of the group, so an auxiliary coordinate's bounds, `valid_bnds` of
 * a 2-D `valid_time`, are found without consolidated metadata too), else as bounds-parent.ts finds a boundary
 * variable's coordinate (boundedCoordinateOf): nothing more is read.
 */
import type { OpenedStore } from "../store/open-store.js";
import { listStoreTree, type StoreTree } from "../store-tree.js";
import { attributesOf, type NodeMetadata } from "../zarr/array-metadata.js";
import { boundedCoordinateOf } from "./bounds-parent.js";
import { cellBoundsNamedBy } from "../cf/bounds-attributes.js";

/** The candidates that are no boundary variable of another candidate (`kept`), and those that are (`boundaries`). */
export interface BoundsCandidates {
	readonly kept: string[];
	readonly boundaries: string[];
}

/**
 * The arrays that another array of the same group names by its CF `bounds` or `climatology`, among `nodes` (a tree's,
 * by path): each array's path to the name of the array naming it (the first, in the tree's order). One pass.
 */
export function boundsNamedIn(nodes: ReadonlyMap<string, NodeMetadata>): Map<string, string> {
	const named = new Map<string, string>();
	for (const [path, node] of nodes) {
		if (node.kind !== "array") continue;
		for (const boundsPath of cellBoundsNamedBy(path, attributesOf(node))) if (!named.has(boundsPath)) named.set(boundsPath, path.slice(path.lastIndexOf("/") + 1));
	}
	return named;
}

/** Splits a group tree's time arrays (`candidates`, paths of `tree`'s entries) into the boundary variables of another candidate and the others. */
export async function withoutBoundaryVariables(opened: OpenedStore, tree: StoreTree, candidates: readonly string[]): Promise<BoundsCandidates> {
	const nodes = new Map<string, NodeMetadata>();
	for (const entry of tree.entries) if ("node" in entry) nodes.set(entry.path, entry.node);
	const lookup = async (path: string) => nodes.get(path);
	const named = boundsNamedIn(nodes);
	const timeArrays = new Set(candidates);
	const kept: string[] = [];
	const boundaries: string[] = [];
	for (const candidate of candidates) {
		const node = nodes.get(candidate);
		const slash = candidate.lastIndexOf("/");
		const group = slash < 0 ? "" : candidate.slice(0, slash);
		const groupNode = nodes.get(group);
		const inTree = named.get(candidate);
		const found = inTree === undefined && node?.kind === "array" && groupNode?.kind === "group" ? await boundedCoordinateOf(opened, { path: group, format: groupNode.zarrFormat }, node, lookup) : undefined;
		const coordinate = inTree ?? (found !== undefined && "coordinate" in found ? found.coordinate : undefined);
		const coordinatePath = coordinate === undefined ? undefined : group === "" ? coordinate : `${group}/${coordinate}`;
		if (coordinatePath !== undefined && coordinatePath !== candidate && timeArrays.has(coordinatePath)) boundaries.push(candidate);
		else kept.push(candidate);
	}
	return { kept, boundaries };
}

/**
 * The coordinates naming `paths` (arrays of `group`, opened as `unseenBounds`: no consolidated metadata, no dimension
 * coordinate naming them) by their `bounds` or `climatology`, found as discovery finds them: among the group's
 * arrays, where reading them all is cheap (a local folder, a zip). Over a remote store that would be a request per
 * array: nothing is read and nothing found. For a refusal to say whose bounds they are (select/time-selection.ts).
 */
export async function unseenBoundsOwners(opened: OpenedStore, group: string, paths: readonly string[]): Promise<Map<string, string>> {
	const owners = new Map<string, string>();
	if (paths.length === 0 || (opened.directory === undefined && opened.entries === undefined)) return owners;
	const tree = await listStoreTree(opened, group);
	const nodes = new Map<string, NodeMetadata>();
	for (const entry of tree.entries) if ("node" in entry) nodes.set(entry.path, entry.node);
	const named = boundsNamedIn(nodes);
	for (const path of paths) {
		const owner = named.get(path);
		if (owner !== undefined) owners.set(path, owner);
	}
	return owners;
}
