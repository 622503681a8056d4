/**
 * Integer CF counts of a real-world calendar (xarray's int64 encoding of datetime64, a netCDF file's int32 hours)
 * are decoded by the WebAssembly kernel, count × step + start, which stops at the missing-value markers and at
 * instants outside int64 for the general path: every value over several windows equals the BigInt reference, in
 * place or not, from every integer width.
 */
import { describe, expect, it } from "vitest";
import { veltkampHigh } from "../src/cf/exact-double.js";
import { WASM_WINDOW_VALUES, WasmLinearKernel } from "../src/convert/wasm/wasm-kernel.js";
import { cfMissingValueMarkers, decodeCfTimes, parseCfTimeCoding } from "../src/index.js";
import { decodeCfCounts } from "../src/cf/decode-cf-times.js";
import { thrown } from "./support/thrown.js";

const NAT = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const LENGTH = 2 * WASM_WINDOW_VALUES + 1234;
/** Window edges and points between, where a stop must resume correctly. */
const SPOTS = [0, 1, WASM_WINDOW_VALUES - 1, WASM_WINDOW_VALUES, WASM_WINDOW_VALUES + 1, 2 * WASM_WINDOW_VALUES - 1, LENGTH - 1];

/** A deterministic generator of 64-bit patterns. */
function* patterns(): Generator<bigint> {
	let x = 0x2545f4914f6cdd1dn;
	for (;;) {
		x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
		yield x;
	}
}

/** Counts mostly within `span` of zero, some anywhere in int64, the special ones at window edges and every 4099th. */
function int64Counts(span: bigint, special: bigint[]): BigInt64Array {
	const values = new BigInt64Array(LENGTH);
	const next = patterns();
	for (let i = 0; i < LENGTH; i++) {
		const x = next.next().value as bigint;
		values[i] = x % 8n === 0n ? BigInt.asIntN(64, x) : (BigInt.asIntN(64, x) % span);
	}
	SPOTS.forEach((spot, k) => (values[spot] = special[k % special.length]));
	for (let i = 7; i < LENGTH; i += 4099) values[i] = special[i % special.length];
	return values;
}

function valid(validity: Uint8Array | null, i: number): boolean {
	return validity === null || ((validity[i >> 3] >> (i & 7)) & 1) === 1;
}

/** Every value is its instant, count × step + start in (-2^63, 2^63), or null: a marker, or (overflow as null) outside. */
function expectDecoded(counts: ArrayLike<number | bigint>, decoded: ReturnType<typeof decodeCfTimes>, step: bigint, start: bigint, markers: readonly bigint[]): void {
	let nulls = 0;
	for (let i = 0; i < counts.length; i++) {
		const count = BigInt(counts[i]);
		const instant = count * step + start;
		const expected = markers.includes(count) || instant <= NAT || instant > INT64_MAX ? null : instant;
		const got = valid(decoded.validity, i) ? decoded.values[i] : null;
		if (got !== expected) expect({ i, count, got }).toEqual({ i, count, got: expected });
		if (expected === null) {
			nulls++;
			// A null's slot holds 0, in place as in a new buffer: the same output bytes either way.
			if (decoded.values[i] !== 0n) expect({ i, slot: decoded.values[i] }).toEqual({ i, slot: 0n });
		}
	}
	expect(decoded.nullCount).toBe(nulls);
}

