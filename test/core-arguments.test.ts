/**
 * The pure conversion core called from JavaScript, as an embedder calls it without the types: a wrong argument is a
 * USAGE error naming it, never garbage values, a TypeError or a silent default (trial 33).
 */
import { describe, expect, it } from "vitest";
import { cfMissingValueMarkers, decodeCfTimes, parseCfTimeCoding, parseDatetime64Type, toArrowTimestamps } from "../src/index.js";

const seconds = parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } });
const thrown = (run: () => unknown): unknown => {
	try {
		run();
	} catch (error) {
		return error;
	}
	return undefined;
};
const usage = (option: string, message: RegExp) => ({ name: "UsageError", code: "USAGE", kind: "usage", option, message: expect.stringMatching(message) });
// As a JavaScript caller passes them: the types would refuse each.
const loose = (value: unknown) => value as never;

describe("toArrowTimestamps", () => {
	it("refuses counts that are not int64 (an Int32Array's or a Float64Array's bytes were read as int64 values: 1 and 2 gave 8589934593)", () => {
		for (const [counts, kind] of [
			[new Int32Array([1, 2]), "an Int32Array"],
			[new Float64Array([1.5]), "a Float64Array"],
			[[1, 2], "an Array"],
			[null, "null"],
		] as const) {
			expect(thrown(() => toArrowTimestamps(loose(counts), seconds, { unit: "s" }))).toMatchObject(usage("counts", new RegExp(`^toArrowTimestamps: counts must be a BigInt64Array \\(or its little-endian bytes, a Uint8Array\\), got ${kind}$`)));
		}
		expect(toArrowTimestamps(new Uint8Array(new BigInt64Array([7n]).buffer), seconds, { unit: "ms" }).values).toEqual(new BigInt64Array([7000n]));
		expect(toArrowTimestamps(Buffer.from(new BigInt64Array([7n]).buffer), seconds).values).toEqual(new BigInt64Array([7n]));
	});

	it("refuses a source that is not parseDatetime64Type's (its string ended in a TypeError: Cannot convert undefined to a BigInt)", () => {
		for (const source of ["datetime64[s]", null, { kind: "datetime64", unit: "s", scaleFactor: 0 }, { kind: "x", unit: "s", scaleFactor: 1 }]) {
			expect(thrown(() => toArrowTimestamps(new BigInt64Array([1n]), loose(source), { unit: "s" }))).toMatchObject(usage("source", /^toArrowTimestamps: source must be a data type as parseDatetime64Type gives it/));
		}
	});

	it("refuses an option it does not take, the package's own describePosition among them (it was taken, undocumented), a misspelt one named with the closest", () => {
		const counts = new BigInt64Array([1n]);
		expect(thrown(() => toArrowTimestamps(counts, seconds, loose({ unit: "s", describePosition: () => "row 9" })))).toMatchObject(usage("describePosition", /^toArrowTimestamps: unknown option "describePosition"$/));
		expect(thrown(() => toArrowTimestamps(counts, seconds, loose({ unti: "ms" })))).toMatchObject(usage("unti", /^toArrowTimestamps: unknown option "unti" \(did you mean unit\?\)$/));
		expect(toArrowTimestamps(counts, seconds, loose(null)).values).toEqual(counts);
	});

	it("checks its options once, against the names it takes: a misspelt one is never told to be an internal name it would refuse next", () => {
		const counts = new BigInt64Array([1n]);
		expect(thrown(() => toArrowTimestamps(counts, seconds, loose({ describePositon: () => "row 9" })))).toMatchObject(usage("describePositon", /^toArrowTimestamps: unknown option "describePositon"$/));
	});
});

describe("toArrowTimestamps' options", () => {
	it("refuses options that are not an object, or a name it does not take (a unit given as the options, \"ms\", or `unti` was ignored: the counts came back in seconds)", () => {
		expect(thrown(() => toArrowTimestamps(new BigInt64Array([7n]), seconds, loose("ms")))).toMatchObject(usage("options", /^toArrowTimestamps: options must be an object \(\{ unit, rounding, onOverflow \}\), got "ms"$/));
		expect(thrown(() => toArrowTimestamps(new BigInt64Array([7n]), seconds, loose({ unti: "ms" })))).toMatchObject(usage("unti", /^toArrowTimestamps: unknown option "unti" \(did you mean unit\?\)$/));
		expect(thrown(() => toArrowTimestamps(new BigInt64Array([7n]), seconds, loose({ unit: "ms", roundng: "floor" })))).toMatchObject(usage("roundng", /did you mean rounding\?/));
		// undefined for an optional option, and a frozen options object, are as none.
		expect(toArrowTimestamps(new BigInt64Array([7n]), seconds, Object.freeze({ unit: "ms", rounding: undefined, onOverflow: undefined })).values).toEqual(new BigInt64Array([7000n]));
	});
});

