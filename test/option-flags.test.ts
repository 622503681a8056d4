/**
 * The CLI prints a library error with the flag of the option it names (src/cli/error-advice.ts), from the table of
 * options (src/cli/options.ts): every option a library export takes has a flag there, unless it is one the command
 * line cannot give (a callback, a pool, a signal). An option added to the library and the table under another name
 * fails here until the table lists it as its flag's `library` name.
 */
import { describe, expect, it } from "vitest";
import { describeForCli, flagOfOption } from "../src/cli/error-advice.js";
import { OPTIONS } from "../src/cli/options.js";
import { Dt64ExportError } from "../src/errors.js";
import { EXPORT_OPTION_NAMES } from "../src/export-plan.js";

/** The library's options that no flag gives: objects and callbacks, and limits the CLI leaves at their defaults. */
const LIBRARY_ONLY = ["onChunk", "bufferPool", "env", "signal", "maxOpenFiles"];

describe("the flag of each library option", () => {
	it("exists for every option of an export but the library's own", () => {
		const missing = EXPORT_OPTION_NAMES.filter((name) => !LIBRARY_ONLY.includes(name) && flagOfOption(name) === undefined);
		expect(missing).toEqual([]);
		for (const name of LIBRARY_ONLY) expect(flagOfOption(name)).toBeUndefined();
	});

	it("is the flag of the option's own name in camelCase, or of the name the table gives", () => {
		expect(flagOfOption("rowGroupRows")).toBe("--row-group-rows");
		expect(flagOfOption("maxRowsPerFile")).toBe("--max-rows-per-file");
		expect(flagOfOption("timezone")).toBe("--tz");
		expect(flagOfOption("group")).toBe("--array");
		expect(flagOfOption("format")).toBe("--to");
		expect(flagOfOption("rounding")).toBe("--round");
		expect(flagOfOption("timeoutMs")).toBe("--timeout");
		expect(flagOfOption("headers")).toBe("--header");
		expect(flagOfOption("overwrite")).toBe("--force");
		expect(flagOfOption("signRequests")).toBe("--sign-request");
	});

	it("names no library option twice", () => {
		const names = OPTIONS.flatMap((spec) => spec.library ?? []);
		expect(new Set(names).size).toBe(names.length);
	});

	it("replaces the option's name in a message, first and in backticks", () => {
		const error = new Dt64ExportError("USAGE", "maxRowsPerFile applies to the files of a dataset folder, and `partitionBy` is not given", { option: "maxRowsPerFile" });
		expect(describeForCli(error)).toMatch(/^--max-rows-per-file applies to the files of a dataset folder, and --partition-by is not given/);
	});
});
