import { DuckDBInstance, type DuckDBConnection, type DuckDBValue } from "@duckdb/node-api";
import { afterAll, beforeAll } from "vitest";

/**
 * One in-memory DuckDB for the test file that calls this at its top level: opened before its tests, closed after
 * them. Returns the query function, which gives the rows of a statement.
 */
export function useDuckDB(): (sql: string) => Promise<DuckDBValue[][]> {
	let db: DuckDBInstance | undefined;
	let connection: DuckDBConnection | undefined;
	beforeAll(async () => {
		db = await DuckDBInstance.create(":memory:");
		connection = await db.connect();
	});
	afterAll(() => {
		connection?.closeSync();
		db?.closeSync();
	});
	return async (sql) => (await connection!.runAndReadAll(sql)).getRows();
}
