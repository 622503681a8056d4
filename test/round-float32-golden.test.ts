/**
 * `--round` with `--unit auto` on float32 CF time written by xarray (test/fixtures/trial18/f32hours.zarr, made by
 * test/golden/make_trial18_fixtures.py), finding 08 of the eighteenth trial: hourly times as float32 `days since`
 * are minutes off the hour but every count is a whole number of ms; auto under --round took seconds (float32's ulp
 * of the count is minutes, so every unit was "within one ulp") and moved 00:59:03.750 to 00:59:04, away from what
 * xarray decodes. Rounding now keeps the exact unit when every count is exact in one: nothing moves.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { exportSelection } from "../src/export-selection.js";
import { inspectStore } from "../src/inspect.js";
import { exportedArrow } from "./support/arrow-sink.js";
import { REPO } from "./support/cli.js";

const FIXTURES = path.join(REPO, "test/fixtures/trial18");
const STORE = path.join(FIXTURES, "f32hours.zarr");
const { f32hours } = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as { f32hours: { counts: string[]; xarray: string[]; exact_ms: string[] } };

describe("--round --unit auto on float32 CF counts that are exact (finding 08)", () => {
	it("exports the exact values in ms, as without --round: xarray's instants to its float noise, not moved to the second", async () => {
		for (const rounding of ["nearest", "error"] as const) {
			const table = await exportedArrow((sink) => exportSelection(STORE, sink, { array: "time", rounding, format: "arrow-stream" }));
			const field = table.schema.fields[0];
			expect(String(field.type), rounding).toBe("Timestamp<MILLISECOND>");
			expect(Array.from(table.getChildAt(0)!.toArray() as BigInt64Array, String), rounding).toEqual(f32hours.exact_ms);
		}
		// xarray's values are those, to within a microsecond of float noise; the second would be 250 ms away.
		f32hours.exact_ms.forEach((ms, i) => expect(Math.abs(Number(BigInt(ms) * 1_000_000n - BigInt(f32hours.xarray[i])))).toBeLessThan(1_000));
		expect(f32hours.exact_ms.some((ms) => BigInt(ms) % 1000n !== 0n)).toBe(true);
	});

	it("inspect gives no other type for rounding", async () => {
		const report = await inspectStore(STORE);
		const time = report.nodes.find((node) => node.path === "time")!;
		expect(time.arrowType).toBe("timestamp[ms]");
		expect(time.arrowTypeRounded).toBeUndefined();
	});
});
