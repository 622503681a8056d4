/**
 * Discovery of a group's one time array (no `array` named) and CF boundary variables: a `time_bnds` of instants, as
 * xarray writes it, has `units` and a `calendar` of its own and is a time array by its attributes, yet it is never
 * the array meant by "the time array" of a group holding its coordinate. Found as bounds-parent.ts finds a boundary
 * variable's coordinate (boundedCoordinateOf), from the nodes the tree already read: nothing more is read.
 */
import type { OpenedStore } from "../store/open-store.js";
import type { StoreTree } from "../store-tree.js";
import type { NodeMetadata } from "../zarr/array-metadata.js";
import { boundedCoordinateOf } from "./bounds-parent.js";

/** The candidates that are no boundary variable of another candidate (`kept`), and those that are (`boundaries`). */
export interface BoundsCandidates {
	readonly kept: string[];
	readonly boundaries: string[];
}

/** Splits a group tree's time arrays (`candidates`, paths of `tree`'s entries) into the boundary variables of another candidate and the others. */
export async function withoutBoundaryVariables(opened: OpenedStore, tree: StoreTree, candidates: readonly string[]): Promise<BoundsCandidates> {
	const nodes = new Map<string, NodeMetadata>();
	for (const entry of tree.entries) if ("node" in entry) nodes.set(entry.path, entry.node);
	const lookup = async (path: string) => nodes.get(path);
	const kept: string[] = [];
	const boundaries: string[] = [];
	for (const candidate of candidates) {
		const node = nodes.get(candidate);
		const slash = candidate.lastIndexOf("/");
		const group = slash < 0 ? "" : candidate.slice(0, slash);
		const groupNode = nodes.get(group);
		const found = node?.kind === "array" && groupNode?.kind === "group" ? await boundedCoordinateOf(opened, { path: group, format: groupNode.zarrFormat }, node, lookup) : undefined;
		const coordinate = found !== undefined && "coordinate" in found ? found.coordinate : undefined;
		const coordinatePath = coordinate === undefined ? undefined : group === "" ? coordinate : `${group}/${coordinate}`;
		if (coordinatePath !== undefined && coordinatePath !== candidate && candidates.includes(coordinatePath)) boundaries.push(candidate);
		else kept.push(candidate);
	}
	return { kept, boundaries };
}
