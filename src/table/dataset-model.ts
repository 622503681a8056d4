/**
 * The dataset model of a table export, as xarray sees a Zarr group: each array is a variable over named
 * dimensions (`dimension_names` in v3, `_ARRAY_DIMENSIONS` in v2); a 1-D array named after its own dimension is
 * that dimension's coordinate. The variables of one table are broadcast over the union of their dimensions, in
 * the order of the variable with the most of them, as `ds[vars].to_dataframe()` does; dimensions are matched by
 * name, never by shape alone. Pure: no store, no streams.
 */
import { Dt64ExportError } from "../errors.js";
import type { ArrayDocuments } from "../zarr/array-metadata.js";

export interface DatasetVariable {
	readonly name: string;
	readonly shape: readonly number[];
	/** As the metadata wrote them; null or empty entries leave the variable without dimension names. */
	readonly dimensionNames?: readonly (string | null)[];
	/** The array's metadata documents, where they are known: malformed names are refused naming the one holding them. */
	readonly documents?: ArrayDocuments;
}

/** Where a variable's dimension names are written: `dimension_names` of its zarr.json, or v2 `_ARRAY_DIMENSIONS` of its `.zattrs`. */
function dimensionNamesSource(documents: ArrayDocuments | undefined): { path?: string; field: string } {
	if (documents === undefined) return { field: "dimension_names" };
	return documents.zarrFormat === 2 ? { path: documents.attributesDocument, field: "_ARRAY_DIMENSIONS" } : { path: documents.document, field: "dimension_names" };
}

export interface TableDimension {
	readonly name: string;
	readonly length: number;
}

export interface TableLayout {
	readonly dimensions: readonly TableDimension[];
	/**
	 * For each variable (in the order given), the table axis of each of its own axes: increasing, or not for a
	 * variable over the table's dimensions in another order (read transposed, see transposed-variable.ts).
	 */
	readonly axes: readonly (readonly number[])[];
}

/**
 * A variable's dimension names, or undefined when it names none of its axes. An axis left unnamed (null, as Zarr
 * v3 allows) is `dim_<axis>`, the name it would have without any.
 */
export function dimensionNamesOf(variable: DatasetVariable): string[] | undefined {
	// A 0-d variable (a CF grid mapping such as `crs`) has no dimension: its empty set is within any table's.
	if (variable.shape.length === 0) return [];
	const names = variable.dimensionNames;
	if (names === undefined || names === null || !Array.isArray(names) || names.length !== variable.shape.length) return undefined;
	if (names.some((name) => name !== null && typeof name !== "string")) {
		throw new Dt64ExportError("METADATA_INVALID", `array ${variable.name}: dimension names must be strings or nulls, got ${JSON.stringify(names)}`, dimensionNamesSource(variable.documents));
	}
	if (names.every((name) => name === null || name === "")) return undefined;
	return names.map((name, axis) => (name === null || name === "" ? `dim_${axis}` : name));
}

/** `t2m(time=6, lat=3, lon=4)`, or `t2m [6, 3, 4] (no dimension names)`. */
export function describeVariable(variable: DatasetVariable): string {
	const names = dimensionNamesOf(variable);
	if (names === undefined) return `${variable.name} ${JSON.stringify(variable.shape)} (no dimension names)`;
	return `${variable.name}(${names.map((name, axis) => `${name}=${variable.shape[axis]}`).join(", ")})`;
}

const listed = (variables: readonly DatasetVariable[]) => variables.map(describeVariable).join(", ");

/**
 * Lays the variables out as one table: its dimensions, and where each variable's axes fall in it; a variable over
 * the same dimensions in another order is matched by name (xarray transposes it). Refuses, with every variable's
 * dimensions in the message: a dimension name with two lengths; a variable that repeats a dimension; variables
 * without dimension names whose shape is not the table's. The messages describe the variables; the option that
 * chose them is in the error's `option` field (the CLI names its flag).
 */