describe("integer CF counts through the WebAssembly kernel", () => {
	it("takes a real-world calendar's whole units with up to two markers", () => {
		expect(WasmLinearKernel.forAffine(3_600_000_000_000n, 946_684_800_000_000_000n, [NAT, 12345n])).not.toBeNull();
		expect(WasmLinearKernel.forAffine(3_600_000_000_000n, 0n, [1n, 2n, 3n])).toBeNull();
		expect(WasmLinearKernel.forAffine(0n, 0n, [])).toBeNull();
	});

	const coding = parseCfTimeCoding({ units: "hours since 2000-01-01" }, {});
	const step = 3_600_000_000_000n;
	const start = 946_684_800_000_000_000n;

	for (const inPlace of [false, true]) {
		it(`int64 hours to ns with NaT and a _FillValue (two markers)${inPlace ? ", in place" : ""}`, () => {
			const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: { _FillValue: 12345 }, fillValue: null });
			expect([...markers.integers].sort()).toEqual([NAT, 12345n].sort());
			// The last counts whose instant is in (-2^63, 2^63), and the first past them.
			const highest = (INT64_MAX - start) / step;
			const lowest = -((start - NAT - 1n) / step);
			expect([highest, lowest]).toEqual([2_299_079n, -2_825_015n]);
			const counts = int64Counts(3_000_000n, [NAT, 12345n, highest, highest + 1n, lowest, lowest - 1n, 0n, -1n]);
			const original = counts.slice();
			const decoded = decodeCfCounts(counts, coding, markers, { unit: "ns", onOverflow: "null", dataType: "int64", inPlace });
			expect(decoded.values === counts).toBe(inPlace);
			expectDecoded(original, decoded, step, start, [NAT, 12345n]);
			expect(decoded.overflowed?.length).toBeGreaterThan(0);
		});
	}

	it("more markers than the kernel holds: the general path, the same values", () => {
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "int64", attributes: { _FillValue: 1, missing_value: [2, 3] }, fillValue: null });
		expect(markers.integers.size).toBe(4); // and NaT
		const counts = int64Counts(3_000_000n, [1n, 2n, 3n, NAT, 2_400_000n]);
		const decoded = decodeCfTimes(counts.slice(), coding, markers, { unit: "ns", onOverflow: "null", dataType: "int64" });
		expectDecoded(counts, decoded, step, start, [1n, 2n, 3n, NAT]);
	});

	it("an instant outside int64 is refused at its index, past the first window", () => {
		const counts = new BigInt64Array(WASM_WINDOW_VALUES + 10).fill(5n);
		counts[WASM_WINDOW_VALUES + 3] = 3_000_000n;
		const markers = cfMissingValueMarkers({ zarrFormat: 2, dataType: "int64", attributes: {}, fillValue: null });
		const error = thrown(() => decodeCfCounts(counts, coding, markers, { unit: "ns", onOverflow: "error", dataType: "int64", inPlace: true }));
		expect(error).toMatchObject({ code: "OVERFLOW" });
		expect(error.message).toMatch(new RegExp(`^value 3000000 of int64 CF time \\(hours since 2000-01-01.*\\) at index ${WASM_WINDOW_VALUES + 3} is outside the int64 range in unit ns`));
	});

	const narrow = [
		{ name: "int32", make: (n: number) => new Int32Array(n), range: 2 ** 32, low: -(2 ** 31), fill: -2147483647 },
		{ name: "uint32", make: (n: number) => new Uint32Array(n), range: 2 ** 32, low: 0, fill: 4294967295 },
		{ name: "int16", make: (n: number) => new Int16Array(n), range: 2 ** 16, low: -(2 ** 15), fill: -32767 },
		{ name: "int8", make: (n: number) => new Int8Array(n), range: 2 ** 8, low: -(2 ** 7), fill: -127 },
		{ name: "uint8", make: (n: number) => new Uint8Array(n), range: 2 ** 8, low: 0, fill: 255 },
	];
	for (const type of narrow) {
		it(`${type.name} days to s, widened as loaded, with a _FillValue`, () => {
			const days = parseCfTimeCoding({ units: "days since 1970-01-01" }, {});
			const counts = type.make(LENGTH);
			const next = patterns();
			for (let i = 0; i < LENGTH; i++) counts[i] = type.low + Number((next.next().value as bigint) % BigInt(type.range));
			SPOTS.forEach((spot) => (counts[spot] = type.fill));
			const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: type.name as "int32", attributes: { _FillValue: type.fill }, fillValue: null });
			// Not in place (the widths differ): into the memory the caller gives, each slot written over what it held.
			const given = new BigInt64Array(LENGTH).fill(-7n);
			const decoded = decodeCfCounts(counts, days, markers, { unit: "s", onOverflow: "error", dataType: type.name, inPlace: true, allocateValues: () => given });
			expect(decoded.values).toBe(given);
			expectDecoded(counts, decoded, 86_400n, 0n, [BigInt(type.fill)]);
			expect(decoded.nullCount).toBeGreaterThanOrEqual(SPOTS.length);
		});
	}
});