describe("decodeCfTimes", () => {
	const coding = parseCfTimeCoding({ units: "days since 2000-01-01" });
	const markers = cfMissingValueMarkers({ zarrFormat: 2, dataType: "float64", attributes: {}, fillValue: "NaN" });
	const values = new Float64Array([1, 1e300]);

	it("refuses a unit it cannot decode into (auto, none or h were TypeErrors: Cannot mix BigInt and other types)", () => {
		for (const unit of ["auto", undefined, "h"]) {
			expect(thrown(() => decodeCfTimes(values, coding, markers, loose({ unit, onOverflow: "null", dataType: "float64" })))).toMatchObject(usage("unit", /^decodeCfTimes: invalid unit .*: choose one of s, ms, us, ns$/));
		}
	});

	it("refuses an onOverflow it does not know (\"wrap\" was taken as \"error\", where toArrowTimestamps refuses it)", () => {
		expect(thrown(() => decodeCfTimes(values, coding, markers, loose({ unit: "s", onOverflow: "wrap", dataType: "float64" })))).toMatchObject(usage("onOverflow", /^decodeCfTimes: invalid onOverflow "wrap": choose one of error, null$/));
		expect(decodeCfTimes(values, coding, markers, { unit: "s", onOverflow: "null", dataType: "float64" })).toMatchObject({ nullCount: 1, overflowed: [1] });
	});

	it("refuses missing options, markers, coding or data type (each a TypeError, or `undefined` in its refusals' messages)", () => {
		expect(thrown(() => decodeCfTimes(values, coding, markers, loose(undefined)))).toMatchObject(usage("options", /^decodeCfTimes: options/));
		expect(thrown(() => decodeCfTimes(values, coding, loose(undefined), { unit: "s", onOverflow: "null", dataType: "float64" }))).toMatchObject(usage("markers", /cfMissingValueMarkers/));
		expect(thrown(() => decodeCfTimes(values, loose(null), markers, { unit: "s", onOverflow: "null", dataType: "float64" }))).toMatchObject(usage("coding", /parseCfTimeCoding/));
		expect(thrown(() => decodeCfTimes(values, coding, markers, loose({ unit: "s", onOverflow: "error" })))).toMatchObject(usage("dataType", /^decodeCfTimes: dataType must name/));
	});

	it("refuses the package's own settings (inPlace wrote over the caller's counts, invalidDates dropped dates: undocumented, yet taken) and a misspelt option", () => {
		const counts = new BigInt64Array([1n, 2n]);
		const options = { unit: "s", onOverflow: "null", dataType: "int64" } as const;
		for (const [name, value] of [["inPlace", true], ["allocateValues", () => new BigInt64Array(2)], ["allocateBitmap", () => new Uint8Array(1)], ["invalidDates", "drop"], ["describePosition", () => "row 1"], ["unheldCount", 1]] as const) {
			expect(thrown(() => decodeCfTimes(counts, coding, markers, loose({ ...options, [name]: value }))), name).toMatchObject(usage(name, new RegExp(`^decodeCfTimes: unknown option "${name}"$`)));
		}
		expect(counts).toEqual(new BigInt64Array([1n, 2n]));
		expect(thrown(() => decodeCfTimes(counts, coding, markers, loose({ ...options, rouding: "floor" })))).toMatchObject(usage("rouding", /^decodeCfTimes: unknown option "rouding" \(did you mean rounding\?\)$/));
		expect(decodeCfTimes(counts, coding, markers, { ...options, rounding: "floor", allowTruncate: true }).values).toEqual(new BigInt64Array([946771200n, 946857600n]));
	});

	it("checks its arguments once, against the names it takes: a misspelt option is never told to be an internal name it would refuse next (inPlac: did you mean inPlace?)", () => {
		const options = { unit: "s", onOverflow: "null", dataType: "float64" } as const;
		for (const name of ["inPlac", "describePositon", "allocateBitmaps", "unheldCounts", "invalidDate"]) {
			expect(thrown(() => decodeCfTimes(values, coding, markers, loose({ ...options, [name]: true }))), name).toMatchObject(usage(name, new RegExp(`^decodeCfTimes: unknown option "${name}"$`)));
		}
	});

	it("refuses a misspelt option (`roundng: \"floor\"` was ignored: the default refused a value it was asked to floor) and values that are no typed array (a string was a TypeError)", () => {
		const split = new Float64Array([1e-6]); // 0.0864 s: no whole second
		expect(thrown(() => decodeCfTimes(split, coding, markers, loose({ unit: "s", onOverflow: "error", dataType: "float64", roundng: "floor" })))).toMatchObject(usage("roundng", /^decodeCfTimes: unknown option "roundng" \(did you mean rounding\?\)$/));
		expect(decodeCfTimes(split, coding, markers, { unit: "s", onOverflow: "error", dataType: "float64", rounding: "floor" }).values).toEqual(new BigInt64Array([946_684_800n]));
		for (const [given, kind] of [["12", '"12"'], [[1, 2], "an Array"], [new DataView(new ArrayBuffer(8)), "a DataView"]] as const) {
			expect(thrown(() => decodeCfTimes(loose(given), coding, markers, { unit: "s", onOverflow: "error", dataType: "float64" }))).toMatchObject(usage("values", new RegExp(`^decodeCfTimes: values must be a typed array of the stored counts \\(a Float64Array, a BigInt64Array\\.\\.\\.\\), got ${kind.replace(/[[\]]/g, "\\$&")}$`)));
		}
	});
});
