/**
 * Rounding to the nearest unit (`rounding: "nearest"`, the CLI's --round): every conversion path (the WebAssembly
 * kernel, the JS word kernel, the general word path, BigInt) against a BigInt reference, ties to even in both
 * directions and before 1970, NaT, the int64 edges and an overflow that only rounding up makes; CF counts (float
 * and integer) through the exact decoding; and the options that ask for it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCfTimeCoding } from "../src/cf/cf-time-coding.js";
import { refineTargetUnits } from "../src/cf/cf-target-unit.js";
import { cfMissingValueMarkers } from "../src/cf/missing-value.js";
import { decodeCfTimes } from "../src/cf/decode-cf-times.js";
import { linearKernel } from "../src/convert/linear-kernel.js";
import { normalizeConversionOptions } from "../src/convert/options.js";
import { planConversion } from "../src/convert/plan.js";
import { convertWithPlan, toArrowTimestamps } from "../src/convert/to-arrow-timestamps.js";
import { WasmLinearKernel } from "../src/convert/wasm/wasm-kernel.js";
import type { Datetime64Type } from "../src/dtype/datetime64.js";
import { describeForCli } from "../src/cli/error-advice.js";
import { thrown } from "./support/thrown.js";
import { NAT, referenceConvert } from "./support/reference-convert.js";

const INT64_MAX = 2n ** 63n - 1n;
const UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"] as const;
const TARGETS = ["s", "ms", "us", "ns"] as const;
const dt = (unit: Datetime64Type["unit"], scaleFactor = 1): Datetime64Type => ({ kind: "datetime64", unit, scaleFactor });
const isValid = (validity: Uint8Array | null, i: number) => validity === null || (validity[i >> 3] & (1 << (i & 7))) !== 0;
const nearest = (counts: bigint[], type: Datetime64Type, unit: (typeof TARGETS)[number], onOverflow: "error" | "null" = "error") =>
	toArrowTimestamps(BigInt64Array.from(counts), type, { unit, rounding: "nearest", onOverflow });
const rows = (out: { values: BigInt64Array; validity: Uint8Array | null }) => Array.from(out.values, (value, i) => (isValid(out.validity, i) ? value : null));

describe("datetime64 rounded to the nearest unit", () => {
	it("ns -> s: ties to even in both directions, negative values, NaT", () => {
		const S = 1_000_000_000n;
		const counts = [S / 2n, (3n * S) / 2n, (5n * S) / 2n, -S / 2n, (-3n * S) / 2n, (-5n * S) / 2n, S / 2n - 1n, S / 2n + 1n, -S / 2n - 1n, 1_499_999_999n, -1_600_000_000n, NAT, 0n];
		const out = nearest(counts, dt("ns"), "s");
		expect(rows(out)).toEqual([0n, 2n, 2n, 0n, -2n, -2n, 0n, 1n, -1n, 1n, -2n, null, 0n]);
		expect(out.nullCount).toBe(1);
		// Floor, as allowTruncate asks, is unchanged.
		expect(rows(toArrowTimestamps(BigInt64Array.from(counts), dt("ns"), { unit: "s", allowTruncate: true }))).toEqual([0n, 1n, 2n, -1n, -2n, -3n, 0n, 0n, -1n, 1n, -2n, null, 0n]);
	});

	it("ns -> s at the int64 edges: the largest and smallest counts round away from zero", () => {
		expect(rows(nearest([INT64_MAX, NAT + 1n], dt("ns"), "s"))).toEqual([9_223_372_037n, -9_223_372_037n]);
		expect(rows(nearest([INT64_MAX, NAT + 1n], dt("as"), "s"))).toEqual([9n, -9n]);
	});

	it("an overflow that only rounding up makes is caught: refused, or null with onOverflow null", () => {
		// 1007 ps -> ns multiplies by 1.007: the largest count whose floor is INT64_MAX, here .708 past it.
		const count = (1000n * INT64_MAX + 999n) / 1007n;
		expect(((count * 1007n) / 1000n) * 1000n + 708n).toBe(count * 1007n);
		const type = dt("ps", 1007);
		expect(toArrowTimestamps(BigInt64Array.of(count), type, { unit: "ns", allowTruncate: true }).values[0]).toBe(INT64_MAX);
		expect(thrown(() => nearest([count], type, "ns"))).toMatchObject({ code: "OVERFLOW", index: 0, unit: "ns" });
		const out = nearest([count, 1000n], type, "ns", "null");
		expect(rows(out)).toEqual([null, 1007n]);
		expect(referenceConvert(count, "ps", 1007, "ns", "nearest")).toEqual({ kind: "overflow" });
	});

	it("equals the BigInt reference for every unit, scale and target (every path: WebAssembly, JS kernel, words, BigInt)", () => {
		const int64 = fc.oneof(
			fc.bigInt({ min: NAT, max: INT64_MAX }),
			fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
			fc.bigInt({ min: -100_000n, max: 100_000n }),
			fc.constantFrom(NAT, NAT + 1n, INT64_MAX, 0n, 500n, -500n, 1500n, -1500n, 2n ** 53n + 1n),
		);
		const scale = fc.oneof(fc.integer({ min: 1, max: 2_147_483_647 }), fc.constantFrom(1, 3, 7, 10, 1001, 1_000_000, 2_147_483_647));
		fc.assert(
			fc.property(fc.array(int64, { maxLength: 100 }), fc.constantFrom(...UNITS), scale, fc.constantFrom(...TARGETS), (counts, unit, k, target) => {
				const out = nearest(counts, dt(unit, k), target, "null");
				counts.forEach((count, i) => {
					const expected = referenceConvert(count, unit, k, target, "nearest");
					const got = isValid(out.validity, i) ? out.values[i] : null;
					expect(got, `${count} ${k}${unit} -> ${target}`).toBe(expected.kind === "value" ? expected.value : null);
				});
			}),
			{ numRuns: 3_000, seed: 20261204 },
		);
	});

	it("the WebAssembly kernel and the JS kernel agree with the reference on the same random batch", () => {
		let x = 0x9e3779b97f4a7c15n;
		const input = new BigInt64Array(200_000);
		for (let i = 0; i < input.length; i++) {
			x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
			input[i] = BigInt.asIntN(64, x) >> BigInt(Number(x & 63n));
		}
		// Ties of every divisor, both signs, and NaT, among the random values.
		for (let i = 0; i < input.length; i += 997) input[i] = (i & 1 ? -1n : 1n) * (BigInt(i) * 1_000_000_000n + 500_000_000n);
		input[5] = NAT;
		for (const [unit, target] of [["ns", "s"], ["ps", "ns"], ["as", "s"], ["us", "ms"]] as const) {
			const plan = planConversion(dt(unit), target);
			expect(WasmLinearKernel.forPlan(plan, "nearest")).not.toBeNull();
			const wasm = convertWithPlan(input.slice(), plan, { rounding: "nearest", onOverflow: "error" });
			const kernel = linearKernel(plan, "nearest")!;
			const in32 = new Int32Array(input.buffer);
			const out = new BigInt64Array(input.length);
			const out32 = new Int32Array(out.buffer);
			const nat: number[] = [];
			// The JS kernel leaves a value to the exact path only where adding half the divisor leaves int64.
			const half = plan.q / 2n;
			const stops = new Set<number>();
			for (let i = kernel(in32, out32, 0, input.length, (at) => nat.push(at)); i < input.length; i = kernel(in32, out32, i + 1, input.length, (at) => nat.push(at))) {
				expect(input[i] + half, `stop at ${i}`).toBeGreaterThan(INT64_MAX);
				stops.add(i);
			}
			expect(nat).toEqual([5]);
			for (let i = 0; i < input.length; i++) {
				if (i === 5) continue;
				if (stops.has(i)) out[i] = wasm.values[i];
				const expected = referenceConvert(input[i], unit, 1, target, "nearest");
				const want = expected.kind === "value" ? expected.value : null;
				if (wasm.values[i] !== want || out[i] !== want) expect({ i, input: input[i], wasm: wasm.values[i], js: out[i] }).toEqual({ i, input: input[i], wasm: want, js: want });
			}
		}
	});
});

describe("options", () => {
	it("rounding and allowTruncate: allowTruncate is rounding floor, and the two may not contradict", () => {
		expect(normalizeConversionOptions({}).rounding).toBe("error");
		expect(normalizeConversionOptions({ allowTruncate: true }).rounding).toBe("floor");
		expect(normalizeConversionOptions({ rounding: "nearest" }).rounding).toBe("nearest");
		expect(normalizeConversionOptions({ rounding: "nearest", allowTruncate: false }).rounding).toBe("nearest");
		expect(normalizeConversionOptions({ rounding: "floor", allowTruncate: true }).rounding).toBe("floor");
		expect(thrown(() => normalizeConversionOptions({ rounding: "nearest", allowTruncate: true }))).toMatchObject({ code: "USAGE", option: "rounding" });
		expect(thrown(() => normalizeConversionOptions({ rounding: "floor", allowTruncate: false }))).toMatchObject({ code: "USAGE", option: "rounding" });
		expect(thrown(() => normalizeConversionOptions({ rounding: "up" as never }))).toMatchObject({ code: "USAGE", option: "rounding" });
	});

	it("a refusal says what floor and nearest would give, and the CLI names --round first", () => {
		const error = thrown(() => toArrowTimestamps(BigInt64Array.of(1_600_000_000n), dt("ns"), { unit: "s" }));
		expect(error.message).toBe("value 1600000000 of datetime64[ns] at index 0 is not a whole number of s (it would be floored to 1 s, or rounded to the nearest, 2 s)");
		expect(describeForCli(error as never)).toMatch(/; use --round to round to the nearest \(as xarray decodes floats\), --allow-truncate to floor, or a finer --unit$/);
	});
});

describe("CF time rounded to the nearest unit", () => {
	const decode = (values: Float64Array | BigInt64Array, units: string, unit: "s" | "ms" | "us" | "ns", onOverflow: "error" | "null" = "error") => {
		const coding = parseCfTimeCoding({ units, calendar: "proleptic_gregorian" });
		const dataType = values instanceof Float64Array ? "float64" : "int64";
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType, attributes: {}, fillValue: null });
		return decodeCfTimes(values, coding, markers, { unit, rounding: "nearest", onOverflow, dataType });
	};

	it("float counts: ties to even in both directions, before 1970 too", () => {
		expect(rows(decode(Float64Array.of(0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.25, -0.75), "seconds since 1970-01-01", "s"))).toEqual([0n, 2n, 2n, 0n, -2n, -2n, 0n, -1n]);
		// 1960-01-01 is -315619200 s (even): +0.5 s is a tie that stays there, +1.5 s goes up to the even second.
		expect(rows(decode(Float64Array.of(0.5, 1.5, -0.5), "seconds since 1960-01-01", "s"))).toEqual([-315_619_200n, -315_619_198n, -315_619_200n]);
	});

	it("float days of hourly data: the whole hour, where the floor is a second early", () => {
		const hours = Float64Array.from({ length: 48 }, (_, k) => 7362 + k / 24);
		const out = decode(hours, "days since 2000-01-01", "s");
		const start = 1_582_761_600n; // 2020-02-27T00:00:00
		expect(rows(out)).toEqual(Array.from({ length: 48 }, (_, k) => start + 3600n * BigInt(k)));
		const coding = parseCfTimeCoding({ units: "days since 2000-01-01" });
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
		const floored = decodeCfTimes(hours, coding, markers, { unit: "s", allowTruncate: true, onOverflow: "error", dataType: "float64" });
		expect(rows(floored).filter((value, k) => value !== start + 3600n * BigInt(k)).length).toBeGreaterThan(0);
	});

	it("integer counts with a reference half a unit off: ties to even, and an overflow only rounding up makes", () => {
		const out = decode(BigInt64Array.of(0n, 1n, -1n, INT64_MAX - 1n), "seconds since 1970-01-01 00:00:00.5", "s");
		expect(rows(out)).toEqual([0n, 2n, 0n, INT64_MAX - 1n]);
		expect(thrown(() => decode(BigInt64Array.of(INT64_MAX), "seconds since 1970-01-01 00:00:00.5", "s"))).toMatchObject({ code: "OVERFLOW", index: 0 });
		expect(rows(decode(BigInt64Array.of(INT64_MAX, 3n), "seconds since 1970-01-01 00:00:00.5", "s", "null"))).toEqual([null, 4n]);
	});

	it("a refused float count says the double is not the decimal it prints as, and what floor and nearest give", () => {
		const coding = parseCfTimeCoding({ units: "days since 2000-01-01" });
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
		const error = thrown(() => decodeCfTimes(Float64Array.of(7362, 7362 + 1 / 24), coding, markers, { unit: "s", onOverflow: "error", dataType: "float64" }));
		expect(error).toMatchObject({ code: "TRUNCATION", index: 1 });
		expect(error.message).toBe(
			"value 7362.041666666667 of float64 CF time (days since 2000-01-01, standard) at index 1 is not a whole number of s: the float64 holds 7362.04166666666696983156…, the binary fraction nearest to the decimal it prints as (it would be floored to 1582765200 s, or rounded to the nearest, 1582765200 s)",
		);
		// A double that is its decimal holds a real fraction: no word about binary fractions.
		const seconds = parseCfTimeCoding({ units: "seconds since 2000-01-01" });
		expect(thrown(() => decodeCfTimes(Float64Array.of(0.75), seconds, markers, { unit: "s", onOverflow: "error", dataType: "float64" })).message).toBe(
			"value 0.75 of float64 CF time (seconds since 2000-01-01, standard) at index 0 is not a whole number of s (it would be floored to 946684800 s, or rounded to the nearest, 946684801 s)",
		);
	});

	it("unit auto with rounding: the coarsest unit every float count is within one ulp of", () => {
		const auto = (values: number[], units: string, float32 = false) => {
			const coding = parseCfTimeCoding({ units });
			const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: float32 ? "float32" : "float64", attributes: {}, fillValue: null });
			return refineTargetUnits(float32 ? Float32Array.from(values) : Float64Array.from(values), coding, markers, { exact: "s", nearest: "s" });
		};
		// `inexact`: the first count that is no whole number of ns, which an exact export refuses (what inspect says).
		expect(auto([7362, 7362 + 1 / 24, 7362 + 2 / 24], "days since 2000-01-01")).toEqual({ exact: "ns", nearest: "s", inexact: 7362 + 1 / 24 });
		expect(auto([0.1], "hours since 2000-01-01")).toEqual({ exact: "ns", nearest: "s", inexact: 0.1 });
		// A count that is really a fraction of a second (250 ms) is no whole second within its ulp.
		expect(auto([7362 + 0.25 / 86400], "days since 2000-01-01")).toEqual({ exact: "ns", nearest: "ms", inexact: 7362 + 0.25 / 86400 });
		expect(auto([1.5], "seconds since 2000-01-01")).toEqual({ exact: "ms", nearest: "ms" });
		// float32 holds far less: 1/3 hour is 20 minutes within its ulp.
		expect(auto([1 / 3], "hours since 2000-01-01", true)).toEqual({ exact: "ns", nearest: "s", inexact: Math.fround(1 / 3) });
	});
});
