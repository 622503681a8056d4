/**
 * Finds the coordinate whose CF `bounds` attribute names an array of a group, for the attributes the array takes
 * from it (src/cf/bounds-attributes.ts). xarray looks at every variable of the dataset; so does this where the store's
 * consolidated metadata (what xarray writes, and what open_zarr reads) lists the group: nothing more is read. Without
 * it, reading every array's metadata to find one would cost a request per array of the group over an object store,
 * and an export reads only the arrays it needs: the coordinates looked at are then the array's dimension coordinates
 * (`time` for `time_bnds(time, nv)`), for an array without any `units` over at least two dimensions (a boundary
 * variable has its coordinate's dimensions and one more), so that a data variable costs no read; there the bounds of
 * an auxiliary coordinate (`valid_bnds` of a 2-D `valid_time`) keep their own attributes.
 */
import { throwIfAborted } from "../abort.js";
import { boundsParentOf, boundsParentsByPath, mayTakeBoundsAttributes, withBoundsAttributes, type BoundsParent } from "../cf/bounds-attributes.js";
import type { OpenedStore } from "../store/open-store.js";
import { consolidatedArraysOf, readNodeDocument, type ZarrFormat } from "../store-tree.js";
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

/** The parents of each group of an opened store, made once: boundsParentFor looks up one array of many in them. */
const parentsByGroup = new WeakMap<OpenedStore, Map<string, Promise<ReadonlyMap<string, BoundsParent> | undefined>>>();

/**
 * The parents the consolidated metadata's arrays of a group name, by the boundary variable's path; undefined without
 * it. Made once per opened store and group: made for each array opened, a table of all a group's N arrays cost N x N
 * (trial 28, finding 06: --columns all of 12,000 arrays, 41 s of CPU, twice 6,000's thrice over).
 */
function consolidatedParents(opened: OpenedStore, group: string): Promise<ReadonlyMap<string, BoundsParent> | undefined> {
	let groups = parentsByGroup.get(opened);
	if (groups === undefined) parentsByGroup.set(opened, (groups = new Map()));
	let parents = groups.get(group);
	if (parents === undefined) {
		parents = consolidatedArraysOf(opened, group).then((arrays) =>
			arrays === undefined ? undefined : boundsParentsByPath(arrays.map(({ path, node }) => ({ path, attributes: attributesOf(node) }))),
		);
		groups.set(group, parents);
		// A failed read (an abort, a reset past its retries) is made again by whoever asks next, as the view it reads.
		const made = parents;
		made.catch(() => {
			if (groups.get(group) === made) groups.delete(group);
		});
	}
	return parents;
}

/** The node at a path of the store, as the caller reads it (an export: its metadata documents; inspect: its tree). */
export type NodeLookup = (path: string) => Promise<NodeMetadata | undefined>;

/** Reads a node's documents in the group's format; a node that cannot be read is none (it is refused where it is read as itself). */
function documentLookup(opened: OpenedStore, format: ZarrFormat): NodeLookup {
	return async (path) => {
		try {
			return (await readNodeDocument(opened, path, format))?.node;
		} catch {
			throwIfAborted(opened.signal);
			return undefined;
		}
	};
}

/** The parent among the array's dimension coordinates, if one names it. */
async function dimensionParent(group: string, name: string, node: ArrayNode, lookup: NodeLookup): Promise<BoundsParent | undefined> {
	const dimensions = dimensionNamesOf(node);
	if (attributesOf(node).units !== undefined || dimensions.length < 2) return undefined;
	for (const dimension of dimensions) {
		if (dimension === name) continue;
		const coordinate = await lookup(memberPath(group, dimension));
		if (coordinate === undefined || coordinate.kind !== "array") continue;
		const named = boundsParentOf(dimension, attributesOf(coordinate));
		if (named?.bounds === name) return named.parent;
	}
	return undefined;
}

/**
 * The coordinate the array `node` of `group` takes `units` or `calendar` from as its boundary variable; undefined when
 * it is no such variable, or lacks neither, or is a datetime64 array (no CF time). `lookup` finds a dimension
 * coordinate where the store has no consolidated metadata (the documents, read, by default).
 */
