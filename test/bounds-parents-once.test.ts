/**
 * The CF bounds parents of a group's consolidated metadata are made once per opened store, however many of its
 * arrays are opened: made for each array opened, `--columns all` of a group of N arrays cost N x N (trial 28,
 * finding 06: 12,000 arrays took 41 s of CPU, 3.4 times 6,000's). Counted, not timed.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tempDir } from "./support/cli.js";

const made = { count: 0 };

vi.mock("../src/cf/bounds-attributes.js", async (importOriginal) => {
	const original = await importOriginal<typeof import("../src/cf/bounds-attributes.js")>();
	return {
		...original,
		boundsParentsByPath: (...args: Parameters<typeof original.boundsParentsByPath>) => {
			made.count++;
			return original.boundsParentsByPath(...args);
		},
	};
});

const { openTable } = await import("../src/index.js");

/** An xarray-style consolidated v2 group: a CF time coordinate of 4 days and `n` float32 variables over it (fill values only). */
function storeOf(n: number): string {
	const store = path.join(tempDir(), "many.zarr");
	const metadata: Record<string, unknown> = { ".zgroup": { zarr_format: 2 }, ".zattrs": {} };
	const array = (dtype: string, fill: number | null) => ({ zarr_format: 2, shape: [4], chunks: [4], dtype, compressor: null, fill_value: fill, filters: null, order: "C" });
	const write = (key: string, value: unknown) => {
		fs.mkdirSync(path.dirname(path.join(store, key)), { recursive: true });
		fs.writeFileSync(path.join(store, key), JSON.stringify(value));
		metadata[key] = value;
	};
	write(".zgroup", { zarr_format: 2 });
	write("time/.zarray", array("<i8", null));
	write("time/.zattrs", { _ARRAY_DIMENSIONS: ["time"], units: "days since 2000-01-01", calendar: "proleptic_gregorian", bounds: "time_bnds" });
	fs.writeFileSync(path.join(store, "time/0"), Buffer.from(BigInt64Array.from([0n, 1n, 2n, 3n]).buffer));
	for (let i = 0; i < n; i++) {
		write(`v${i}/.zarray`, array("<f4", 1.5));
		write(`v${i}/.zattrs`, { _ARRAY_DIMENSIONS: ["time"] });
	}
	fs.writeFileSync(path.join(store, ".zmetadata"), JSON.stringify({ zarr_consolidated_format: 1, metadata }));
	return store;
}

describe("bounds parents of a consolidated group", () => {
	it("are made once for a table of all of its 40 arrays", async () => {
		const store = storeOf(40);
		made.count = 0;
		const table = await openTable(store, { columns: "all" });
		expect(table.columns.map((column) => column.name).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `v${i}`).sort());
		expect(made.count).toBe(1);
	});
});