describe("float CF counts through the WebAssembly kernel", () => {
	/** Doubles of every kind the kernel must stop at or take: fractions exact and not, -0, NaN, infinities, 2^53 edges. */
	function floatCounts(make: (n: number) => Float64Array | Float32Array, special: number[]): Float64Array | Float32Array {
		const values = make(LENGTH);
		const next = patterns();
		for (let i = 0; i < LENGTH; i++) {
			const x = next.next().value as bigint;
			const pick = Number(x % 6n);
			const whole = Number((x >> 8n) % 2_000_000n) - 1_000_000;
			values[i] = pick === 0 ? whole : pick === 1 ? whole + 0.25 : pick === 2 ? whole / 3 : pick === 3 ? whole * 0.1 : pick === 4 ? Number(BigInt.asIntN(64, x)) / 7 : whole / 1024;
		}
		SPOTS.forEach((spot, k) => (values[spot] = special[k % special.length]));
		for (let i = 7; i < LENGTH; i += 4099) values[i] = special[i % special.length];
		return values;
	}
	const special = [Number.NaN, -9999, Number.POSITIVE_INFINITY, -0, 2 ** 53, 2 ** 53 - 1, 0.1, Number.NEGATIVE_INFINITY, 1e300, -1e-300];

	const cases = [
		["float64", "hours since 2000-01-01"],
		["float64", "days since 1677-09-22"],
		["float32", "seconds since 1970-01-01"],
	] as const;
	for (const [name, units] of cases) {
		const make = (n: number) => (name === "float64" ? new Float64Array(n) : new Float32Array(n));
			it(`${name} ${units}: the same instants, nulls and overflows as the general path`, () => {
				const coding = parseCfTimeCoding({ units }, {});
				const counts = floatCounts(make, special);
				const two = cfMissingValueMarkers({ zarrFormat: 3, dataType: name, attributes: { _FillValue: -9999 }, fillValue: null });
				// Markers the data never holds, beyond what the kernel takes: the general path alone.
				const four = cfMissingValueMarkers({ zarrFormat: 3, dataType: name, attributes: { _FillValue: -9999, missing_value: [-9998.5, -9997.5, -9996.5] }, fillValue: null });
				expect(four.floats.size).toBeGreaterThan(2);
				for (const unit of ["ns", "s"] as const) {
					// Floor: a product that rounds to a whole number from below is one less (Dekker tells it is inexact).
					const options = { unit, rounding: "floor" as const, onOverflow: "null" as const, dataType: name };
					const kernel = decodeCfCounts(counts.slice(), coding, two, { ...options, inPlace: true });
					const general = decodeCfTimes(counts.slice(), coding, four, options);
					expect(kernel.nullCount).toBe(general.nullCount);
					expect(kernel.overflowed ?? []).toEqual(general.overflowed ?? []);
					expect(Buffer.from(kernel.validity ?? new Uint8Array(0)).equals(Buffer.from(general.validity ?? new Uint8Array(0)))).toBe(true);
					const differing = kernel.values.findIndex((value, i) => value !== general.values[i]);
					expect(differing === -1 ? null : { i: differing, count: counts[differing], kernel: kernel.values[differing], general: general.values[differing] }).toBeNull();
				}
			});
	}

	it("takes the step and markers it holds", () => {
		expect(WasmLinearKernel.forAffineFloat(3_600_000_000_000n, veltkampHigh(3_600_000_000_000), 0n, [-9999])).not.toBeNull();
		expect(WasmLinearKernel.forAffineFloat(2n ** 53n, veltkampHigh(2 ** 53), 0n, [])).toBeNull();
		expect(WasmLinearKernel.forAffineFloat(1n, 1, 0n, [1, 2, 3])).toBeNull();
	});

	it("float64 in place: the instants take the counts' bytes", () => {
		const counts = new Float64Array([0, 1.5, Number.NaN, 24]);
		const coding = parseCfTimeCoding({ units: "hours since 2000-01-01" }, {});
		const markers = cfMissingValueMarkers({ zarrFormat: 3, dataType: "float64", attributes: {}, fillValue: null });
		const decoded = decodeCfCounts(counts, coding, markers, { unit: "s", onOverflow: "error", dataType: "float64", inPlace: true });
		expect(decoded.values.buffer).toBe(counts.buffer);
		expect([...decoded.values]).toEqual([946684800n, 946684800n + 5400n, 0n, 946684800n + 86400n]);
		expect(decoded.nullCount).toBe(1);
	});
});