export async function boundsParentFor(opened: OpenedStore, group: BoundsGroup, node: ArrayNode, lookup: NodeLookup = documentLookup(opened, group.format)): Promise<BoundsParent | undefined> {
	if (isTimeArray(node) || !mayTakeBoundsAttributes(node)) return undefined;
	const listed = await consolidatedParents(opened, group.path);
	const name = group.path === "" ? node.path : node.path.slice(group.path.length + 1);
	return listed !== undefined ? listed.get(node.path) : await dimensionParent(group.path, name, node, lookup);
}

/** The array `node` of `group` with the `units` and `calendar` it takes as a coordinate's boundary variable (boundsParentFor). */
export async function withBoundsAttributesOf(opened: OpenedStore, group: BoundsGroup, node: ArrayNode): Promise<ArrayNode> {
	const parent = await boundsParentFor(opened, group, node);
	return parent === undefined ? node : withBoundsAttributes(node, parent);
}

/** What boundedCoordinateOf found: the coordinate, or none, or none seen where one may be (`unseen`). */
export type BoundedCoordinate = { readonly coordinate: string } | { readonly unseen: true } | undefined;

/** Values along a coordinate's cell bounds' last dimension, CF §7.1: its two ends, for a time cell. */
const CELL_ENDS = 2;

/**
 * The coordinate whose CF `bounds` or `climatology` attribute names the array `node` of `group`, for one with units
 * and a calendar of its own, which boundsParentFor passes over as taking nothing: xarray encodes bounds made of
 * instants so (`time_bnds` of datetime64 values gets `units` and `calendar`), and such an array is still its
 * coordinate's boundary variable, the time column only when named (select/time-selection.ts), also when the
 * coordinate is in no column (a table without index columns). Looked for as boundsParentFor looks: among the arrays
 * the consolidated metadata lists for the group, else among the array's dimension coordinates (one metadata read
 * each), for an array over two or more dimensions only. The caller asks only for CF time columns.
 *
 * Without consolidated metadata, the bounds of an auxiliary coordinate (`valid_bnds(time, step, nv)` of a 2-D
 * `valid_time`, whose name is no dimension) cannot be told from a time variable but by reading every array of the
 * group: an array shaped as bounds are (its last dimension of two values, with no coordinate array, and no
 * `bounds` or `climatology` of its own), named by no dimension coordinate, is `unseen` — maybe a coordinate's bounds,
 * the time column only when named, as bounds are.
 */
export async function boundedCoordinateOf(opened: OpenedStore, group: BoundsGroup, node: ArrayNode, lookup: NodeLookup = documentLookup(opened, group.format)): Promise<BoundedCoordinate> {
	const dimensions = dimensionNamesOf(node);
	if (dimensions.length < 2) return undefined;
	const name = group.path === "" ? node.path : node.path.slice(group.path.length + 1);
	const namesIt = (attributes: Record<string, unknown>) => attributes.bounds === name || attributes.climatology === name;
	const listed = await consolidatedArraysOf(opened, group.path);
	if (listed !== undefined) {
		const coordinate = listed.find((array) => array.path !== node.path && namesIt(attributesOf(array.node)));
		return coordinate === undefined ? undefined : { coordinate: coordinate.path.slice(coordinate.path.lastIndexOf("/") + 1) };
	}
	const vertices = dimensions.at(-1)!;
	let verticesHaveCoordinate = false;
	for (const dimension of dimensions) {
		if (dimension === name) continue;
		const coordinate = await lookup(memberPath(group.path, dimension));
		if (coordinate !== undefined && coordinate.kind === "array" && namesIt(attributesOf(coordinate))) return { coordinate: dimension };
		if (dimension === vertices && coordinate !== undefined) verticesHaveCoordinate = true;
	}
	const attributes = attributesOf(node);
	const shape = node.json.shape;
	const shapedAsBounds = Array.isArray(shape) && shape.length === dimensions.length && shape.at(-1) === CELL_ENDS && !verticesHaveCoordinate;
	return shapedAsBounds && attributes.bounds === undefined && attributes.climatology === undefined ? { unseen: true } : undefined;
}
