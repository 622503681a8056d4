// The Parquet-writing reference of bench/tables.mjs: DuckDB (C++, through @duckdb/node-api, a devDependency) loads a
// Parquet file dt64-export wrote into memory, untimed, then writes the same rows to Parquet with the same
// compression and row group size (`input`: the input's own, its first row group's rows), timed. What it measures is a C++ Parquet encoder's cost for exactly the rows the
// exporter encoded, which the exporter's time to Parquet minus its time to Arrow IPC can be set against.
//
//     node bench/duckdb-parquet-reference.mjs <input.parquet> <output.parquet> <threads> <compression> <row group rows|input>
//
// Prints one JSON line: rows, seconds of the COPY, DuckDB's version.
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";
import { DuckDBInstance } from "@duckdb/node-api";

const [input, output, threads, compression, rowGroupRows] = process.argv.slice(2);
if (rowGroupRows === undefined) throw new Error("usage: duckdb-parquet-reference.mjs <input> <output> <threads> <compression> <row group rows|input>");
const quoted = (text) => `'${text.replaceAll("'", "''")}'`;
const instance = await DuckDBInstance.create(":memory:", { threads: String(Number(threads)) });
const connection = await instance.connect();
await connection.run(`CREATE TABLE t AS SELECT * FROM read_parquet(${quoted(input)})`);
const rows = Number((await (await connection.runAndReadAll("SELECT count(*) FROM t")).getRows())[0][0]);
const version = (await (await connection.runAndReadAll("SELECT version()")).getRows())[0][0];
const groupRows =
	rowGroupRows === "input"
		? Number((await (await connection.runAndReadAll(`SELECT row_group_num_rows FROM parquet_metadata(${quoted(input)}) ORDER BY row_group_id LIMIT 1`)).getRows())[0][0])
		: Number(rowGroupRows);
fs.rmSync(output, { force: true });
const start = performance.now();
await connection.run(`COPY t TO ${quoted(output)} (FORMAT parquet, COMPRESSION ${compression}, ROW_GROUP_SIZE ${groupRows})`);
const seconds = (performance.now() - start) / 1000;
const bytes = fs.statSync(output).size;
fs.rmSync(output, { force: true });
console.log(JSON.stringify({ rows, seconds, bytes, version, rowGroupRows: groupRows }));