export function layOutTable(variables: readonly DatasetVariable[]): TableLayout {
	if (variables.length === 0) throw new Dt64ExportError("INTERNAL", "a table needs at least one variable");
	const named = variables.filter((variable) => dimensionNamesOf(variable) !== undefined);
	for (const variable of named) {
		const names = dimensionNamesOf(variable)!;
		const repeated = names.find((name, axis) => names.indexOf(name) !== axis);
		if (repeated !== undefined) throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `${describeVariable(variable)} repeats dimension ${JSON.stringify(repeated)}, which a table cannot lay out`, { option: "columns", value: variable.name });
	}
	let dimensions: TableDimension[];
	if (named.every((variable) => variable.shape.length === 0)) {
		const { shape } = variables.reduce((widest, variable) => (variable.shape.length > widest.shape.length ? variable : widest));
		dimensions = shape.map((length, axis) => ({ name: `dim_${axis}`, length }));
	} else {
		// The widest variable gives the order; dimensions it lacks follow, in the order they first appear.
		const widest = named.reduce((best, variable) => (variable.shape.length > best.shape.length ? variable : best));
		const lengths = new Map<string, number>();
		for (const variable of [widest, ...named]) {
			dimensionNamesOf(variable)!.forEach((name, axis) => {
				const length = variable.shape[axis];
				const known = lengths.get(name);
				if (known === undefined) lengths.set(name, length);
				else if (known !== length) {
					const first = named.find((other) => dimensionNamesOf(other)!.includes(name) && other.shape[dimensionNamesOf(other)!.indexOf(name)] === known)!;
					throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `dimension ${JSON.stringify(name)} has length ${known} in ${first.name} and ${length} in ${variable.name}, so they cannot share a table: ${listed(variables)}`, { option: "columns" });
				}
			});
		}
		dimensions = [...lengths].map(([name, length]) => ({ name, length }));
	}
	const tableNames = dimensions.map((dimension) => dimension.name);
	const tableShape = dimensions.map((dimension) => dimension.length);
	const describeTable = `(${tableNames.join(", ")})`;
	const axes = variables.map((variable) => {
		const names = dimensionNamesOf(variable);
		if (names === undefined) {
			// Without names only the table's own shape says which axis is which.
			if (variable.shape.join() !== tableShape.join()) {
				throw new Dt64ExportError("COLUMNS_INCOMPATIBLE", `${describeVariable(variable)} cannot be matched to the table's dimensions ${describeTable} by name, and its shape differs: ${listed(variables)}`, { option: "columns" });
			}
			return tableShape.map((_, axis) => axis);
		}
		return names.map((name) => tableNames.indexOf(name));
	});
	return { dimensions, axes };
}

/** Whether `variable` is the coordinate of dimension `name` with `length` values: 1-D, named after it, over it. */
export function isCoordinateOf(variable: DatasetVariable, name: string, length: number): boolean {
	if (variable.shape.length !== 1 || variable.shape[0] !== length) return false;
	const names = dimensionNamesOf(variable);
	return names !== undefined && names[0] === name && variable.name === name;
}

/** A dimension coordinate: a 1-D variable over a dimension of its own name (xarray's index variables). */
export function isDimensionCoordinate(variable: DatasetVariable): boolean {
	return variable.shape.length === 1 && dimensionNamesOf(variable)?.[0] === variable.name;
}

/** A variable `--columns all` leaves out, and why, in words. */
export interface LeftOutVariable extends DatasetVariable {
	readonly reason: string;
}

/**
 * What `--columns all` takes from a group: every variable that is not a dimension coordinate (those are the index),
 * auxiliary coordinates and 0-d variables included (repeated on every row), as `ds.to_dataframe()` does, provided
 * its dimensions are a subset of the widest variable's: the others would multiply the table by dimensions no data
 * variable shares, or conflict with it. Those are left out, each with the reason.
 */
export function selectWholeDataset(variables: readonly DatasetVariable[]): { chosen: DatasetVariable[]; leftOut: LeftOutVariable[] } {
	const candidates = variables.filter((variable) => !isDimensionCoordinate(variable));
	if (candidates.length === 0) return { chosen: [], leftOut: [] };
	// The widest variable with dimension names gives the table, where there is one: an array a pipeline added without
	// names (xarray refuses such a group) is matched to it by shape, and never makes the named ones misfits.
	const named = candidates.filter((variable) => (dimensionNamesOf(variable)?.length ?? 0) > 0);
	const widest = (named.length > 0 ? named : candidates).reduce((best, variable) => (variable.shape.length > best.shape.length ? variable : best));
	const widestNames = dimensionNamesOf(widest);
	const table = widestNames === undefined ? `the table's shape ${JSON.stringify(widest.shape)} (from ${widest.name})` : `the table's (${widestNames.join(", ")}, from ${widest.name})`;
	const misfit = (variable: DatasetVariable): string | undefined => {
		const names = dimensionNamesOf(variable);
		if (names?.length === 0) return undefined;
		if (names === undefined || widestNames === undefined) return variable.shape.join() === widest.shape.join() ? undefined : `${names === undefined ? "it has no dimension names, and" : "without dimension names,"} its shape is not ${table}`;
		const outside = names.filter((name) => !widestNames.includes(name));
		if (outside.length > 0) return `${outside.length > 1 ? "dimensions" : "dimension"} ${outside.join(", ")} ${outside.length > 1 ? "are" : "is"} not among ${table}, and would multiply its rows`;
		const conflict = names.find((name, axis) => widest.shape[widestNames.indexOf(name)] !== variable.shape[axis]);
		return conflict === undefined ? undefined : `dimension ${conflict} has another length in ${table}`;
	};
	const chosen: DatasetVariable[] = [];
	const leftOut: LeftOutVariable[] = [];
	for (const variable of candidates) {
		const reason = misfit(variable);
		if (reason === undefined) chosen.push(variable);
		else leftOut.push({ ...variable, reason });
	}
	return { chosen, leftOut };
}
