/**
 * Every refusal of a value is a ConversionError, whatever the time array's kind: a float CF count that is not a
 * whole number of the unit asked for (the trial's xarray store, float days) is caught by the same `instanceof` as a
 * datetime64 count's, and stays a CfDecodeError for those who match that class.
 */
import * as path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { CfDecodeError, ConversionError, Dt64ExportError, decodeCfTimes, exportTable, parseCfTimeCoding, toArrowTimestamps, parseDatetime64Type, cfMissingValueMarkers } from "../src/index.js";
import { secondsAsMillis } from "../src/convert/seconds-as-millis.js";
import { REPO } from "./support/cli.js";

const FLOAT_DAYS = path.join(REPO, "test/fixtures/cf-round/days-float-hourly.zarr");

async function refusal(run: () => Promise<unknown> | unknown): Promise<unknown> {
	try {
		await run();
	} catch (error) {
		return error;
	}
	throw new Error("no refusal");
}

describe("conversion refusals are ConversionErrors", () => {
	it("a CF time export refused for truncation: ConversionError and CfDecodeError", async () => {
		const error = await refusal(() => exportTable(FLOAT_DAYS, new PassThrough().resume(), { array: "time", unit: "s", format: "arrow" }));
		expect(error).toBeInstanceOf(ConversionError);
		expect(error).toBeInstanceOf(CfDecodeError);
		expect(error).toBeInstanceOf(Dt64ExportError);
		expect(error).toMatchObject({ name: "CfDecodeError", code: "TRUNCATION", unit: "s", index: 1 });
		expect((error as ConversionError).count).toBe((error as ConversionError).value);
	});

	it("the CF core's overflow, as the datetime64 core's", async () => {
		const coding = parseCfTimeCoding({ units: "days since 2000-01-01" }, {});
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
		const cf = await refusal(() => decodeCfTimes(new Float64Array([0, 1e300]), coding, markers, { unit: "ns", onOverflow: "error", dataType: "float64" }));
		const datetime64 = await refusal(() => toArrowTimestamps(new BigInt64Array([0n, 2n ** 62n]), parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } }), { unit: "ns" }));
		for (const error of [cf, datetime64]) expect(error).toBeInstanceOf(ConversionError);
		expect(cf).toMatchObject({ name: "CfDecodeError", code: "OVERFLOW", index: 1, value: 1e300 });
		expect(datetime64).toMatchObject({ name: "ConversionError", code: "OVERFLOW", index: 1 });
	});

	it("seconds that overflow as Parquet milliseconds", () => {
		const seconds = { unit: "s" as const, values: new BigInt64Array([0n, 2n ** 62n]), validity: null, nullCount: 0 };
		const error = (() => {
			try {
				secondsAsMillis(seconds, { onOverflow: "error" });
			} catch (thrown) {
				return thrown;
			}
		})();
		expect(error).toBeInstanceOf(ConversionError);
		expect(error).toMatchObject({ code: "OVERFLOW", index: 1, value: 2n ** 62n, count: 2n ** 62n, unit: "ms" });
	});
});
