import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ConversionError, toArrowTimestamps } from "../src/convert/to-arrow-timestamps.js";
import type { Datetime64Type } from "../src/dtype/datetime64.js";
import type { DatetimeUnit, TargetUnit } from "../src/dtype/units.js";

type Expected = { kind: "null" } | { kind: "overflow" } | { kind: "value"; value: string; exact: boolean; numpy: boolean };
interface GoldenCase {
	unit: DatetimeUnit;
	scale: number;
	auto: TargetUnit;
	inputs: string[];
	targets: Record<TargetUnit, Expected[]>;
}
interface Golden {
	numpy_version: string;
	cases: GoldenCase[];
	facts: { input: string; unit: DatetimeUnit; scale: number; target: TargetUnit; expected: string; numpy_wrapped_value?: string }[];
}

/** Made by test/golden/make_golden.py with numpy; see its docstring. */
const golden = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "golden/datetime64-golden.json"), "utf8")) as Golden;
const isValid = (validity: Uint8Array | null, i: number) => validity === null || (validity[i >> 3] & (1 << (i & 7))) !== 0;

describe(`golden values computed by numpy ${golden.numpy_version}`, () => {
	for (const c of golden.cases) {
		it(`${c.scale}${c.unit}`, () => {
			const type: Datetime64Type = { kind: "datetime64", unit: c.unit, scaleFactor: c.scale };
			const counts = BigInt64Array.from(c.inputs.map(BigInt));
			expect(toArrowTimestamps(new BigInt64Array(0), type).unit).toBe(c.auto);
			for (const [target, expected] of Object.entries(c.targets) as [TargetUnit, Expected[]][]) {
				// The whole batch at once, flooring and nulling, then each refusal one value at a time.
				const out = toArrowTimestamps(counts, type, { unit: target, allowTruncate: true, onOverflow: "null" });
				expected.forEach((e, i) => {
					if (e.kind === "value") expect([i, out.values[i]]).toEqual([i, BigInt(e.value)]);
					else expect([i, isValid(out.validity, i)]).toEqual([i, false]);
					const single = () => toArrowTimestamps(counts.subarray(i, i + 1), type, { unit: target });
					if (e.kind === "overflow") expect(single).toThrow(/outside the int64 range/);
					else if (e.kind === "value" && !e.exact) expect(single).toThrow(ConversionError);
					else expect(single).not.toThrow();
				});
			}
		});
	}

	it("numpy facts: casting floors, and numpy wraps where we refuse", () => {
		for (const fact of golden.facts) {
			const type: Datetime64Type = { kind: "datetime64", unit: fact.unit, scaleFactor: fact.scale };
			const input = BigInt64Array.of(BigInt(fact.input));
			if (fact.expected === "overflow") {
				expect(fact.numpy_wrapped_value).toBeDefined();
				expect(() => toArrowTimestamps(input, type, { unit: fact.target })).toThrow(/outside the int64 range/);
			} else {
				expect(toArrowTimestamps(input, type, { unit: fact.target, allowTruncate: true }).values[0]).toBe(BigInt(fact.expected));
			}
		}
	});
});
