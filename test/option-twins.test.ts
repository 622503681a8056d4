/**
 * Lists of option names kept from one place, not by hand beside it: the dataset options and their plan
 * (DATASET_OPTION_NAMES, DatasetFileOptions), and the options a refused part run names as options (other-export.ts,
 * from EXPORT_OPTION_NAMES). Each case fails when an option is added in one place only.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { EXPORT_OPTION_NAMES, planExport } from "../src/export-plan.js";
import { exportDataset } from "../src/index.js";
import { manifestsIn } from "../src/output/dataset-files.js";
import { DATASET_OPTION_NAMES } from "../src/select/selection-options.js";
import { tempDir } from "./support/cli.js";

const GIVEN: Record<string, unknown> = { partitionBy: "day", maxRowsPerFile: 5, maxOpenFiles: 6, maxPartitions: 7 };

describe("dataset options and their plan", () => {
	it("the plan carries every dataset option, and an export of one file refuses each", () => {
		expect([...DATASET_OPTION_NAMES].sort()).toEqual(Object.keys(GIVEN).sort());
		for (const name of DATASET_OPTION_NAMES) expect(EXPORT_OPTION_NAMES, name).toContain(name);
		const plan = planExport({ ...GIVEN, part: "0/1" }, true);
		expect(plan.dataset).toEqual(GIVEN);
		for (const name of DATASET_OPTION_NAMES) {
			expect(() => planExport({ [name]: GIVEN[name] }, false), name).toThrow(expect.objectContaining({ code: "USAGE", option: name }));
		}
	});
});

describe("a refused part run names the options that differ", () => {
	it("as options when the manifest's key is an export option (every one), as the manifest's words otherwise", async () => {
		const store = path.join(tempDir(), "t.zarr");
		const t0 = BigInt(Date.UTC(2021, 0, 1) / 1000);
		await writeArray(store, "", { shape: [48], chunks: [12], values: BigInt64Array.from({ length: 48 }, (_, i) => t0 + BigInt(i) * 3600n), dimensionNames: ["time"] });
		const folder = path.join(tempDir(), "d.parquet");
		await exportDataset(store, folder, { partitionBy: "day", part: "0/1" });
		// The run before wrote another value of each export option in turn, or of a word of the manifest's own.
		const [{ file }] = manifestsIn(folder);
		const written = fs.readFileSync(file, "utf8");
		const refusal = async (key: string) => {
			const manifest = JSON.parse(written) as { options: Record<string, unknown>; optionsDigest: string };
			manifest.options[key] = "earlier";
			manifest.optionsDigest = "0".repeat(manifest.optionsDigest.length);
			fs.writeFileSync(file, JSON.stringify(manifest));
			const error = await exportDataset(store, folder, { partitionBy: "day", part: "0/1" }).then(
				() => undefined,
				(refused: Error) => refused,
			);
			expect(error, key).toMatchObject({ code: "OUTPUT_EXISTS" });
			return error!.message;
		};
		for (const name of EXPORT_OPTION_NAMES) expect(await refusal(name), name).toContain(`with other options: \`${name}\` "earlier" (this run: `);
		expect(await refusal("conversion")).toContain('with other options: conversion "earlier" (this run: ');
	});
});
