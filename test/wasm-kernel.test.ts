import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { planConversion } from "../src/convert/plan.js";
import { convertWithPlan } from "../src/convert/to-arrow-timestamps.js";
import { LINEAR_KERNEL_WASM_BASE64 } from "../src/convert/wasm/linear-kernel-wasm.js";
import { WASM_WINDOW_VALUES, WasmLinearKernel } from "../src/convert/wasm/wasm-kernel.js";
import type { Datetime64Type } from "../src/dtype/datetime64.js";
import { compileKernel, kernelSource } from "../scripts/build-wasm-kernel.mjs";
import { NAT, referenceConvert } from "./support/reference-convert.js";

const REPO = path.resolve(import.meta.dirname, "..");
const dt = (unit: Datetime64Type["unit"], scaleFactor = 1): Datetime64Type => ({ kind: "datetime64", unit, scaleFactor });

/** A deterministic batch over several windows: plain values, NaT, int64 extremes and values near the limits. */
function batch(length: number, special: bigint[]): BigInt64Array {
	const values = new BigInt64Array(length);
	let x = 0x2545f4914f6cdd1dn;
	for (let i = 0; i < length; i++) {
		x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
		values[i] = BigInt.asIntN(64, x) >> BigInt(Number(x & 63n));
	}
	// The special values land at window edges and in between, where a stop must resume correctly.
	const spots = [0, 1, WASM_WINDOW_VALUES - 1, WASM_WINDOW_VALUES, WASM_WINDOW_VALUES + 1, 2 * WASM_WINDOW_VALUES - 1, length - 1];
	spots.forEach((spot, k) => (values[spot] = special[k % special.length]));
	for (let i = 7; i < length; i += 4099) values[i] = special[i % special.length];
	return values;
}

describe("WebAssembly linear kernel", () => {
	it("is the committed build of linear-kernel.wat", async () => {
		const bytes = await compileKernel();
		expect(Buffer.from(LINEAR_KERNEL_WASM_BASE64, "base64").equals(bytes)).toBe(true);
		expect(fs.readFileSync(path.join(REPO, "src/convert/wasm/linear-kernel-wasm.ts"), "utf8")).toBe(kernelSource(bytes));
	});

	it("takes one-multiply and one-divide plans only", () => {
		expect(WasmLinearKernel.forPlan(planConversion(dt("D"), "s"), "error")).not.toBeNull();
		expect(WasmLinearKernel.forPlan(planConversion(dt("ps"), "ns"), "error")).not.toBeNull();
		expect(WasmLinearKernel.forPlan(planConversion(dt("ns", 3), "us"), "error")).toBeNull(); // x3 then /1000
		expect(WasmLinearKernel.forPlan(planConversion(dt("s"), "s"), "error")).toBeNull(); // pass-through
		expect(WasmLinearKernel.forPlan(planConversion(dt("M"), "s"), "error")).toBeNull(); // calendar
		expect(WasmLinearKernel.forPlan(planConversion(dt("W", 2 ** 31 - 1), "ns"), "error")).toBeNull(); // p past int64
	});

	const cases = [
		{ name: "D -> ns (multiply, overflow as null)", type: dt("D"), target: "ns" as const, rounding: "error" as const, onOverflow: "null" as const },
		{ name: "10us -> us (multiply)", type: dt("us", 10), target: "us" as const, rounding: "error" as const, onOverflow: "null" as const },
		{ name: "ps -> ns (floor division)", type: dt("ps"), target: "ns" as const, rounding: "floor" as const, onOverflow: "error" as const },
		{ name: "as -> s (division by 10^18)", type: dt("as"), target: "s" as const, rounding: "floor" as const, onOverflow: "error" as const },
	];
	for (const c of cases) {
		for (const inPlace of [false, true]) {
			it(`${c.name}${inPlace ? ", in place" : ""}: every value over several windows equals the BigInt reference`, () => {
				const special = [NAT, NAT + 1n, 2n ** 63n - 1n, -1n, 0n, 106_751n, -106_752n, -1500n];
				const input = batch(2 * WASM_WINDOW_VALUES + 1234, special);
				const original = input.slice();
				const out = convertWithPlan(input, planConversion(c.type, c.target), { rounding: c.rounding, onOverflow: c.onOverflow, inPlace });
				expect(out.values === input).toBe(inPlace);
				let nulls = 0;
				for (let i = 0; i < original.length; i++) {
					const expected = referenceConvert(original[i], c.type.unit, c.type.scaleFactor, c.target);
					const valid = out.validity === null || (out.validity[i >> 3] & (1 << (i & 7))) !== 0;
					if (expected.kind === "value") {
						if (!valid || out.values[i] !== expected.value) expect({ i, value: out.values[i], valid }).toEqual({ i, value: expected.value, valid: true });
					} else {
						nulls++;
						if (valid) expect({ i, valid }).toEqual({ i, valid: false });
					}
				}
				expect(out.nullCount).toBe(nulls);
			});
		}
	}

	it("stops at a refused truncation and names the value and its index, past the first window", () => {
		const input = new BigInt64Array(WASM_WINDOW_VALUES + 10).fill(2000n);
		input[WASM_WINDOW_VALUES + 3] = -1500n;
		expect(() => convertWithPlan(input, planConversion(dt("ps"), "ns"), { rounding: "error", onOverflow: "error", inPlace: true })).toThrow(
			`value -1500 of datetime64[ps] at index ${WASM_WINDOW_VALUES + 3} is not a whole number of ns`,
		);
	});
});
