import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConversionError, convertTimestamps, convertWithPlan, toArrowTimestamps, type TimestampValues } from "../src/convert/to-arrow-timestamps.js";
import { planConversion } from "../src/convert/plan.js";
import { daysFromMonths } from "../src/convert/calendar.js";
import type { Datetime64Type } from "../src/dtype/datetime64.js";
import { describeForCli } from "../src/cli/error-advice.js";
import { thrown } from "./support/thrown.js";
import { NAT, referenceAutoUnit, referenceConvert, referenceDaysFromMonths } from "./support/reference-convert.js";

const UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as"] as const;
const TARGETS = ["s", "ms", "us", "ns"] as const;
const dt = (unit: (typeof UNITS)[number] | "generic", scaleFactor = 1): Datetime64Type => ({ kind: "datetime64", unit, scaleFactor });

function isValid(validity: Uint8Array | null, i: number): boolean {
	return validity === null || (validity[i >> 3] & (1 << (i & 7))) !== 0;
}

/** Converts one value with the given policy and reports what happened, in the reference's terms. */
function convertOne(count: bigint, type: Datetime64Type, target: (typeof TARGETS)[number]) {
	try {
		const strict = toArrowTimestamps(BigInt64Array.of(count), type, { unit: target });
		if (!isValid(strict.validity, 0)) return { kind: "null" } as const;
		return { kind: "value", value: strict.values[0], exact: true } as const;
	} catch (error) {
		if (!(error instanceof ConversionError)) throw error;
		if (error.code === "OVERFLOW") return { kind: "overflow" } as const;
		if (error.code === "VALUE_INVALID") return { kind: "generic" } as const;
		const floored = toArrowTimestamps(BigInt64Array.of(count), type, { unit: target, allowTruncate: true });
		return { kind: "value", value: floored.values[0], exact: false } as const;
	}
}

