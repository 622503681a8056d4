import { describe, expect, it } from "vitest";
import { maskNaN, maskRuleOf, maskValues, type MaskSource } from "../src/cf/masking.js";
import { packingRuleOf, unpackValues } from "../src/cf/packing.js";
import { broadcastStrides, broadcastValues } from "../src/table/broadcast.js";
import { dimensionNamesOf, layOutTable, selectWholeDataset, type DatasetVariable } from "../src/table/dataset-model.js";
import { thrown } from "./support/thrown.js";

const bits = (validity: { bitmap: Uint8Array } | undefined, length: number) =>
	validity === undefined ? "all valid" : Array.from({ length }, (_, i) => ((validity.bitmap[i >> 3] >> (i & 7)) & 1 ? "1" : "0")).join("");

const source = (overrides: Partial<MaskSource>): MaskSource => ({ name: "v", type: "int16", zarrFormat: 3, attributes: {}, fillValue: null, ...overrides });

describe("CF masking", () => {
	it("masks _FillValue and every missing_value of a v3 array, and no other value", () => {
		const rule = maskRuleOf(source({ attributes: { _FillValue: -32767, missing_value: [-1, -2] }, fillValue: { kind: "integer", value: 0n } }))!;
		expect([...rule.markers]).toEqual([-32767, -1, -2]);
		expect(bits(maskValues(new Int16Array([5, -32767, -1, 0, -2, 7]), rule), 6)).toBe("100101");
	});

	it("takes v2's fill_value as the _FillValue (xarray's mapping), not a _FillValue attribute", () => {
		const rule = maskRuleOf(source({ zarrFormat: 2, fillValue: { kind: "integer", value: -9999n }, attributes: {} }))!;
		expect(rule.applied).toEqual({ _FillValue: "-9999" });
		expect(bits(maskValues(new Int16Array([-9999, 1]), rule), 2)).toBe("01");
	});

	it("leaves v3's own fill_value alone and has no rule without markers", () => {
		expect(maskRuleOf(source({ fillValue: { kind: "integer", value: 0n } }))).toBeUndefined();
	});

	it("compares 64-bit integers exactly and refuses a marker JSON rounded", () => {
		const rule = maskRuleOf(source({ type: "int64", attributes: { missing_value: 9007199254740991 } }))!;
		expect(bits(maskValues(new BigInt64Array([9007199254740991n, 9007199254740990n]), rule), 2)).toBe("01");
		expect(thrown(() => maskRuleOf(source({ type: "int64", attributes: { _FillValue: 2 ** 60 } }))).message).toMatch(/past 2\^53/);
	});

	it("takes a bound read exactly past 2^53 (a bigint) as it is, and refuses a float bound past 2^53 naming it a float", () => {
		const rule = maskRuleOf(source({ type: "int64", attributes: { valid_range: [-9007199254740993n, 9007199254740993n] } }))!;
		expect(bits(maskValues(new BigInt64Array([9007199254740993n, 9007199254740994n, -9007199254740993n, -9007199254740994n]), rule), 4)).toBe("1010");
		const halves = maskRuleOf(source({ type: "float64", attributes: { valid_max: 9007199254740993n } }))!;
		expect(halves.validMax).toBe(9007199254740992);
		expect(thrown(() => maskRuleOf(source({ type: "uint64", attributes: { valid_max: 1e19 } }))).message).toBe("array v: valid_max 10000000000000000000 of uint64 data is a float past 2^53 (written with a fraction or an exponent), which cannot mark integers exactly; write it as an integer");
	});

	it("compares float32 data with the marker rounded to float32; NaN markers mask nothing", () => {
		const rule = maskRuleOf(source({ type: "float32", attributes: { _FillValue: 1e20, missing_value: "NaN" } }))!;
		expect([...rule.markers]).toEqual([Math.fround(1e20)]);
		expect(bits(maskValues(new Float32Array([1e20, NaN, 1]), rule), 3)).toBe("011");
	});

	it("masks outside valid_range, and valid_min/valid_max, fractional bounds of integers rounded inward", () => {
		const range = maskRuleOf(source({ type: "int8", attributes: { valid_range: [0, 100] } }))!;
		expect(bits(maskValues(new Int8Array([-1, 0, 100, 101]), range), 4)).toBe("0110");
		const minMax = maskRuleOf(source({ type: "int8", attributes: { valid_min: 0.5, valid_max: 9.5 } }))!;
		expect([minMax.validMin, minMax.validMax]).toEqual([1, 9]);
		expect(bits(maskValues(new Int8Array([0, 1, 9, 10]), minMax), 4)).toBe("0110");
	});

	it("turns NaN into null only when asked, on top of the mask", () => {
		const values = new Float64Array([NaN, 1, 2, NaN]);
		const masked = { bitmap: new Uint8Array([0b1101]), nullCount: 1 };
		const both = maskNaN(values, masked);
		expect(bits(both, 4)).toBe("0010");
		expect(both?.nullCount).toBe(3);
	});
});

