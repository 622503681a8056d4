/**
 * CF cell boundaries (CF 1.10 §7.1): a boundary variable is part of its coordinate's metadata, so it need not carry
 * `units` or `calendar` (CF says it should not): it takes its coordinate's. xarray 2023.01 decodes it so
 * (`conventions._update_bounds_attributes`): for every variable whose `units` contain "since" (as written, the
 * test xarray's time coder makes) and whose `bounds` attribute names another variable of the dataset, that variable
 * takes the coordinate's `units` where it has none, and its `calendar` where the coordinate has one and it has none.
 * Only `bounds`: xarray leaves a `climatology` variable (CF §7.4) as it is.
 */
import { attributesOf, type ArrayNode } from "../zarr/array-metadata.js";

/** What a boundary variable takes from the coordinate whose `bounds` names it. */
export interface BoundsParent {
	/** The coordinate's name in its group. */
	readonly name: string;
	readonly units: string;
	readonly calendar?: unknown;
}

/** The boundary variable a variable's attributes name, with what it would take, or undefined (xarray's test). */
export function boundsParentOf(name: string, attributes: Record<string, unknown>): { readonly bounds: string; readonly parent: BoundsParent } | undefined {
	const { units, bounds, calendar } = attributes;
	if (typeof units !== "string" || !units.includes("since") || typeof bounds !== "string") return undefined;
	return { bounds, parent: { name, units, ...(calendar === undefined ? {} : { calendar }) } };
}

/** The attributes a boundary variable decodes with: its own, then its coordinate's `units` and `calendar` where it has none. */
function boundsAttributes(attributes: Record<string, unknown>, parent: BoundsParent): Record<string, unknown> {
	const taken = {
		...(attributes.units === undefined ? { units: parent.units } : {}),
		...(attributes.calendar === undefined && parent.calendar !== undefined ? { calendar: parent.calendar } : {}),
	};
	return Object.keys(taken).length === 0 ? attributes : { ...attributes, ...taken };
}

/** The array node with the attributes it decodes with (the same node when it takes nothing). */
export function withBoundsAttributes(node: ArrayNode, parent: BoundsParent): ArrayNode {
	const own = attributesOf(node);
	const attributes = boundsAttributes(own, parent);
	if (attributes === own) return node;
	return node.zarrFormat === 2 ? { ...node, attributes } : { ...node, json: { ...node.json, attributes } };
}

/** Whether the array could take attributes from a coordinate: it lacks `units` or `calendar`. */
export function mayTakeBoundsAttributes(node: ArrayNode): boolean {
	const attributes = attributesOf(node);
	return attributes.units === undefined || attributes.calendar === undefined;
}

/** The path of `name`, a variable of the group of the array at `path`: a CF attribute names one of its own group. */
function siblingPath(path: string, name: string): string {
	const cut = path.lastIndexOf("/");
	return cut < 0 ? name : `${path.slice(0, cut)}/${name}`;
}

/**
 * The paths of the variables the array at `path` names by its CF `bounds` or `climatology` (CF 1.10 §7.1, §7.4): each a
 * variable of its own group, never the array itself; a name with a `/`, or empty, names none.
 */
export function cellBoundsNamedBy(path: string, attributes: Record<string, unknown>): string[] {
	const paths: string[] = [];
	for (const named of [attributes.bounds, attributes.climatology]) {
		if (typeof named !== "string" || named === "" || named.includes("/")) continue;
		const namedPath = siblingPath(path, named);
		if (namedPath !== path) paths.push(namedPath);
	}
	return paths;
}

/**
 * The parents the arrays of a store tree name, by the boundary variable's path: a coordinate names a variable of its
 * own group. The first in the order given (the tree's name order, as xarray takes its variables) wins, as setdefault.
 */
export function boundsParentsByPath(arrays: Iterable<{ readonly path: string; readonly attributes: Record<string, unknown> }>): Map<string, BoundsParent> {
	const parents = new Map<string, BoundsParent>();
	for (const { path, attributes } of arrays) {
		const named = boundsParentOf(path.slice(path.lastIndexOf("/") + 1), attributes);
		if (named === undefined || named.bounds.includes("/")) continue;
		const boundsPath = siblingPath(path, named.bounds);
		if (!parents.has(boundsPath)) parents.set(boundsPath, named.parent);
	}
	return parents;
}