describe("toArrowTimestamps", () => {
	it("passes values through untouched when the unit is the target, only marking NaT", () => {
		const input = BigInt64Array.of(1n, NAT, -5n, 2n ** 63n - 1n);
		const out = toArrowTimestamps(input, dt("ns"));
		expect(out.values).toBe(input);
		expect(out.unit).toBe("ns");
		expect(out.nullCount).toBe(1);
		expect([0, 1, 2, 3].map((i) => isValid(out.validity, i))).toEqual([true, false, true, true]);
	});

	it("returns no validity bitmap when nothing is NaT", () => {
		const out = toArrowTimestamps(BigInt64Array.of(1n, 2n), dt("D"));
		expect(out.validity).toBeNull();
		expect(out.nullCount).toBe(0);
		expect(Array.from(out.values)).toEqual([86_400n, 172_800n]);
	});

	it("accepts raw little-endian bytes, aligned or not", () => {
		const source = BigInt64Array.of(12_817n, NAT);
		const bytes = new Uint8Array(17);
		bytes.set(new Uint8Array(source.buffer), 1);
		const out = toArrowTimestamps(bytes.subarray(1), dt("D"));
		expect(out.values[0]).toBe(1_107_388_800n);
		expect(out.nullCount).toBe(1);
		expect(() => toArrowTimestamps(new Uint8Array(7), dt("D"))).toThrow(/not a whole number of 8-byte values/);
	});

	it("accepts a Node Buffer at an unaligned offset (whose slice is a view, not a copy)", () => {
		const source = BigInt64Array.of(12_817n, NAT);
		const bytes = Buffer.alloc(17);
		bytes.set(new Uint8Array(source.buffer), 1);
		const out = toArrowTimestamps(bytes.subarray(1), dt("D"));
		expect(Array.from(out.values)).toEqual([1_107_388_800n, NAT]);
		expect(out.nullCount).toBe(1);
	});

	it("chooses the auto target unit from the source unit", () => {
		for (const unit of UNITS) {
			expect(toArrowTimestamps(BigInt64Array.of(0n), dt(unit)).unit).toBe(referenceAutoUnit(unit));
		}
	});

	it("floors like numpy: -1500 ps is -2 ns", () => {
		expect(toArrowTimestamps(BigInt64Array.of(-1500n), dt("ps"), { allowTruncate: true }).values[0]).toBe(-2n);
		expect(toArrowTimestamps(BigInt64Array.of(1500n), dt("ps"), { allowTruncate: true }).values[0]).toBe(1n);
	});

	it("refuses truncation, naming the value and its position, in the data's terms (no CLI flag)", () => {
		const refused = thrown(() => toArrowTimestamps(BigInt64Array.of(0n, -1500n), dt("ps")));
		expect(refused).toMatchObject({ code: "TRUNCATION", index: 1, value: -1500n, unit: "ns" });
		expect(refused.message).toBe("value -1500 of datetime64[ps] at index 1 is not a whole number of ns (it would be floored to -2 ns, or rounded to the nearest, -2 ns)");
		expect(() =>
			convertTimestamps(BigInt64Array.of(7n), dt("ms", 10), { unit: "s", describePosition: (i) => `row ${i + 100}` }),
		).toThrow("value 7 of datetime64[10ms] at row 100 is not a whole number of s (it would be floored to 0 s, or rounded to the nearest, 0 s)");
	});

	it("the CLI suggests a finer --unit only when there is one (ns is the finest)", () => {
		for (const unit of ["s", "ms", "us"] as const) {
			expect(describeForCli(thrown(() => toArrowTimestamps(BigInt64Array.of(1n), dt("as"), { unit })))).toMatch(/; use --round to round to the nearest \(as xarray decodes floats\), --allow-truncate to floor, or a finer --unit$/);
		}
		expect(describeForCli(thrown(() => toArrowTimestamps(BigInt64Array.of(1n), dt("as"), { unit: "ns" })))).toMatch(/; use --round to round to the nearest \(as xarray decodes floats\), --allow-truncate to floor$/);
	});

	it("refuses overflow where numpy wraps: 10^15 days in ns", () => {
		const refused = thrown(() => toArrowTimestamps(BigInt64Array.of(10n ** 15n), dt("D"), { unit: "ns" }));
		expect(refused).toMatchObject({ code: "OVERFLOW", index: 0, value: 10n ** 15n, unit: "ns" });
		expect(refused.message).toBe("value 1000000000000000 of datetime64[D] at index 0 is outside the int64 range in unit ns");
		// 10^15 days are 8.64e19 s, past int64 in s too: no coarser unit holds them, so none is suggested.
		expect(refused.coarserUnitHolds).toBe(false);
		expect(describeForCli(refused)).toBe(`${refused.message} (use --on-overflow null to write null instead)`);
		const inMicroseconds = thrown(() => toArrowTimestamps(BigInt64Array.of(10n ** 13n), dt("D"), { unit: "ns" }));
		expect(inMicroseconds.coarserUnitHolds).toBe(true);
		expect(describeForCli(inMicroseconds)).toBe(`${inMicroseconds.message} (a coarser --unit, us, ms or s, holds a wider range: ns ends in 2262, us in year 294,246; or --on-overflow null writes null instead)`);
		const inSeconds = thrown(() => toArrowTimestamps(BigInt64Array.of(2n ** 62n), dt("W"), { unit: "s" }));
		expect(describeForCli(inSeconds)).toBe(`${inSeconds.message} (use --on-overflow null to write null instead)`);
		const nulled = toArrowTimestamps(BigInt64Array.of(10n ** 15n, 1n), dt("D"), { unit: "ns", onOverflow: "null" });
		expect(nulled.nullCount).toBe(1);
		expect(isValid(nulled.validity, 0)).toBe(false);
		expect(nulled.values[1]).toBe(86_400_000_000_000n);
	});

	it("treats a result of exactly -2^63 as overflow, since that int64 is NaT", () => {
		expect(() => toArrowTimestamps(BigInt64Array.of(-(2n ** 62n)), dt("s", 2), { unit: "s" })).toThrow(/outside the int64 range/);
	});

	it("refuses any value but NaT in a generic datetime64", () => {
		const out = toArrowTimestamps(BigInt64Array.of(NAT, NAT), dt("generic"));
		expect(out.nullCount).toBe(2);
		expect(() => toArrowTimestamps(BigInt64Array.of(NAT, 5n), dt("generic"))).toThrow(
			"value 5 of datetime64 at index 1: a generic datetime64 (no unit) can only hold NaT",
		);
	});

	it("converts the int64 bounds exactly", () => {
		const max = 2n ** 63n - 1n;
		expect(toArrowTimestamps(BigInt64Array.of(max, -max), dt("ns"), { unit: "ns" }).values).toEqual(BigInt64Array.of(max, -max));
		expect(toArrowTimestamps(BigInt64Array.of(max, -max), dt("ns"), { unit: "s", allowTruncate: true }).values).toEqual(
			BigInt64Array.of(9_223_372_036n, -9_223_372_037n),
		);
		expect(toArrowTimestamps(BigInt64Array.of(2n ** 53n + 1n), dt("us"), { unit: "us" }).values[0]).toBe(2n ** 53n + 1n);
		expect(toArrowTimestamps(BigInt64Array.of(2n ** 53n + 1n), dt("ps"), { unit: "ns", allowTruncate: true }).values[0]).toBe(
			(2n ** 53n + 1n) / 1000n,
		);
	});

	it("handles the largest scale factor", () => {
		const out = toArrowTimestamps(BigInt64Array.of(3n, -3n), dt("s", 2_147_483_647));
		expect(Array.from(out.values)).toEqual([3n * 2_147_483_647n, -3n * 2_147_483_647n]);
	});

	it("reads Y and M as calendar units: month 0 is January 1970", () => {
		const months = toArrowTimestamps(BigInt64Array.of(0n, 1n, 2n, -1n, 421n), dt("M"));
		expect(Array.from(months.values)).toEqual([0n, 2_678_400n, 5_097_600n, -2_678_400n, 1_107_216_000n]);
		const years = toArrowTimestamps(BigInt64Array.of(35n, -1970n), dt("Y"));
		expect(Array.from(years.values)).toEqual([1_104_537_600n, -62_167_219_200n]);
	});
});

