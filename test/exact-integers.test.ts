/** Integers a JSON text writes past 2^53, read exactly (src/json/exact-integers.ts). */
import { describe, expect, it } from "vitest";
import { parseExactIntegers, stringifyExactIntegers, withExactIntegerAttributes } from "../src/json/exact-integers.js";

describe("integers past 2^53 in JSON text", () => {
	it("reads them as bigints and everything else as JSON.parse does", () => {
		const text = ' { "a" : [ 9519333550154345791 , -9223372036854775808, 9007199254740991, 1e19, 9519333550154345791.0, 0.5 ] , "s": "12345678901234567890\\" [", "__proto__": {"n": null, "t": true, "f": false}, "e": {}, "l": [] } ';
		const value = parseExactIntegers(text) as Record<string, unknown>;
		expect(value.a).toEqual([9519333550154345791n, -9223372036854775808n, 9007199254740991, 1e19, Number("9519333550154345791.0"), 0.5]);
		expect(value.s).toBe('12345678901234567890" [');
		// A member named __proto__ is a member, as JSON.parse makes it.
		expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
		expect(Object.keys(value)).toEqual(["a", "s", "__proto__", "e", "l"]);
		expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toEqual({ n: null, t: true, f: false });
		expect([value.e, value.l]).toEqual([{}, []]);
	});

	it("makes only the marker and packing attributes exact, and leaves an object with none as it is", () => {
		const text = '{"_FillValue": 9519333550154345791, "missing_value": [1, 18446744073709551615], "scale_factor": 12345678901234567890, "add_offset": 9007199254740993, "valid_range": [0, 9007199254740993], "flag_values": 12345678901234567890, "units": "days since 1-1-1"}';
		const exact = withExactIntegerAttributes(JSON.parse(text), text);
		expect(exact).toEqual({
			_FillValue: 9519333550154345791n,
			missing_value: [1, 18446744073709551615n],
			scale_factor: 12345678901234567890n,
			add_offset: 9007199254740993n,
			valid_range: [0, 9007199254740993n],
			flag_values: Number("12345678901234567890"),
			units: "days since 1-1-1",
		});
		const small = JSON.parse('{"_FillValue": 1234567890123456, "units": "days since 1-1-1"}');
		expect(withExactIntegerAttributes(small, '{"_FillValue": 1234567890123456, "units": "days since 1-1-1"}')).toBe(small);
	});

	it("writes them back as their digits", () => {
		expect(stringifyExactIntegers({ _FillValue: 9519333550154345791n, missing_value: [1, -2n, "x"], gone: undefined, none: null })).toBe('{"_FillValue":9519333550154345791,"missing_value":[1,-2,"x"],"none":null}');
	});
});
