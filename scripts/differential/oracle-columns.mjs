/**
 * Read an export back into canonical columns and compare them with a differential oracle (the `oracle.json` of
 * test/golden/make_differential_corpus.py). Shared by test/differential-corpus.test.ts (the committed corpus) and
 * scripts/differential/run.mjs (the maintainers' campaign).
 *
 * A canonical column is { name, kind, unit, values }: kind "time"/"delta" (values: integer ns as strings), "float"
 * (numbers), "int" (integers as strings), "bool", "str"; null for a null. `unit` is the Arrow unit of a time or
 * duration ("s", "ms", "us", "ns"), which Parquet needs to read a duration back.
 */
import { Type } from "apache-arrow";

/** Nanoseconds per Arrow TimeUnit (SECOND, MILLISECOND, MICROSECOND, NANOSECOND). */
const NS_PER_ARROW_UNIT = [1_000_000_000n, 1_000_000n, 1_000n, 1n];
const UNIT_NAMES = ["s", "ms", "us", "ns"];
const NS_PER_UNIT = { s: 1_000_000_000n, ms: 1_000_000n, us: 1_000n, ns: 1n };

/** The kind of an Arrow field's type. */
function arrowKind(type) {
	switch (type.typeId) {
		case Type.Timestamp:
			return "time";
		case Type.Duration:
			return "delta";
		case Type.Float:
			return "float";
		case Type.Int:
			return "int";
		case Type.Bool:
			return "bool";
		default:
			return "str";
	}
}

/** An apache-arrow Table's columns, canonical. */
export function arrowColumns(table) {
	return table.schema.fields.map((field, k) => {
		const kind = arrowKind(field.type);
		const values = [];
		if (kind === "time" || kind === "delta") {
			const perUnit = NS_PER_ARROW_UNIT[field.type.unit];
			for (const batch of table.batches) {
				const data = batch.getChildAt(k).data[0];
				for (let i = 0; i < data.length; i++) values.push(data.getValid(i) ? String(data.values[i] * perUnit) : null);
			}
			return { name: field.name, kind, unit: UNIT_NAMES[field.type.unit], values };
		}
		for (const value of table.getChildAt(k)) {
			if (value === null) values.push(null);
			else if (kind === "int") values.push(String(value));
			else if (kind === "str") values.push(String(value));
			else values.push(value);
		}
		return { name: field.name, kind, values };
	});
}

/** SQL quoting of a name. */
const quoted = (name) => `"${name.replaceAll('"', '""')}"`;

/** DuckDB's SELECT expression giving a Parquet column as canonical text (times as ns), or the column itself. */
function duckdbExpression(name, type) {
	const q = quoted(name);
	if (type.startsWith("TIMESTAMP_NS")) return `epoch_ns(${q})::VARCHAR`;
	if (type.startsWith("TIMESTAMP_MS") || type.startsWith("TIMESTAMP_S")) return `(epoch_ms(${q})::HUGEINT * 1000000)::VARCHAR`;
	if (type.startsWith("TIMESTAMP")) return `(epoch_us(${q})::HUGEINT * 1000)::VARCHAR`;
	if (/INT/.test(type)) return `${q}::VARCHAR`;
	return q;
}

/**
 * A Parquet file's columns read by DuckDB (`query`: rows of a statement), canonical. Parquet keeps no duration type
 * DuckDB reads: a column `units` names ("s".."ns", from the same export to Arrow) is a duration of int64 counts.
 */
export async function parquetColumns(query, file, units = {}) {
	const source = `read_parquet('${file.replaceAll("'", "''")}')`;
	const described = await query(`DESCRIBE SELECT * FROM ${source}`);
	const select = described.map(([name, type]) => duckdbExpression(String(name), String(type)));
	const rows = await query(`SELECT ${select.join(", ")} FROM ${source}`);
	return described.map(([name, type], k) => {
		const text = String(type);
		const values = rows.map((row) => row[k]);
		if (text.startsWith("TIMESTAMP")) return { name: String(name), kind: "time", values };
		if (units[name] !== undefined && text === "BIGINT") {
			// Seconds are written as milliseconds (README, numpy.timedelta64: one unit rule for every Parquet column).
			const perUnit = units[name] === "s" ? NS_PER_UNIT.ms : NS_PER_UNIT[units[name]];
			return { name: String(name), kind: "delta", values: values.map((v) => (v === null ? null : String(BigInt(v) * perUnit))) };
		}
		const kind = /INT/.test(text) ? "int" : text === "FLOAT" || text === "DOUBLE" ? "float" : text === "BOOLEAN" ? "bool" : "str";
		return { name: String(name), kind, values };
	});
}

