/**
 * The coordinates xarray attaches to the variables of a table, as `ds[names]` (xarray 2023.01's
 * `Dataset._copy_listed`) keeps them: the non-dimension coordinates of the dataset whose dimensions are all among
 * the selected variables'. Which arrays of a Zarr group are coordinates is said by CF `coordinates` attributes, as
 * `decode_coords=True` (open_zarr's default) reads them: a variable's attribute makes all the arrays it names
 * coordinates, provided the group holds every one of them (else the attribute is ignored); the group's own
 * attribute (which xarray writes for coordinates no variable names) makes those of its names the group holds
 * coordinates. `ds[names].to_dataframe()` then has them as columns after the variables, in the dataset's order:
 * the code point order of the names, as zarr-python lists a group's arrays. Pure: no store.
 */
import type { DatasetVariable } from "./dataset-model.js";
import { dimensionNamesOf } from "./dataset-model.js";

/** The names a `coordinates` attribute lists (whitespace-separated, as xarray splits it); none when it is no string. */
export function coordinatesAttributeNames(attributes: Record<string, unknown>): string[] {
	const value = attributes.coordinates;
	return typeof value === "string" ? value.split(/\s+/).filter((name) => name !== "") : [];
}

/**
 * The names of the coordinates the attributes of `selected` and of their group declare, by xarray's rules;
 * `holds(name)` says whether the group holds an array of that name.
 */
export function declaredCoordinates(selected: readonly { readonly attributes: Record<string, unknown> }[], groupAttributes: Record<string, unknown>, holds: (name: string) => boolean): Set<string> {
	const declared = new Set<string>();
	for (const { attributes } of selected) {
		const names = coordinatesAttributeNames(attributes);
		if (names.every(holds)) for (const name of names) declared.add(name);
	}
	for (const name of coordinatesAttributeNames(groupAttributes)) if (holds(name)) declared.add(name);
	return declared;
}

/** A coordinate of the selection, or why it is not one of the table's columns. */
export type CoordinateFit = { readonly fits: true } | { readonly fits: false; readonly reason?: string };

/**
 * Whether `coordinate` goes with the selected variables, as `_copy_listed` decides: its dimensions are among theirs
 * (a 0-d coordinate such as a scalar `height` always is). A dimension coordinate is the index, not a column; a
 * coordinate over other dimensions is not part of `ds[names]` (no reason: xarray drops it silently too); one without
 * dimension names is left out with a reason.
 */
export function coordinateFit(coordinate: DatasetVariable, selected: readonly DatasetVariable[]): CoordinateFit {
	const dimensions = new Set(selected.flatMap((variable) => dimensionNamesOf(variable) ?? []));
	if (dimensions.has(coordinate.name)) return { fits: false };
	const names = dimensionNamesOf(coordinate);
	if (names === undefined) return { fits: false, reason: "it has no dimension names to place it among the table's" };
	return names.every((name) => dimensions.has(name)) ? { fits: true } : { fits: false };
}