describe("daysFromMonths", () => {
	it("agrees with the leap-year-rule reference over 40,000 years around 1970", () => {
		for (let months = -240_000; months <= 240_000; months += 7) {
			expect(BigInt(daysFromMonths(months))).toBe(referenceDaysFromMonths(BigInt(months)));
		}
	});
});

describe("property: conversion equals the BigInt reference", () => {
	const int64 = fc.oneof(
		fc.bigInt({ min: NAT, max: 2n ** 63n - 1n }),
		fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }),
		fc.bigInt({ min: -100_000n, max: 100_000n }),
		fc.constantFrom(NAT, NAT + 1n, 2n ** 63n - 1n, 0n, 2n ** 53n + 1n, -(2n ** 53n) - 1n),
	);
	const scale = fc.oneof(fc.integer({ min: 1, max: 2_147_483_647 }), fc.constantFrom(1, 7, 10, 1000, 1_000_000, 2_147_483_647));

	it("for every unit, scale and target", () => {
		fc.assert(
			fc.property(int64, fc.constantFrom(...UNITS), scale, fc.constantFrom(...TARGETS), (count, unit, k, target) => {
				const expected = referenceConvert(count, unit, k, target);
				expect(convertOne(count, dt(unit, k), target)).toEqual(expected);
			}),
			{ numRuns: 30_000, seed: 20261202 },
		);
	});

	it("for whole batches, with NaT mixed in and overflow as null", () => {
		fc.assert(
			fc.property(fc.array(int64, { maxLength: 200 }), fc.constantFrom(...UNITS), scale, fc.constantFrom(...TARGETS), (counts, unit, k, target) => {
				const out = toArrowTimestamps(BigInt64Array.from(counts), dt(unit, k), { unit: target, allowTruncate: true, onOverflow: "null" });
				let nulls = 0;
				counts.forEach((count, i) => {
					const expected = referenceConvert(count, unit, k, target);
					if (expected.kind === "value") {
						expect(isValid(out.validity, i)).toBe(true);
						expect(out.values[i]).toBe(expected.value);
					} else {
						expect(isValid(out.validity, i)).toBe(false);
						nulls++;
					}
				});
				expect(out.nullCount).toBe(nulls);
			}),
			{ numRuns: 3_000, seed: 7 },
		);
	});
});

describe("property: converting in place equals converting into a new buffer", () => {
	const int64 = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.constant(NAT));
	const scale = fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 2 ** 31 - 1 }));
	const outcome = (run: () => TimestampValues) => {
		try {
			const out = run();
			return { values: Array.from(out.values, (v, i) => (isValid(out.validity, i) ? v : null)), nullCount: out.nullCount };
		} catch (error) {
			return { error: (error as Error).message };
		}
	};

	it("for every unit, scale, target and policy, refusals included", () => {
		fc.assert(
			fc.property(
				fc.array(int64, { maxLength: 60 }),
				fc.constantFrom(...UNITS),
				scale,
				fc.constantFrom(...TARGETS),
				fc.constantFrom("error" as const, "floor" as const, "nearest" as const),
				fc.constantFrom("error" as const, "null" as const),
				(counts, unit, k, target, rounding, onOverflow) => {
					const plan = planConversion(dt(unit, k), target);
					const copy = BigInt64Array.from(counts);
					const separate = outcome(() => convertWithPlan(BigInt64Array.from(counts), plan, { rounding, onOverflow }));
					const inPlace = outcome(() => convertWithPlan(copy, plan, { rounding, onOverflow, inPlace: true }));
					expect(inPlace).toEqual(separate);
				},
			),
			{ numRuns: 5_000, seed: 99 },
		);
	});

	it("writes over the input only when asked", () => {
		const input = BigInt64Array.of(1n, NAT, 2n);
		const plan = planConversion(dt("D"), "s");
		const out = convertWithPlan(input, plan, { rounding: "error", onOverflow: "error" });
		expect(Array.from(input)).toEqual([1n, NAT, 2n]);
		expect(out.values).not.toBe(input);
		const inPlace = convertWithPlan(input, plan, { rounding: "error", onOverflow: "error", inPlace: true });
		expect(inPlace.values).toBe(input);
		expect([input[0], input[2]]).toEqual([86_400n, 172_800n]);
	});
});
