import { describe, expect, it } from "vitest";
import { parseDatetime64Type } from "../src/dtype/datetime64.js";
import { parseFillValue } from "../src/dtype/fill-value.js";
import { rawMembers, rawMemberText } from "../src/json/raw-member.js";

const dt = (configuration: unknown, extra: object = {}) => ({ name: "numpy.datetime64", configuration, ...extra });

describe("parseDatetime64Type", () => {
	it("accepts every unit of the spec, us and μs alike", () => {
		for (const unit of ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"]) {
			expect(parseDatetime64Type(dt({ unit, scale_factor: 1 }))).toEqual({ kind: "datetime64", unit, scaleFactor: 1 });
		}
		expect(parseDatetime64Type(dt({ unit: "μs", scale_factor: 10 }))).toEqual({ kind: "datetime64", unit: "us", scaleFactor: 10 });
		expect(parseDatetime64Type(dt({ unit: "s", scale_factor: 2147483647 })).scaleFactor).toBe(2147483647);
	});

	const refusals: [string, unknown, string][] = [
		["unknown unit", dt({ unit: "days", scale_factor: 1 }), 'data_type: unknown configuration.unit "days"; expected one of Y M W D h m s ms us μs ns ps fs as generic'],
		["wrong case", dt({ unit: "MS", scale_factor: 1 }), 'data_type: unknown configuration.unit "MS" (units are case-sensitive: did you mean "ms"?)'],
		["scale 0", dt({ unit: "s", scale_factor: 0 }), "data_type: configuration.scale_factor must be in [1, 2147483647], got 0"],
		["negative scale", dt({ unit: "s", scale_factor: -3 }), "data_type: configuration.scale_factor must be in [1, 2147483647], got -3"],
		["scale too big", dt({ unit: "s", scale_factor: 2147483648 }), "data_type: configuration.scale_factor must be in [1, 2147483647], got 2147483648"],
		["fractional scale", dt({ unit: "s", scale_factor: 1.5 }), "data_type: configuration.scale_factor must be an integer, got 1.5"],
		["string scale", dt({ unit: "s", scale_factor: "10" }), 'data_type: configuration.scale_factor must be an integer, got "10"'],
		["unit not a string", dt({ unit: 5, scale_factor: 1 }), "data_type: configuration.unit must be a string, got 5"],
		["missing unit", dt({ scale_factor: 1 }), "data_type: configuration.unit is missing"],
		["missing scale", dt({ unit: "s" }), "data_type: configuration.scale_factor is missing"],
		["extra field in configuration", dt({ unit: "s", scale_factor: 1, tz: "UTC" }), 'data_type: unexpected field "tz" in data_type.configuration'],
		["extra field in data_type", dt({ unit: "s", scale_factor: 1 }, { endian: "little" }), 'data_type: unexpected field "endian" in data_type'],
		["configuration missing", { name: "numpy.datetime64" }, "data_type: configuration must be an object, got nothing"],
		["another type", { name: "numpy.float64", configuration: {} }, 'data_type: not a numpy.datetime64 array: name is "numpy.float64"'],
		["a bare string", "int64", 'data_type: expected {"name": "numpy.datetime64", "configuration": {...}}, got "int64"'],
		["the bare name, without its unit", "numpy.datetime64", 'data_type: "numpy.datetime64" needs its configuration: {"name": "numpy.datetime64", "configuration": {"unit": ..., "scale_factor": ...}}'],
		["the bare timedelta name", "numpy.timedelta64", 'data_type: "numpy.timedelta64" needs its configuration: {"name": "numpy.timedelta64", "configuration": {"unit": ..., "scale_factor": ...}}'],
		["timedelta in months", { name: "numpy.timedelta64", configuration: { unit: "M", scale_factor: 1 } }, 'data_type: configuration.unit "M" is a calendar unit and not a fixed duration; timedelta64 in years or months cannot be exported'],
	];
	for (const [name, input, message] of refusals) {
		it(`refuses ${name}`, () => expect(() => parseDatetime64Type(input)).toThrow(message));
	}

	it("a timedelta64 in years or months is valid metadata (the spec allows Y and M) that is not exported: UNSUPPORTED, not METADATA_INVALID", () => {
		for (const unit of ["Y", "M"]) {
			expect(() => parseDatetime64Type({ name: "numpy.timedelta64", configuration: { unit, scale_factor: 1 } })).toThrow(expect.objectContaining({ code: "UNSUPPORTED", field: "data_type" }));
		}
		expect(() => parseDatetime64Type(dt({ unit: "s", scale_factor: 0 }))).toThrow(expect.objectContaining({ code: "METADATA_INVALID" }));
	});
});

