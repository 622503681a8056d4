/**
 * Column names that differ only by case (`zeta` and `Zeta`). Arrow, Parquet, polars and pyarrow keep them apart;
 * DuckDB, Spark and Trino match names without regard to case and read such a file ambiguously (DuckDB gave one
 * column's values for the other), so the CLI names them in a warning.
 */
export function namesDifferingOnlyByCase(names: readonly string[]): [string, string][] {
	const first = new Map<string, string>();
	const pairs: [string, string][] = [];
	for (const name of names) {
		// Unicode lower case: a superset of the ASCII folding DuckDB does, and what Spark's Locale.ROOT folding gives.
		const folded = name.toLowerCase();
		const earlier = first.get(folded);
		if (earlier === undefined) first.set(folded, name);
		else if (earlier !== name) pairs.push([earlier, name]);
	}
	return pairs;
}

/** The warning's text for one pair (without the program's prefix). */
export function caseOnlyNamesWarning([a, b]: [string, string]): string {
	return `warning: columns ${JSON.stringify(a)} and ${JSON.stringify(b)} differ only by case: DuckDB, Spark and Trino read them as one name (--rename one of them)`;
}
