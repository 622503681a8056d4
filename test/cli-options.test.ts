import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { checkCommandLine } from "../src/cli/command-line.js";
import { completeWords } from "../src/cli/completion.js";
import { closest } from "../src/did-you-mean.js";
import { optionsFromEnvironment } from "../src/cli/environment.js";
import { environmentName, OPTIONS, optionsOf, OUTPUT_FLAGS } from "../src/cli/options.js";
import { resolveDatasetFormat, resolveOutputFormat } from "../src/output/output-format.js";
import { exportDataset } from "../src/export-selection.js";
import { normalizeConversionOptions } from "../src/convert/options.js";
import { planExport } from "../src/export-plan.js";
import { defaultConcurrency } from "../src/export-source.js";
import { Float64 } from "apache-arrow";
import { DEFAULT_ROW_GROUP_ROWS, normalizeOptions as normalizeParquetOptions } from "../src/stream/parquet/options.js";
import { rowGroupRowsFor } from "../src/stream/parquet/row-group-size.js";
import { readArrow, REPO, runCli, tempDir } from "./support/cli.js";

const STORE = path.join(REPO, "data/weather-station.zarr");
const work = tempDir();
const fileStart = (file: string) => fs.readFileSync(file).subarray(0, 6).toString("latin1");

describe("--to and -o's extension", () => {
	it("infers the format from the extension, case-insensitively, and refuses a conflict or an unknown one without --to", () => {
		expect(resolveOutputFormat(undefined, "a.arrow", false, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat(undefined, "a.feather", false, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat(undefined, "a.IPC", false, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat(undefined, "a.arrows", false, OUTPUT_FLAGS)).toBe("arrow-stream");
		expect(resolveOutputFormat(undefined, "dir.v1/a.parquet", false, OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveOutputFormat(undefined, "a.pq", false, OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveOutputFormat("parquet", "a.parquet", false, OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveOutputFormat(undefined, undefined, false, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat("parquet", undefined, false, OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveOutputFormat(undefined, "-", false, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat(undefined, "/dev/null", true, OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveOutputFormat("arrow-stream", "a.bin", false, OUTPUT_FLAGS)).toBe("arrow-stream");
		expect(() => resolveOutputFormat("arrow", "a.parquet", false, OUTPUT_FLAGS)).toThrow(expect.objectContaining({ kind: "usage", message: expect.stringMatching(/names parquet output but --to is arrow/) }));
		expect(() => resolveOutputFormat(undefined, "a.csv", false, OUTPUT_FLAGS)).toThrow(expect.objectContaining({ kind: "usage", message: expect.stringMatching(/\.csv, which names no format/) }));
		expect(() => resolveOutputFormat(undefined, "noextension", false, OUTPUT_FLAGS)).toThrow(expect.objectContaining({ kind: "usage" }));
	});

	it("the CLI writes Parquet for -o x.parquet, an IPC stream for .arrows, and refuses -o x.csv (exit 2, nothing written)", () => {
		const dir = fs.mkdtempSync(path.join(work, "ext-"));
		expect(runCli([STORE, "-q", "-o", path.join(dir, "w.parquet")]).status).toBe(0);
		expect(fileStart(path.join(dir, "w.parquet")).slice(0, 4)).toBe("PAR1");
		expect(runCli([STORE, "-q", "-o", path.join(dir, "w.arrows")]).status).toBe(0);
		// The stream format starts with a message, not the file format's magic.
		expect(fileStart(path.join(dir, "w.arrows"))).not.toBe("ARROW1");
		const csv = runCli([STORE, "-q", "-o", path.join(dir, "w.csv")]);
		expect(csv.status).toBe(2);
		expect(csv.stderr).toMatch(/^dt64-export: -o .*w\.csv has the extension \.csv, which names no format: .* --to arrow\|arrow-stream\|parquet \[USAGE\]\n$/);
		const conflict = runCli([STORE, "-q", "-o", path.join(dir, "x.arrow"), "--to", "Parquet"]);
		expect(conflict.status).toBe(2);
		expect(conflict.stderr).toMatch(/names arrow output but --to is parquet/);
		expect(fs.readdirSync(dir).sort()).toEqual(["w.arrows", "w.parquet"]);
	});

	it("a dataset folder's extension names its files' format as a file's does; a folder named for none is Parquet", async () => {
		expect(resolveDatasetFormat(undefined, "ds.arrow", OUTPUT_FLAGS)).toBe("arrow");
		expect(resolveDatasetFormat(undefined, "ds.PQ/", OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveDatasetFormat(undefined, "march/", OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveDatasetFormat(undefined, undefined, OUTPUT_FLAGS)).toBe("parquet");
		expect(resolveDatasetFormat("arrow", "out.v1", OUTPUT_FLAGS)).toBe("arrow");
		expect(() => resolveDatasetFormat("arrow", "ds.parquet", OUTPUT_FLAGS)).toThrow(expect.objectContaining({ kind: "usage", message: expect.stringMatching(/^-o ds\.parquet names parquet output but --to is arrow/) }));
		const dir = fs.mkdtempSync(path.join(work, "dataset-ext-"));
		const filesOf = (folder: string) => fs.readdirSync(folder, { recursive: true, encoding: "utf8" }).filter((name) => /(^|\/)part-\d{5}-of-\d{5}\./.test(name)).map((name) => path.join(folder, name));
		expect(runCli([STORE, "-q", "--partition-by", "year", "-o", path.join(dir, "ds.arrow")]).status).toBe(0);
		expect(filesOf(path.join(dir, "ds.arrow")).length).toBeGreaterThan(0);
		for (const file of filesOf(path.join(dir, "ds.arrow"))) expect([path.extname(file), fileStart(file)]).toEqual([".arrow", "ARROW1"]);
		expect(runCli([STORE, "-q", "--partition-by", "year", "-o", path.join(dir, "plain")]).status).toBe(0);
		for (const file of filesOf(path.join(dir, "plain"))) expect([path.extname(file), fileStart(file).slice(0, 4)]).toEqual([".parquet", "PAR1"]);
		const conflict = runCli([STORE, "-q", "--partition-by", "year", "-o", path.join(dir, "ds.parquet"), "--to", "arrow"]);
		expect([conflict.status, conflict.stderr]).toEqual([2, `dt64-export: -o ${path.join(dir, "ds.parquet")} names parquet output but --to is arrow: change the extension or --to [USAGE]\n`]);
		const part = runCli([STORE, "-q", "--part", "0/2", "-o", path.join(dir, "part.parquet"), "--to", "arrow"]);
		expect(part.status).toBe(2);
		expect(fs.readdirSync(dir).sort()).toEqual(["ds.arrow", "plain"]);
		// The library's exportDataset follows the same rule, in its own names.
		await exportDataset(STORE, path.join(dir, "lib.feather"), { partitionBy: "year" });
		for (const file of filesOf(path.join(dir, "lib.feather"))) expect(fileStart(file)).toBe("ARROW1");
		await expect(exportDataset(STORE, path.join(dir, "lib.parquet"), { partitionBy: "year", format: "arrow" })).rejects.toMatchObject({ code: "USAGE", message: expect.stringMatching(/^path .*lib\.parquet names parquet output but format is arrow/) });
	});
});

describe("mistakes named with what was meant", () => {
	it("suggests the closest option, subcommand or choice", () => {
		expect(closest("uint", ["unit", "tz", "to"])).toBe("unit");
		expect(closest("inspct", ["inspect", "completion"])).toBe("inspect");
		expect(closest("concur", ["column", "concurrency"])).toBe("concurrency");
		expect(closest("parqet", ["arrow", "arrow-stream", "parquet"])).toBe("parquet");
		expect(closest("xlsx", ["arrow", "arrow-stream", "parquet"])).toBeUndefined();
	});

	it("the CLI: one line, exit 2, never the raw yargs wording", () => {
		for (const [args, expected] of [
			[["x", "--uint", "ms"], "dt64-export: unknown option --uint (did you mean --unit?) [USAGE]\n"],
			[["inspct", STORE], "dt64-export: unknown command inspct (did you mean inspect?) [USAGE]\n"],
			[["x", "--to", "parqet"], 'dt64-export: --to "parqet": choose arrow, arrow-stream, parquet (did you mean parquet?) [USAGE]\n'],
			[["x", "--json", "-o", "-"], "dt64-export: --json prints the export's summary on stdout, where -o - writes its data: name an output file or folder with -o [USAGE]\n"],
			[["commit", "x", "--force"], "dt64-export: --force is not an option of commit (see --help) [USAGE]\n"],
			[["x", "--force=maybe"], "dt64-export: --force=maybe: a switch takes no value, or one of true, false, yes, no, on, off, 1, 0 (see --help) [USAGE]\n"],
			[[], "dt64-export: name the store: dt64-export <store> [options] (see --help) [USAGE]\n"],
		] as const) {
			const result = runCli([...args]);
			expect(result.stderr).toBe(expected);
			expect(result.status).toBe(2);
		}
	});

	it("checks the raw arguments: short flags together, values that start with -, options after --", () => {
		expect(checkCommandLine(["s", "-qfo", "x.arrow", "--tz", "-05:00"]).given).toEqual(new Set(["quiet", "force", "output", "tz"]));
		expect(checkCommandLine(["s", "-ox.arrow", "--no-progress", "--rowGroupRows=5"]).given).toEqual(new Set(["output", "progress", "row-group-rows"]));
		expect(checkCommandLine(["inspect", "s", "--json"]).command).toBe("inspect");
		expect(checkCommandLine(["--", "--odd-store-name"]).command).toBe("export");
		expect(checkCommandLine(["--help"]).command).toBe("export");
		expect(() => checkCommandLine(["s", "-x"])).toThrow(/unknown option -x/);
		expect(() => checkCommandLine(["s", "--to", "arrow", "--to=parquet"])).toThrow("--to is given twice: give it once (see --help)");
		expect(() => checkCommandLine(["s", "-o", "a.arrow", "--output", "b.arrow"])).toThrow("--output is given twice");
		expect(checkCommandLine(["s", "--header", "A: 1", "--header", "B: 2", "-q", "-q"]).given).toEqual(new Set(["header", "quiet"]));
		// yargs reads a switch's value as false unless it is "true" (--force=yes would not overwrite): read here.
		expect(checkCommandLine(["s", "--force=yes", "--no-progress=true", "--allow-truncate=0", "--no-quiet=off"]).argv).toEqual(["s", "--force", "--no-progress", "--no-allow-truncate", "--quiet"]);
	});
});

describe("options that do nothing", () => {
	it("are named in a warning, and the export goes on", () => {
		const dir = fs.mkdtempSync(path.join(work, "warn-"));
		const result = runCli([STORE, "-q", "-o", path.join(dir, "w.arrow"), "--compression", "gzip", "--row-group-rows", "10", "--retries", "1", "--header", "A: b"]);
		expect(result.status).toBe(0);
		expect(result.stderr.trimEnd().split("\n")).toEqual([
			"dt64-export: warning: --row-group-rows does nothing here: it applies to --to parquet, not --to arrow",
			"dt64-export: warning: --compression does nothing here: it applies to --to parquet, not --to arrow",
			"dt64-export: warning: --header does nothing here: it applies to stores read over the network, not to a local one",
			"dt64-export: warning: --retries does nothing here: it applies to stores read over the network, not to a local one",
		]);
		expect(readArrow(path.join(dir, "w.arrow")).numRows).toBe(17520);
		// A switch is named as it was written.
		const unsigned = runCli([STORE, "-q", "-o", path.join(dir, "u.arrow"), "--no-sign-request"]);
		expect(unsigned.status).toBe(0);
		expect(unsigned.stderr).toMatch(/^dt64-export: warning: --no-sign-request does nothing here: /);
		// Defaults are not warned about: the same export without those options says nothing.
		expect(runCli([STORE, "-q", "-f", "-o", path.join(dir, "w.arrow")]).stderr).toBe("");
	});

	it("--parts without --part, --convert-calendar without a model calendar, --nan-as-null without floats, --progress with --quiet", () => {
		const dir = fs.mkdtempSync(path.join(work, "idle-"));
		const idle = runCli([STORE, "-o", path.join(dir, "w.arrow"), "--parts", "4", "--convert-calendar", "--nan-as-null", "--progress", "--quiet"]);
		expect(idle.status).toBe(0);
		expect(idle.stderr.trimEnd().split("\n")).toEqual([
			"dt64-export: warning: --progress does nothing here: --quiet shows no progress",
			"dt64-export: warning: --parts does nothing here: it applies with --part auto",
			"dt64-export: warning: --nan-as-null does nothing here: no column holds floats",
			"dt64-export: warning: --convert-calendar does nothing here: no column is CF time of a model calendar (noleap, 365_day, all_leap, 366_day, 360_day)",
		]);
		// Where they apply, nothing is said: a float column, a noleap time, a part of the engine's.
		const observations = path.join(REPO, "data/observations.zarr");
		expect(runCli([observations, "--columns", "time,temperature", "--nan-as-null", "-q", "-o", path.join(dir, "o.arrow")]).stderr).toBe("");
		const noleap = path.join(REPO, "test/fixtures/cf/noleap.zarr");
		expect(runCli([noleap, "--array", "time", "--convert-calendar", "-q", "-o", path.join(dir, "n.arrow")]).stderr).toBe("");
		const part = runCli([STORE, "--part", "auto", "--parts", "2", "-q", "-o", path.join(dir, "k8s")], { env: { JOB_COMPLETION_INDEX: "1" } });
		expect([part.status, part.stderr]).toEqual([0, ""]);
	});

	it("--tz on an export without timestamps (a timedelta64 array: a Duration) is named in a warning", async () => {
		const store = path.join(fs.mkdtempSync(path.join(work, "lag-")), "lag.zarr");
		await writeArray(store, "", { shape: [4], chunks: [2], dataType: { name: "numpy.timedelta64", configuration: { unit: "s", scale_factor: 1 } }, values: BigInt64Array.of(1n, 2n, -(2n ** 63n), 4n) });
		const out = path.join(path.dirname(store), "lag.arrow");
		const result = runCli([store, "--tz", "UTC", "-q", "-o", out]);
		expect([result.status, result.stderr]).toEqual([0, "dt64-export: warning: --tz does nothing here: no column holds timestamps (a timedelta64 array is a Duration, which has no zone)\n"]);
		expect(String(readArrow(out).schema.fields[0].type)).toMatch(/^Duration/);
		// A dataset part plans its columns inside the dataset export: the same warning, once, before its files.
		const part = runCli([store, "--tz", "UTC", "--part", "1/2", "-o", path.join(path.dirname(store), "lag-dataset")]);
		expect([part.status, part.stderr]).toEqual([
			0,
			"dt64-export: warning: --tz does nothing here: no column holds timestamps (a timedelta64 array is a Duration, which has no zone)\nwrote 2 rows to " +
				path.join(path.dirname(store), "lag-dataset") +
				": 1 file, part 1/2 (_parts/part-1-of-2.json)\n",
		]);
		// With timestamps it is applied, and nothing is said.
		expect(runCli([STORE, "--tz", "UTC", "-q", "-o", path.join(path.dirname(store), "ws.arrow")]).stderr).toBe("");
	});
});

describe("options from the environment", () => {
	it("DT64_EXPORT_<NAME> for every option, typed, only the command's own; unknown names warned about", () => {
		const env = { DT64_EXPORT_TO: "PARQUET", DT64_EXPORT_QUIET: "yes", DT64_EXPORT_HEADER: "A: 1\nB: 2", DT64_EXPORT_JSON: "true", DT64_EXPORT_UINT: "ms", PATH: "/bin" };
		const { values, warnings } = optionsFromEnvironment("export", env);
		expect(values).toEqual({ to: "PARQUET", quiet: true, header: ["A: 1", "B: 2"], json: true });
		expect(warnings).toEqual(["DT64_EXPORT_UINT names no option, ignored (did you mean DT64_EXPORT_UNIT?)"]);
		expect(optionsFromEnvironment("inspect", env).values).toEqual({ json: true, header: ["A: 1", "B: 2"] });
		expect(() => optionsFromEnvironment("export", { DT64_EXPORT_FORCE: "maybe" })).toThrow("DT64_EXPORT_FORCE=maybe: expected one of true, false, yes, no, on, off, 1, 0");
		expect(OPTIONS.map(environmentName)).toContain("DT64_EXPORT_ROW_GROUP_ROWS");
		// The variable a `--no-` switch's spelling suggests names the switch's own variable, set to false.
		expect(optionsFromEnvironment("export", { DT64_EXPORT_NO_CF: "true", DT64_EXPORT_NO_SIGN_REQUEST: "1" }).warnings).toEqual([
			"DT64_EXPORT_NO_CF names no option, ignored (--no-cf is DT64_EXPORT_CF=false)",
			"DT64_EXPORT_NO_SIGN_REQUEST names no option, ignored (--no-sign-request is DT64_EXPORT_SIGN_REQUEST=false)",
		]);
		// A value the option does not take is refused by the variable's name, unless the command line gives the option.
		expect(() => optionsFromEnvironment("export", { DT64_EXPORT_TO: "csv" })).toThrow('DT64_EXPORT_TO "csv": choose arrow, arrow-stream, parquet');
		expect(() => optionsFromEnvironment("export", { DT64_EXPORT_CONCURRENCY: "x" })).toThrow('DT64_EXPORT_CONCURRENCY must be an integer >= 1, got "x"');
		expect(() => optionsFromEnvironment("export", { DT64_EXPORT_CONCURRENCY: "2000" })).toThrow("DT64_EXPORT_CONCURRENCY must be at most 1024, got 2000");
		expect(() => optionsFromEnvironment("export", { DT64_EXPORT_ROW_GROUP_ROWS: "9007199254740993" })).toThrow(/^DT64_EXPORT_ROW_GROUP_ROWS must be at most 9007199254740991 .*, got 9007199254740993$/);
		expect(optionsFromEnvironment("export", { DT64_EXPORT_ROW_GROUP_ROWS: "9007199254740991" }).values).toEqual({ "row-group-rows": "9007199254740991" });
		expect(optionsFromEnvironment("export", { DT64_EXPORT_TO: "csv" }, new Set(["to"])).values).toEqual({});
		expect(optionsFromEnvironment("export", { DT64_EXPORT_CONCURRENCY: "", DT64_EXPORT_TO: " " }).values).toEqual({});
	});

	it("the CLI takes them below the command line", () => {
		const dir = fs.mkdtempSync(path.join(work, "env-"));
		const env = { DT64_EXPORT_TO: "parquet", DT64_EXPORT_QUIET: "true" };
		const fromEnv = runCli([STORE], { cwd: dir, env });
		expect(fromEnv.stderr).toBe("");
		expect(fileStart(path.join(dir, "weather-station.parquet")).slice(0, 4)).toBe("PAR1");
		expect(runCli([STORE, "--to", "arrow"], { cwd: dir, env }).status).toBe(0);
		expect(fileStart(path.join(dir, "weather-station.arrow"))).toBe("ARROW1");
	});
});

describe("shell completion", () => {
	it("prints a script and completes options, choices and subcommands from the option table", () => {
		const script = runCli(["completion"]);
		expect(script.status).toBe(0);
		expect(script.stdout.toString()).toMatch(/complete .* dt64-export/);
		const answer = runCli(["--get-yargs-completions", "dt64-export", STORE, "--to", ""]);
		expect(answer.stdout.toString().trim().split("\n")).toEqual(["arrow", "arrow-stream", "parquet"]);
		expect(completeWords(["--"])).toHaveLength(new Set(completeWords(["--"])).size);
		expect(completeWords(["inspect", "s", "--"])).toContain("--json");
		expect(completeWords(["ins"])).toEqual(["inspect", "commit", "completion"]);
		expect(completeWords([STORE, "-o", ""])).toEqual([]);
	});

	it("offers each option once, as it is typed: --no-cf, not the default --cf", () => {
		const offered = completeWords(["--"]);
		expect(offered.filter((word) => word === "--no-cf")).toHaveLength(1);
		for (const negated of ["--no-cf", "--no-progress", "--no-sign-request", "--no-range-search"]) expect(offered).toContain(negated);
		// Switches on by default are typed off; those off by default on; --progress (default: a terminal) both ways.
		for (const onByDefault of ["--cf", "--sign-request", "--range-search"]) expect(offered).not.toContain(onByDefault);
		for (const offByDefault of ["--force", "--quiet", "--progress", "--allow-truncate", "--help", "--version", "--to"]) expect(offered).toContain(offByDefault);
		expect(offered).not.toContain("--no-force");
		expect(offered).not.toContain("--no-help");
		// Every option of the command is offered in some spelling.
		for (const option of optionsOf("export")) expect(offered.some((word) => word === `--${option.name}` || word === `--no-${option.name}`), option.name).toBe(true);
		expect(completeWords(["inspect", "s", "--"])).toContain("--no-sign-request");
	});

	it("completion --help prints the help of the command, not the script", () => {
		const help = runCli(["completion", "--help"]);
		expect(help.status).toBe(0);
		expect(help.stdout.toString()).toMatch(/completion script/);
		expect(help.stdout.toString()).not.toMatch(/complete .* dt64-export|###-begin/);
		expect(runCli(["completion"]).stdout.toString()).toMatch(/###-begin-dt64-export-completions-###/);
	});
});

describe("--help is true to the code", () => {
	const helps = { export: runCli(["--help"]).stdout.toString(), inspect: runCli(["inspect", "--help"]).stdout.toString(), commit: runCli(["commit", "--help"]).stdout.toString() };
	/** The help block of an option: from its line to the next option's. */
	const blockOf = (name: string, help = helps.export) => {
		// Option lines are indented by a few spaces; a wrapped description's lines by many (and may start with a flag).
		const match = new RegExp(`^ {1,8}(?:-\\w, )?--${name} [\\s\\S]*?(?=^ {1,8}(?:-\\w, )?--|^\\S)`, "m").exec(help);
		expect(match, `--${name} in --help`).not.toBeNull();
		return (match as RegExpExecArray)[0].replace(/\s+/g, " ");
	};
	const documentedDefault = (name: string, help = helps.export) => /\[default: (.*?)\](?: |$)/.exec(blockOf(name, help))?.[1];

	it("names every kind of store README names, and the exit codes", () => {
		for (const scheme of ["http(s)://", "s3://", "gs://", "az://", "abfs[s]://"]) expect(helps.export.replace(/\s+/g, " ")).toContain(scheme);
		expect(helps.export.replace(/\s+/g, " ")).toMatch(/Exit codes: 0 success, 2 usage error, 1 any other error; 130, 143, 129 when interrupted by SIGINT, SIGTERM, SIGHUP/);
	});

	it("documents every option of every command with the default the parser fills in", () => {
		for (const command of ["export", "inspect", "commit"] as const) {
			for (const option of optionsOf(command).filter((option) => option.name !== "help" && option.name !== "version")) {
				const expected = option.default === undefined ? option.defaultText : JSON.stringify(option.default);
				expect(documentedDefault(option.name, helps[command]), `${command} --${option.name}`).toBe(expected);
			}
		}
	});

	it("states the bound of every option that has one, as the parser refuses past it", () => {
		for (const option of OPTIONS.filter((option) => option.max !== undefined)) {
			expect(blockOf(option.name), `--${option.name}`).toMatch(new RegExp(`(?:1 to|at most) ${option.max}\\b`));
		}
		expect(OPTIONS.filter((option) => option.max !== undefined).map((option) => option.name).sort()).toEqual(["concurrency", "parts"]);
	});

	it("the documented defaults are the library's", () => {
		expect(documentedDefault("unit")).toBe(JSON.stringify(normalizeConversionOptions({}).unit));
		expect(documentedDefault("on-overflow")).toBe(JSON.stringify(normalizeConversionOptions({}).onOverflow));
		expect(documentedDefault("allow-truncate")).toBe(String(normalizeConversionOptions({}).rounding === "floor"));
		expect(documentedDefault("round")).toBe(String(normalizeConversionOptions({}).rounding === "nearest"));
		expect(documentedDefault("to")).toMatch(new RegExp(`else ${planExport({}).output.format}$`));
		expect(documentedDefault("compression")).toBe(JSON.stringify(normalizeParquetOptions({}).compression));
		// Not a number the parser fills in: the writer chooses it by the table's width (rowGroupRowsFor).
		expect(normalizeParquetOptions({}).rowGroupRows).toBeUndefined();
		expect(documentedDefault("row-group-rows")).toBe(`${DEFAULT_ROW_GROUP_ROWS}, fewer for rows over 8 bytes: 8 MiB of values per row group`);
		expect(rowGroupRowsFor([new Float64()])).toBe(DEFAULT_ROW_GROUP_ROWS);
		expect(rowGroupRowsFor(Array.from({ length: 2 }, () => new Float64()))).toBeLessThan(DEFAULT_ROW_GROUP_ROWS);
		// "one per core, 2 to 4, for a local folder or zip; 8 over the network"
		const concurrency = /one per core, (\d+) to (\d+), for a local folder or zip; (\d+) over the network/.exec(documentedDefault("concurrency") ?? "");
		expect(concurrency).not.toBeNull();
		const [low, high, remote] = (concurrency as RegExpExecArray).slice(1).map(Number);
		expect(defaultConcurrency({ remote: false })).toBe(Math.min(high, Math.max(low, os.availableParallelism())));
		expect(defaultConcurrency({ remote: true })).toBe(remote);
	});
});

describe("DT64_DECODE_THREADS", () => {
	it("a whole number from 0 to 16, or empty (unset); anything else is a usage error, not ignored or honoured", () => {
		const store = path.join(REPO, "data/sharded-2d.zarr");
		for (const value of ["abc", "-1", "1.5", "17", "100"]) {
			const result = runCli([store, "-q", "-f", "-o", path.join(work, "threads.arrow")], { env: { DT64_DECODE_THREADS: value } });
			expect(result.status, value).toBe(2);
			expect(result.stderr).toBe(`dt64-export: DT64_DECODE_THREADS must be a whole number from 0 to 16, got ${JSON.stringify(value)} [USAGE]\n`);
		}
		for (const value of ["", "0", "2", "16"]) {
			expect(runCli([store, "-q", "-f", "-o", path.join(work, "threads.arrow")], { env: { DT64_DECODE_THREADS: value } }).status, value).toBe(0);
		}
	});

	it("is refused whatever the store's codecs, and by inspect, before anything is read", () => {
		const gzip = path.join(REPO, "data/weather-station.zarr");
		for (const args of [[gzip, "-q", "-f", "-o", path.join(work, "threads-gzip.arrow")], ["inspect", path.join(REPO, "data/sharded-2d.zarr")], ["inspect", gzip]]) {
			const result = runCli(args, { env: { DT64_DECODE_THREADS: "four" } });
			expect(result.status, args.join(" ")).toBe(2);
			expect(result.stderr).toBe('dt64-export: DT64_DECODE_THREADS must be a whole number from 0 to 16, got "four" [USAGE]\n');
		}
		expect(fs.existsSync(path.join(work, "threads-gzip.arrow"))).toBe(false);
	});
});

describe("the README's CLI reference", () => {
	const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
	/** A section's text, from its heading to the next heading of level 2. */
	const section = (heading: string) => {
		const start = readme.indexOf(`\n${heading}\n`);
		expect(start, heading).toBeGreaterThan(-1);
		const end = readme.indexOf("\n## ", start + 1);
		return readme.slice(start, end < 0 ? undefined : end);
	};
	/** A command's synopsis in an indented block: its line `    dt64-export <command>` and the deeper lines continuing it. */
	const synopsis = (text: string, command: string) => {
		const lines = text.split("\n");
		const first = lines.findIndex((line) => line.startsWith(`    dt64-export ${command} `));
		expect(first, `synopsis of ${command}`).toBeGreaterThan(-1);
		const rest = lines.slice(first + 1);
		const end = rest.findIndex((line) => !/^ {5,}\S/.test(line));
		return [lines[first], ...rest.slice(0, end < 0 ? undefined : end)].join(" ");
	};
	/** The options a command's --help prints, by long name and by short flag, but --help and --version. */
	const helpOptions = (args: string[]) => {
		const names = new Map<string, string>();
		for (const [, short, long] of runCli(args).stdout.toString().matchAll(/^ {1,8}(?:-(\w), )?--([\w-]+)/gm)) {
			if (long === "help" || long === "version") continue;
			names.set(long, long);
			if (short !== undefined) names.set(short, long);
		}
		return names;
	};
	/** The options a text names (`--name`, `--[no-]name`, `-o`), by their long name in --help (`--no-cf` is `--cf`). */
	const optionsNamed = (text: string, names: Map<string, string>) =>
		new Set([...text.matchAll(/(?<![\w-])--?(?:\[no-\])?([a-z][\w-]*)/g)].map(([, name]) => names.get(name) ?? (name.startsWith("no-") ? names.get(name.slice(3)) : undefined) ?? `${name} (not in --help)`));
	const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

	it("the synopses name every option each command's --help prints, and no other", () => {
		const cli = section("## CLI");
		for (const [command, args, text] of [
			["<store>", ["--help"], cli],
			["commit", ["commit", "--help"], cli],
			["inspect", ["inspect", "--help"], section("## Inspect")],
		] as const) {
			const names = helpOptions([...args]);
			expect(sorted(optionsNamed(synopsis(text, command), names)), command).toEqual(sorted(names.values()));
		}
	});

	it("the option table describes every option of the export's --help, and no other", () => {
		const names = helpOptions(["--help"]);
		const cells = [...section("## CLI").matchAll(/^\| (.+?) \| /gm)].map(([, cell]) => cell).filter((cell) => cell !== "option" && cell !== "---");
		expect(sorted(cells.flatMap((cell) => [...optionsNamed(cell, names)]))).toEqual(sorted(names.values()));
	});
});