describe("fill value", () => {
	const fill = (json: string) => parseFillValue(rawMemberText(`{"shape":[1],"fill_value":${json},"codecs":[]}`, "fill_value"));

	it("reads integers exactly, past 2^53 and at the int64 bounds", () => {
		expect(fill("9007199254740993")).toBe(9007199254740993n);
		expect(fill("-9007199254740993")).toBe(-9007199254740993n);
		expect(fill("9223372036854775807")).toBe(2n ** 63n - 1n);
		expect(fill("-9223372036854775808")).toBe(-(2n ** 63n));
		expect(fill("0")).toBe(0n);
	});

	it('treats "NaT" and -2^63 as the same NaT', () => {
		expect(fill('"NaT"')).toBe(fill("-9223372036854775808"));
	});

	const refusals: [string, string][] = [
		["1.5", "fill_value: 1.5 must be an integer literal without a fraction"],
		["1e3", "fill_value: 1e3 must be an integer literal without an exponent"],
		["1.0", "fill_value: 1.0 must be an integer literal without a fraction"],
		['"nat"', 'fill_value: the only string allowed is "NaT", got "nat"'],
		['"2005-02-03"', 'fill_value: the only string allowed is "NaT", got "2005-02-03"'],
		["null", 'fill_value: expected an int64 integer or "NaT", got null'],
		["9223372036854775808", "fill_value: 9223372036854775808 is outside the int64 range [-2^63, 2^63-1]"],
		["-9223372036854775809", "fill_value: -9223372036854775809 is outside the int64 range [-2^63, 2^63-1]"],
		["[0]", 'fill_value: expected an int64 integer or "NaT", got [0]'],
	];
	for (const [json, message] of refusals) {
		it(`refuses ${json}`, () => expect(() => fill(json)).toThrow(message));
	}
	it("refuses a missing fill value", () => expect(() => parseFillValue(rawMemberText('{"a":1}', "fill_value"))).toThrow("fill_value: missing"));
});

describe("rawMemberText", () => {
	it("finds a top-level member past nested values, strings with escapes, and takes the last duplicate", () => {
		const json = '{"a":{"fill_value":1,"b":[1,{"c":"}"}]},"s":"x\\"fill_value\\"","fill_value" : 9007199254740993 ,"z":null}';
		expect(rawMemberText(json, "fill_value")).toBe("9007199254740993");
		expect(rawMemberText('{"fill_value":1,"fill_value":2}', "fill_value")).toBe("2");
		expect(rawMemberText("{}", "fill_value")).toBeUndefined();
	});
});

describe("rawMembers: every member of an object's text in one pass (a consolidated document is cut once)", () => {
	it("gives each member's exact text, the last of a repeated name, as rawMemberText does one by one", () => {
		const text = ' { "a" : 9007199254740993 , "b":{"x":[1,"}"]},"c\\"d":"q\\"}","a":-0.0 ,"e":null } ';
		const members = rawMembers(text);
		expect([...members]).toEqual([
			["a", "-0.0"],
			["b", '{"x":[1,"}"]}'],
			['c"d', '"q\\"}"'],
			["e", "null"],
		]);
		for (const [name, value] of members) expect(rawMemberText(text, name)).toBe(value);
		expect(rawMembers("{}").size).toBe(0);
		expect(() => rawMembers('{"a":1')).toThrow(/invalid JSON/);
	});
});