/** Whether a value read back equals the oracle's canonical one (floats bit-exact as doubles, NaN equal to NaN). */
function sameValue(kind, expected, got) {
	if (expected === null || got === null) return expected === got;
	if (kind === "float") {
		const e = expected === "NaN" ? Number.NaN : expected === "Infinity" ? Infinity : expected === "-Infinity" ? -Infinity : Number(expected);
		return Object.is(e, got);
	}
	return expected === got;
}

/**
 * The differences between columns read back and the oracle's table ({ columns, rows, data: { name: { kind,
 * values } } }): column names and order, row count, each column's kind and every value in row order. Empty when
 * they agree. At most `limit` differences are listed per column.
 */
export function oracleDifferences(expected, got, limit = 3) {
	const problems = [];
	const names = got.map((column) => column.name);
	if (JSON.stringify(names) !== JSON.stringify(expected.columns)) problems.push(`columns [${names}], expected [${expected.columns}]`);
	for (const column of got) {
		const want = expected.data[column.name];
		if (want === undefined) continue;
		if (column.values.length !== expected.rows) problems.push(`${column.name}: ${column.values.length} rows, expected ${expected.rows}`);
		if (column.kind !== want.kind) {
			problems.push(`${column.name}: a ${column.kind} column, expected ${want.kind}`);
			continue;
		}
		let listed = 0;
		let wrong = 0;
		for (let i = 0; i < Math.min(column.values.length, want.values.length); i++) {
			if (sameValue(want.kind, want.values[i], column.values[i])) continue;
			wrong++;
			if (listed++ < limit) problems.push(`${column.name}[${i}]: ${String(column.values[i])}, expected ${want.values[i]} (${want.source})`);
		}
		if (wrong > limit) problems.push(`${column.name}: ${wrong} values differ in all`);
	}
	return problems;
}

/** The number of values a comparison checked: every cell of the table. */
export const comparedValues = (expected) => expected.rows * expected.columns.length;

/** The CLI flag of each rounding an oracle's `rounded` holds. */
export const ROUNDING_FLAGS = { floor: "--allow-truncate", nearest: "--round" };

/**
 * The differences between a time array exported with a rounding (`floor`: `--allow-truncate`, `nearest`: `--round`,
 * `--unit auto`) and the oracle of its TRUNCATION refusal: its exact values floored or rounded half to even in the
 * unit the column was written in (`rounded[rounding][unit]`); a unit the oracle lacks cannot hold them all.
 */
export function roundedDifferences(name, array, rounding, got) {
	const column = got.find((each) => each.name === name);
	if (column === undefined) return [`no column ${name}`];
	const values = array.rounded[rounding][column.unit];
	if (values === undefined) return [`${name}: written in ${column.unit ?? `a ${column.kind} column`}, which cannot hold every value ${rounding === "floor" ? "floored" : "rounded"}`];
	return oracleDifferences({ columns: [name], rows: values.length, data: { [name]: { kind: array.kind, values } } }, got);
}

/**
 * The differences between a table exported with a rounding and the oracle of its TRUNCATION refusal's `rounded`
 * table (`table.rounded[rounding]`): each TRUNCATION column compared with its values in the unit it was written in
 * (its `rounded[unit]`, a unit the oracle lacks being a difference), every other column as oracleDifferences does.
 */
export function roundedTableDifferences(table, rounding, got) {
	const expected = table.rounded?.[rounding];
	if (expected === undefined) return [`no ${rounding} table in the oracle`];
	const problems = [];
	const data = {};
	for (const [name, column] of Object.entries(expected.data)) {
		if (column.rounded === undefined) {
			data[name] = column;
			continue;
		}
		const unit = got.find((each) => each.name === name)?.unit;
		const values = unit === undefined ? undefined : column.rounded[unit];
		if (values === undefined) problems.push(`${name}: written in ${unit ?? "no time unit"}, which cannot hold every value ${rounding === "floor" ? "floored" : "rounded"}`);
		else data[name] = { kind: column.kind, source: column.source, values };
	}
	return [...problems, ...oracleDifferences({ ...expected, data }, got)];
}