describe("CF unpacking", () => {
	it("gives Float32 for 8/16-bit data, no offset, a float32 scale factor: numpy's float32 product", () => {
		const scale = Math.fround(0.001);
		const rule = packingRuleOf("tp", "int16", { scale_factor: scale })!;
		expect(rule.target).toBe("float32");
		const out = unpackValues(new Int16Array([147, -32767, 29235]), rule);
		expect(out).toBeInstanceOf(Float32Array);
		expect(Array.from(out)).toEqual([Math.fround(147 * scale), Math.fround(-32767 * scale), Math.fround(29235 * scale)]);
	});

	it("gives Float64 with an offset, a float64 scale factor, or wider data: multiply, then add", () => {
		expect(packingRuleOf("sp", "int16", { scale_factor: 0.5, add_offset: 1000 })!.target).toBe("float64");
		expect(packingRuleOf("x", "int16", { scale_factor: 0.01 })!.target).toBe("float64");
		expect(packingRuleOf("x", "int32", { scale_factor: 0.5 })!.target).toBe("float64");
		const rule = packingRuleOf("x", "int32", { scale_factor: 0.1, add_offset: 273.15 })!;
		expect(Array.from(unpackValues(new Int32Array([3, -7]), rule))).toEqual([3 * 0.1 + 273.15, -7 * 0.1 + 273.15]);
		expect(Array.from(unpackValues(new BigInt64Array([-5n]), packingRuleOf("x", "int64", { scale_factor: 2 })!))).toEqual([-10]);
	});

	it("keeps numpy's -0 for a stored 0 times a negative scale factor without add_offset, for every integer width", () => {
		const negativeZero = (out: ArrayLike<number>) => Object.is(out[0], -0);
		const rule = (type: "int64" | "uint64" | "int32") => packingRuleOf("x", type, { scale_factor: -2 })!;
		expect(negativeZero(unpackValues(new BigInt64Array([0n, 2n]), rule("int64")))).toBe(true);
		expect(negativeZero(unpackValues(new BigUint64Array([0n, 2n]), rule("uint64")))).toBe(true);
		expect(negativeZero(unpackValues(new Int32Array([0, 2]), rule("int32")))).toBe(true);
		// With the attribute, numpy adds it: -0 + 0 is +0.
		expect(Object.is(unpackValues(new BigInt64Array([0n]), packingRuleOf("x", "int64", { scale_factor: -2, add_offset: 0 })!)[0], 0)).toBe(true);
	});

	it("refuses a scale factor that is not a number, and needs one of the two attributes", () => {
		const error = thrown(() => packingRuleOf("x", "int16", { scale_factor: "0.5" }));
		expect(error.code).toBe("METADATA_INVALID");
		expect(error.message).toMatch(/scale_factor must be a finite number/);
		expect(packingRuleOf("x", "int16", { units: "K" })).toBeUndefined();
	});
});

const variable = (name: string, dims: string[] | undefined, shape: number[]): DatasetVariable => ({ name, shape, ...(dims === undefined ? {} : { dimensionNames: dims }) });

