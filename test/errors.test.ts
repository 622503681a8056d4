import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { describeForCli } from "../src/cli/error-advice.js";
import { Dt64ExportError, ERROR_CODES, errorInContext, UsageError } from "../src/errors.js";
import { AtomicFileWriter } from "../src/output/atomic-file.js";
import { toArrowTimestamps } from "../src/convert/to-arrow-timestamps.js";
import { parseDatetime64Type } from "../src/dtype/datetime64.js";
import { REPO, tempDir } from "./support/cli.js";
import { thrown } from "./support/thrown.js";

describe("error codes", () => {
	it("the README's table lists every code with its kind, and no other", () => {
		const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
		const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| (usage|data|io) \|/gm)].map(([, code, kind]) => [code, kind]);
		expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
		expect(rows).toHaveLength(Object.keys(ERROR_CODES).length);
	});

	it("the kind follows from the code", () => {
		expect(new Dt64ExportError("OUTPUT_EXISTS", "x").kind).toBe("io");
		expect(new Dt64ExportError("ARRAY_AMBIGUOUS", "x").kind).toBe("usage");
		expect(new UsageError("x", { option: "unit" })).toMatchObject({ code: "USAGE", kind: "usage", option: "unit" });
	});

	it("context keeps the inner error's code and fields", () => {
		const inner = new Dt64ExportError("CHUNK_CORRUPT", "crc32c: checksum mismatch", { key: "c/0" });
		const outer = errorInContext("shard c/0", inner, "READ_FAILED", { path: "a" });
		expect(outer).toMatchObject({ code: "CHUNK_CORRUPT", key: "c/0", path: "a", message: "shard c/0: crc32c: checksum mismatch", cause: inner });
		expect(errorInContext("x", new Error("boom"), "UNSUPPORTED")).toMatchObject({ code: "UNSUPPORTED", message: "x: boom" });
	});

	it("the library says what is wrong, the CLI adds the flag: an existing output", () => {
		const target = path.join(tempDir(), "exists.arrow");
		fs.writeFileSync(target, "");
		const error = thrown(() => new AtomicFileWriter(target));
		expect(error).toMatchObject({ code: "OUTPUT_EXISTS", path: target, message: `${target} already exists` });
		expect(describeForCli(error)).toBe(`${target} already exists (use --force to overwrite)`);
	});

	it("the CLI names options by their flags", () => {
		expect(describeForCli(new UsageError('timezone "Mars": unknown time zone', { option: "timezone" }))).toBe('--tz "Mars": unknown time zone');
		expect(describeForCli(new UsageError('invalid onOverflow "x": choose one of error, null', { option: "onOverflow" }))).toBe('invalid --on-overflow "x": choose one of error, null');
		const ambiguous = new Dt64ExportError("ARRAY_AMBIGUOUS", "s.zarr: the group holds several datetime64 arrays: a, b", { option: "array", candidates: ["a", "b"] });
		expect(describeForCli(ambiguous)).toBe("s.zarr: the group holds several datetime64 arrays: a, b; choose one with --array");
	});
});

describe("errors as JSON (a service's structured log)", () => {
	it("JSON.stringify(error) gives code, kind, message, its fields (int64 values as decimal strings) and its cause", () => {
		const cause = Object.assign(new Error("disk gone"), { code: "EIO" });
		const error = new Dt64ExportError("OVERFLOW", "value 1000000000000000 of datetime64[D] at index 3 is outside the int64 range in unit ns", { index: 3, value: 10n ** 15n, unit: "ns", cause });
		expect(JSON.parse(JSON.stringify(error))).toEqual({
			name: "Dt64ExportError",
			code: "OVERFLOW",
			kind: "data",
			message: error.message,
			index: 3,
			value: "1000000000000000",
			unit: "ns",
			cause: { name: "Error", code: "EIO", message: "disk gone" },
		});
		const wrapped = new Dt64ExportError("WRITE_FAILED", "cannot write", { value: { holder: { pid: 7n } }, cause: error });
		expect(JSON.parse(JSON.stringify({ error: wrapped }))).toMatchObject({ error: { code: "WRITE_FAILED", value: { holder: { pid: "7" } }, cause: { code: "OVERFLOW", value: "1000000000000000" } } });
	});

	it("a conversion refused by the core (an int64 count) serializes too", () => {
		const error = thrown(() => toArrowTimestamps(BigInt64Array.of(10n ** 15n), parseDatetime64Type({ name: "numpy.datetime64", configuration: { unit: "D", scale_factor: 1 } }), { unit: "ns" }));
		expect(error).toMatchObject({ code: "OVERFLOW", value: 10n ** 15n });
		expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: "ConversionError", code: "OVERFLOW", value: "1000000000000000", unit: "ns" });
	});
});
