import * as path from "node:path";
import { writeArray } from "../../scripts/lib/zarr-writer.mjs";
import { tempDir } from "./cli.js";

export interface HourlyStoreOptions {
	/** How many hourly times (96: four days). */
	readonly hours?: number;
	/** Times per chunk (12). */
	readonly chunk?: number;
	/** The first time, "YYYY-MM-DD" (2021-01-30). */
	readonly from?: string;
	/** The store's folder name, in a new temporary folder (hourly.zarr). */
	readonly name?: string;
}

/** A root datetime64[s] array of consecutive hours over dimension `time`, for dataset tests: its folder. */
export async function hourlyStore({ hours = 96, chunk = 12, from = "2021-01-30", name = "hourly.zarr" }: HourlyStoreOptions = {}): Promise<string> {
	const store = path.join(tempDir(), name);
	const first = BigInt(Date.parse(`${from}T00:00:00Z`) / 1000);
	const values = BigInt64Array.from({ length: hours }, (_, i) => first + BigInt(i) * 3600n);
	await writeArray(store, "", { shape: [hours], chunks: [chunk], values, dimensionNames: ["time"] });
	return store;
}