describe("table layout", () => {
	it("takes the widest variable's order and broadcasts the others by name", () => {
		const layout = layOutTable([variable("elev", ["lat", "lon"], [3, 4]), variable("t2m", ["time", "lat", "lon"], [6, 3, 4]), variable("lat", ["lat"], [3])]);
		expect(layout.dimensions).toEqual([{ name: "time", length: 6 }, { name: "lat", length: 3 }, { name: "lon", length: 4 }]);
		expect(layout.axes).toEqual([[1, 2], [0, 1, 2], [1]]);
	});

	it("appends the dimensions the widest lacks, in order of appearance", () => {
		const layout = layOutTable([variable("obs", ["time", "station"], [4, 3]), variable("flag", ["sample"], [2])]);
		expect(layout.dimensions.map((d) => d.name)).toEqual(["time", "station", "sample"]);
		expect(layout.axes).toEqual([[0, 1], [2]]);
	});

	it("refuses a dimension with two lengths, listing every variable's dimensions", () => {
		const error = thrown(() => layOutTable([variable("t2m", ["time", "lat"], [6, 3]), variable("elev", ["lat"], [5])]));
		expect(error.code).toBe("COLUMNS_INCOMPATIBLE");
		expect(error.option).toBe("columns");
		expect(error.message).toBe('dimension "lat" has length 3 in t2m and 5 in elev, so they cannot share a table: t2m(time=6, lat=3), elev(lat=5)');
	});

	it("matches a variable over the same dimensions in another order by name (xarray transposes it)", () => {
		const layout = layOutTable([variable("t2m", ["time", "lat", "lon"], [6, 3, 4]), variable("mask", ["lon", "lat"], [4, 3]), variable("u", ["lon", "time", "lat"], [4, 6, 3])]);
		expect(layout.dimensions.map((d) => d.name)).toEqual(["time", "lat", "lon"]);
		expect(layout.axes).toEqual([[0, 1, 2], [2, 1], [2, 0, 1]]);
	});

	it("refuses unnamed variables of another shape and a repeated dimension", () => {
		const unnamed = thrown(() => layOutTable([variable("a", ["x", "y"], [2, 3]), variable("b", undefined, [3, 2])]));
		expect(unnamed.code).toBe("COLUMNS_INCOMPATIBLE");
		expect(unnamed.message).toMatch(/b \[3,2\] \(no dimension names\) cannot be matched.*a\(x=2, y=3\), b \[3,2\]/);
		expect(thrown(() => layOutTable([variable("a", ["x", "x"], [2, 2])])).message).toMatch(/repeats dimension "x"/);
	});

	it("names the dimensions of unnamed variables of one shape dim_0, dim_1...", () => {
		const layout = layOutTable([variable("a", undefined, [2, 3]), variable("b", [null, null] as never, [2, 3])]);
		expect(layout.dimensions.map((d) => d.name)).toEqual(["dim_0", "dim_1"]);
	});

	it("--columns all: every non-index variable within the widest variable's dimensions", () => {
		const { chosen, leftOut } = selectWholeDataset([
			variable("time", ["time"], [6]),
			variable("t2m", ["time", "lat"], [6, 3]),
			variable("elev", ["lat"], [3]),
			variable("spread", ["member"], [5]),
			variable("lat", ["lat"], [3]),
		]);
		expect(chosen.map((v) => v.name)).toEqual(["t2m", "elev"]);
		expect(leftOut.map((v) => v.name)).toEqual(["spread"]);
		expect(leftOut[0].reason).toBe("dimension member is not among the table's (time, lat, from t2m), and would multiply its rows");
	});

	it("a 0-d variable (a CF grid mapping) has no dimension: within any table, repeated on every row", () => {
		const crs = variable("crs", [], []);
		expect(dimensionNamesOf(crs)).toEqual([]);
		expect(dimensionNamesOf(variable("crs", undefined, []))).toEqual([]);
		const layout = layOutTable([crs, variable("t2m", ["time", "lat"], [6, 3])]);
		expect(layout.dimensions.map((d) => d.name)).toEqual(["time", "lat"]);
		expect(layout.axes).toEqual([[], [0, 1]]);
		// Beside arrays without dimension names too, and alone (a one-row table).
		expect(layOutTable([crs, variable("a", undefined, [2, 3])]).dimensions.map((d) => d.length)).toEqual([2, 3]);
		expect(layOutTable([crs]).dimensions).toEqual([]);
		const { chosen, leftOut } = selectWholeDataset([crs, variable("t2m", ["time", "lat"], [6, 3]), variable("time_bnds", ["time", "bnds"], [6, 2]), variable("time", ["time"], [6])]);
		expect(chosen.map((v) => v.name)).toEqual(["crs", "t2m"]);
		expect(leftOut.map((v) => v.name)).toEqual(["time_bnds"]);
		expect(selectWholeDataset([crs, variable("a", undefined, [2, 3])]).chosen.map((v) => v.name)).toEqual(["crs", "a"]);
	});
});

describe("broadcasting", () => {
	it("repeats a (lat, lon) field along time and a (lat) coordinate along time and lon", () => {
		const field = Float64Array.from({ length: 6 }, (_, i) => i);
		const out = broadcastValues(field, broadcastStrides([2, 3], [1, 2], 3), [2, 2, 3]);
		expect(Array.from(out)).toEqual([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
		const lat = ["a", "b"];
		expect(broadcastValues(lat, broadcastStrides([2], [1], 3), [2, 2, 3])).toEqual(["a", "a", "a", "b", "b", "b", "a", "a", "a", "b", "b", "b"]);
	});

	it("matches an index computation per value on a 4-D table for every subset of axes", () => {
		const shape = [3, 2, 4, 5];
		for (let mask = 0; mask < 16; mask++) {
			const axes = [0, 1, 2, 3].filter((axis) => mask & (1 << axis));
			const own = axes.map((axis) => shape[axis]);
			const values = Int32Array.from({ length: own.reduce((a, b) => a * b, 1) }, (_, i) => i * 7 + 1);
			const out = broadcastValues(values, broadcastStrides(own, axes, 4), shape);
			let row = 0;
			for (let a = 0; a < 3; a++)
				for (let b = 0; b < 2; b++)
					for (let c = 0; c < 4; c++)
						for (let d = 0; d < 5; d++) {
							const position = [a, b, c, d];
							const flat = axes.reduce((sum, axis, k) => sum * own[k] + position[axis], 0);
							expect(out[row++]).toBe(values[flat]);
						}
		}
	});

	it("starts at an origin inside the values (a band of rows)", () => {
		const out = broadcastValues(new BigInt64Array([0n, 1n, 2n, 3n, 4n, 5n]), [1, 0], [2, 2], 3);
		expect(Array.from(out)).toEqual([3n, 3n, 4n, 4n]);
	});
});
