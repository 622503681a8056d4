import type { Table } from "apache-arrow";

/** Nanoseconds per Arrow TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const NS_PER_UNIT: readonly bigint[] = [1_000_000_000n, 1_000_000n, 1_000n, 1n];

/** A time column's rows (by index or name) as exact nanoseconds, as strings (null for null), whatever its unit. */
export function exactNanoseconds(table: Table, which: number | string = 0): (string | null)[] {
	const column = typeof which === "number" ? which : table.schema.fields.findIndex((field) => field.name === which);
	const perUnit = NS_PER_UNIT[(table.schema.fields[column].type as { unit: number }).unit];
	const out: (string | null)[] = [];
	for (const batch of table.batches) {
		const data = batch.getChildAt(column)!.data[0];
		for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? String((data.values as BigInt64Array)[i] * perUnit) : null);
	}
	return out;
}
