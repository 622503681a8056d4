import * as fs from "node:fs";
import * as path from "node:path";
import { spawnSync } from "node:child_process";
import { Writable } from "node:stream";
import { DuckDBInstance } from "@duckdb/node-api";
import type { Timestamp } from "apache-arrow";
import pl from "nodejs-polars";
import { describe, expect, it } from "vitest";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { Progress, rateText } from "../src/cli/progress.js";
import { BIN, readArrow, REPO, runCli, tempDir } from "./support/cli.js";
import { writeStoredZip } from "./support/zip.js";

const NAT = -(2n ** 63n);
const work = tempDir();
/** A fresh folder inside `work`, removed with it. */
const scratch = () => fs.mkdtempSync(path.join(work, "case-"));
const LE = { name: "bytes", configuration: { endian: "little" } };

async function duck(sql: string): Promise<unknown[][]> {
	const instance = await DuckDBInstance.create(":memory:");
	const connection = await instance.connect();
	return (await connection.runAndReadAll(sql)).getRows();
}

describe("CLI contract", () => {
	it("--help shows usage and examples, --version the version", () => {
		const help = runCli(["--help"]);
		expect(help.status).toBe(0);
		expect(help.stdout.toString()).toMatch(/Examples:/);
		// The examples name the sample stores, so that they can be run from a clone as they are (and say so).
		const stores = Array.from(help.stdout.toString().matchAll(/dt64-export (?:inspect )?(data\/\S+\.zarr)/g), (match) => match[1]);
		expect(stores.length).toBeGreaterThanOrEqual(4);
		expect(help.stdout.toString()).toMatch(/data\/ stores of the examples are the sample stores the package ships/);
		for (const store of stores) expect(fs.existsSync(path.join(REPO, store))).toBe(true);
		expect(runCli(["--version"]).stdout.toString().trim()).toBe(JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).version);
	});

	it("writes <column>.<ext> in the current folder by default and refuses to overwrite without --force", () => {
		const cwd = tempDir();
		const store = path.join(REPO, "data/weather-station.zarr");
		expect(runCli([store, "-q"], { cwd }).status).toBe(0);
		expect(fs.readdirSync(cwd)).toEqual(["weather-station.arrow"]);
		const again = runCli([store, "-q"], { cwd });
		expect(again.status).toBe(1);
		expect(again.stderr).toBe("dt64-export: weather-station.arrow already exists (use --force to overwrite) [OUTPUT_EXISTS]\n");
		expect(runCli([store, "-q", "--force"], { cwd }).status).toBe(0);
		expect(fs.readdirSync(cwd)).toEqual(["weather-station.arrow"]);
	});

	it("--force keeps the replaced file's permissions and writes through a symbolic link", () => {
		const dir = scratch();
		const store = path.join(REPO, "data/weather-station.zarr");
		const file = path.join(dir, "private.arrow");
		fs.writeFileSync(file, "previous export", { mode: 0o600 });
		fs.symlinkSync("private.arrow", path.join(dir, "link.arrow"));
		expect(runCli([store, "-q", "--force", "-o", path.join(dir, "link.arrow")]).status).toBe(0);
		expect(fs.lstatSync(path.join(dir, "link.arrow")).isSymbolicLink()).toBe(true);
		expect(fs.statSync(file).mode & 0o777).toBe(0o600);
		expect(readArrow(file).numRows).toBe(17520);
		expect(fs.readdirSync(dir).sort()).toEqual(["link.arrow", "private.arrow"]);
	});

	// Trial 22: 13: a service running as root replaced a tenant's file with one owned by root. Root only: no other
	// user can give a file away.
	it.skipIf(process.getuid?.() !== 0)("--force keeps the replaced file's owner and group, as root can set them", () => {
		const dir = scratch();
		const file = path.join(dir, "tenant.arrow");
		fs.writeFileSync(file, "the tenant's previous export", { mode: 0o640 });
		fs.chownSync(file, 65534, 65534);
		expect(runCli([path.join(REPO, "data/weather-station.zarr"), "-q", "--force", "-o", file]).status).toBe(0);
		const stat = fs.statSync(file);
		expect({ uid: stat.uid, gid: stat.gid, mode: stat.mode & 0o7777 }).toEqual({ uid: 65534, gid: 65534, mode: 0o640 });
		expect(readArrow(file).numRows).toBe(17520);
	});

	it("usage errors exit 2 naming the valid choices", () => {
		for (const [args, pattern] of [
			[["x", "--unit", "weeks"], /^dt64-export: --unit "weeks": choose auto, s, ms, us, ns \[USAGE\]\n$/],
			[["x", "--to", "xlsx"], /--to "xlsx": choose arrow, arrow-stream, parquet/],
			[[path.join(REPO, "data/weather-station.zarr"), "--concurrency", "0"], /--concurrency must be an integer >= 1, got 0/],
			[["x", "--bogus"], /^dt64-export: unknown option --bogus \(see --help\) \[USAGE\]\n$/],
			[["x", "extra"], /^dt64-export: unexpected argument "extra": an export takes one store/],
			[["inspect", "x", "extra"], /^dt64-export: unexpected argument "extra": inspect takes one store/],
			[["x", "-o"], /^dt64-export: -o needs a value \(see --help\) \[USAGE\]\n$/],
			[["x", "--to"], /^dt64-export: --to needs a value/],
			[["inspect", "x", "--retries"], /^dt64-export: --retries needs a value/],
			[["x", "-o", ""], /^dt64-export: -o: empty file name \(use -o <file>, or -o - for stdout\) \[USAGE\]\n$/],
			[["x", "--concurrency", "four"], /--concurrency must be an integer >= 1, got "four"/],
			// Read from the digits as written: the value and the real bound, in the flag's name (it was "Parquet
			// rowGroupRows must be a positive integer, got 9007199254740992", and 1e18 "must be an integer >= 1").
			[["x", "--row-group-rows", "9007199254740993"], /^dt64-export: --row-group-rows must be at most 9007199254740991 \(2\^53 - 1, the largest integer held exactly\), got 9007199254740993 \[USAGE\]\n$/],
			[["x", "--row-group-rows=18446744073709551616"], /--row-group-rows must be at most 9007199254740991 .*, got 18446744073709551616 \[USAGE\]/],
			[["x", "--max-rows-per-file", "1e18", "--partition-by", "year", "-o", "dsq"], /^dt64-export: --max-rows-per-file must be at most 9007199254740991 \(2\^53 - 1, the largest integer held exactly\), got 1e18 \[USAGE\]\n$/],
			[["x", "--part", "auto", "--parts", "100000"], /^dt64-export: --parts must be at most 99999, got 100000 \[USAGE\]\n$/],
			[["x", "--concurrency", "1.0e-3"], /--concurrency must be an integer >= 1, got 1.0e-3/],
			// trial 28: 04: 100,000 on 200,000 small chunk files took 37 s and 858 MB (7 s and 157 MB at the default).
			[["x", "--concurrency", "100000"], /^dt64-export: --concurrency must be at most 1024, got 100000 \[USAGE\]\n$/],
			[["x", "--retries", "-1"], /--retries must be an integer >= 0, got -1/],
			[["inspect", "x", "--retries", "1.5"], /--retries must be an integer >= 0, got 1.5/],
			[["x", "--tz", "+25:00"], /--tz "\+25:00": an offset is \+HH:MM or -HH:MM with HH at most 23 and MM at most 59/],
		] as const) {
			const result = runCli([...args]);
			expect(result.status).toBe(2);
			expect(result.stderr).toMatch(pattern);
			expect(result.stderr.trim().split("\n")).toHaveLength(1);
		}
	});

	it("a device or a FIFO is written in place (never renamed over), a folder is refused", () => {
		const dir = scratch();
		const fifo = path.join(dir, "fifo");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		const store = path.join(REPO, "data/weather-station.zarr");
		const received = path.join(dir, "received.arrow");
		const run = spawnSync("bash", ["-c", `cat '${fifo}' > '${received}' & '${process.execPath}' '${BIN}' '${store}' -q -o '${fifo}'; status=$?; wait; exit $status`]);
		expect(run.stderr.toString()).toBe("");
		expect(run.status).toBe(0);
		expect(fs.statSync(fifo).isFIFO()).toBe(true);
		expect(readArrow(received).numRows).toBe(17520);
		expect(runCli([store, "-q", "-o", "/dev/null"]).status).toBe(0);
		expect(fs.statSync("/dev/null").isCharacterDevice()).toBe(true);
		const folder = runCli([store, "-o", dir, "--force"]);
		expect(folder.status).toBe(1);
		expect(folder.stderr).toBe(`dt64-export: ${dir} is a folder: name the output file (-o <folder>/<file>) [OUTPUT_INVALID]\n`);
		expect(fs.readdirSync(dir).sort()).toEqual(["fifo", "received.arrow"]);
	});

	it("an output path under a file is refused as OUTPUT_INVALID, by the CLI and the library, and nothing is written", async () => {
		const dir = scratch();
		fs.writeFileSync(path.join(dir, "notes.txt"), "kept\n");
		const store = path.join(REPO, "data/observations.zarr");
		const reason = "a part of the path before it is a file, not a folder [OUTPUT_INVALID]";
		const file = runCli([path.join(REPO, "data/weather-station.zarr"), "-o", path.join(dir, "notes.txt/out.arrow")]);
		expect([file.status, file.stderr]).toEqual([1, `dt64-export: no output can be created at ${path.join(dir, "notes.txt/out.arrow")}: ${reason}\n`]);
		const dataset = runCli([store, "--columns", "time,temperature", "--index", "--partition-by", "day", "-o", path.join(dir, "notes.txt/ds")]);
		expect([dataset.status, dataset.stderr]).toEqual([1, `dt64-export: no output can be created at ${path.join(dir, "notes.txt/ds")}: ${reason}\n`]);
		const { exportToFile, exportDataset } = await import("../src/index.js");
		await expect(exportToFile(store, path.join(dir, "notes.txt/t.arrow"), { columns: ["time", "temperature"] })).rejects.toMatchObject({ name: "Dt64ExportError", code: "OUTPUT_INVALID" });
		await expect(exportDataset(store, path.join(dir, "notes.txt/ds"), { columns: ["time", "temperature"], index: true, partitionBy: "day" })).rejects.toMatchObject({ name: "Dt64ExportError", code: "OUTPUT_INVALID" });
		expect(fs.readdirSync(dir)).toEqual(["notes.txt"]);
		expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("kept\n");
	});

	it("a missing output folder is OUTPUT_INVALID however the path spells it (sub/../x, x/), before the export runs", async () => {
		const cwd = scratch();
		const store = path.join(REPO, "data/weather-station.zarr");
		for (const [output, message] of [
			["nodir/x.arrow", `output folder does not exist: ${path.join(cwd, "nodir")}`],
			// The system needs sub to go up from it: path.resolve's cwd/x.arrow was written to at the end (ENOENT).
			["sub/../x.arrow", `output folder does not exist: ${path.join(cwd, "sub")} (in sub/../x.arrow)`],
			["new.arrow/", `output folder does not exist: ${path.join(cwd, "new.arrow")} (new.arrow/ ends in /: it names a folder, not a file)`],
		]) {
			const result = runCli([store, "-o", output], { cwd });
			expect([output, result.status, result.stderr]).toEqual([output, 1, `dt64-export: ${message} [OUTPUT_INVALID]\n`]);
		}
		const { exportToFile } = await import("../src/index.js");
		await expect(exportToFile(store, `${cwd}/sub/../y.arrow`)).rejects.toMatchObject({ code: "OUTPUT_INVALID", path: path.join(cwd, "sub") });
		expect(fs.readdirSync(cwd)).toEqual([]);
		// Through a link, `..` is the parent of the folder linked to, as the system reads it: the file goes there.
		fs.mkdirSync(path.join(cwd, "real/deep"), { recursive: true });
		fs.symlinkSync(path.join(cwd, "real/deep"), path.join(cwd, "link"));
		expect(runCli([store, "-q", "-o", "link/../via-link.arrow"], { cwd }).status).toBe(0);
		expect(fs.readdirSync(path.join(cwd, "real")).sort()).toEqual(["deep", "via-link.arrow"]);
		expect(readArrow(path.join(cwd, "real/via-link.arrow")).numRows).toBe(17520);
		expect(fs.readdirSync(cwd).sort()).toEqual(["link", "real"]);
	});

	it("--progress into a pipe writes plain lines, without the terminal's control characters", () => {
		const cwd = scratch();
		const result = runCli([path.join(REPO, "data/weather-station.zarr"), "--progress"], { cwd });
		expect(result.status).toBe(0);
		expect(result.stderr).not.toMatch(/[\r\x1b]/);
		const lines = result.stderr.trimEnd().split("\n");
		expect(lines.at(-2)).toMatch(/^chunks 5\/5  rows 17,520\/17,520  (?:[\d.]+ M|[\d,]+) rows\/s  ETA 0 s$/);
		expect(lines.at(-1)).toBe("wrote 17,520 rows to weather-station.arrow");
	});

	it("the rate is in millions of rows a second down to 0.1 M, then in rows: never 0.0 while rows arrive", () => {
		expect([12_345_678, 1_000_000, 100_000, 99_999.6, 14_200.4, 3.2, 0].map(rateText)).toEqual([
			"12.3 M rows/s",
			"1.0 M rows/s",
			"0.1 M rows/s",
			"100,000 rows/s",
			"14,200 rows/s",
			"3 rows/s",
			"0 rows/s",
		]);
	});

	it("Progress ends its line before another message only when a redrawn line is showing", () => {
		const written: string[] = [];
		const sink = (isTTY: boolean) => Object.assign(new Writable({ write: (chunk, _encoding, callback) => (written.push(String(chunk)), callback()) }), { isTTY });
		const quiet = new Progress(sink(true), 10);
		quiet.done();
		expect(written).toEqual([]);
		const plain = new Progress(sink(false), 10);
		plain.update(1, 1);
		plain.done();
		expect(written.join("")).toMatch(/^chunks 1\/1 [^\r\x1b]*\n$/);
		written.length = 0;
		const tty = new Progress(sink(true), 10, "xterm-256color");
		tty.update(1, 1);
		tty.done();
		tty.done();
		expect(written.join("")).toMatch(/^\r\x1b\[Kchunks 1\/1 [^\n]*\n$/);
		// A terminal that cannot erase a line (TERM=dumb) gets the plain lines (trial 25, finding 16).
		written.length = 0;
		const dumb = new Progress(sink(true), 10, "dumb");
		dumb.update(1, 1);
		dumb.done();
		expect(written.join("")).toMatch(/^chunks 1\/1 [^\r\x1b]*\n$/);
	});

	it("a store given as `.` is named after its folder, for the column and the default output file", () => {
		const cwd = path.join(scratch(), "station.zarr");
		fs.cpSync(path.join(REPO, "data/weather-station.zarr"), cwd, { recursive: true });
		expect(runCli([".", "-q"], { cwd }).status).toBe(0);
		expect(readArrow(path.join(cwd, "station.arrow")).schema.fields.map((field) => field.name)).toEqual(["station"]);
	});

	it("the summary counts one row as a row", () => {
		const cwd = scratch();
		const result = runCli([path.join(REPO, "test/fixtures/v2/scalar.zarr")], { cwd });
		expect(result.status).toBe(0);
		expect(result.stderr).toBe("wrote 1 row to scalar.arrow\n");
	});

	it("--tz is written as the zone's canonical name, which polars can look up", () => {
		const file = path.join(scratch(), "tz.arrow");
		for (const [given, written] of [["utc", "UTC"], ["-05:30", "-05:30"], ["europe/paris", "Europe/Paris"]]) {
			expect(runCli([path.join(REPO, "data/weather-station.zarr"), "--tz", given, "-q", "-f", "-o", file]).status).toBe(0);
			expect((readArrow(file).schema.fields[0].type as Timestamp).timezone).toBe(written);
		}
		expect(String(pl.readIPC(fs.readFileSync(file)).dtypes[0])).toMatch(/Europe\/Paris/);
	});

	it("a store that does not exist is one line, exit 1", () => {
		const result = runCli([path.join(work, "nope.zarr")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`dt64-export: store not found: ${path.join(work, "nope.zarr")} [STORE_NOT_FOUND]\n`);
	});

	it("a temporary file an export killed outright left beside -o is named in a warning, and left alone", () => {
		const dir = tempDir("dt64-stray-");
		const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
		const stray = path.join(dir, `.out.arrow.${dead}.89abcdef.tmp`);
		fs.writeFileSync(stray, Buffer.alloc(1234));
		const result = runCli([path.join(REPO, "data/weather-station.zarr"), "-q", "-o", path.join(dir, "out.arrow")]);
		expect(result.status).toBe(0);
		expect(result.stderr).toBe(`dt64-export: warning: ${stray} (1,234 bytes) is the temporary file of an export of ${path.join(dir, "out.arrow")} that was killed while writing: remove it\n`);
		expect(fs.existsSync(stray)).toBe(true);
	});

	it("a zip file is read by its first bytes whatever its name (store.bin, a link); another file says it is no zip either", async () => {
		const dir = scratch();
		const zip = path.join(dir, "store.bin");
		writeStoredZip(path.join(REPO, "data/weather-station.zarr"), zip);
		fs.symlinkSync(zip, path.join(dir, "linkzip"));
		for (const name of ["store.bin", "linkzip"]) {
			const result = runCli([path.join(dir, name), "-q", "-o", path.join(dir, `${name}.arrow`)]);
			expect([name, result.status, result.stderr]).toEqual([name, 0, ""]);
			expect(readArrow(path.join(dir, `${name}.arrow`)).numRows).toBe(17520);
		}
		// A zip of no entries is its end record alone: a zip, holding no store.
		fs.writeFileSync(path.join(dir, "empty.bin"), Buffer.concat([Buffer.from("PK\x05\x06", "latin1"), Buffer.alloc(18)]));
		expect(runCli([path.join(dir, "empty.bin")]).stderr).not.toMatch(/not a zip/);
		fs.writeFileSync(path.join(dir, "notes.txt"), "PK is not enough\n");
		const text = runCli([path.join(dir, "notes.txt"), "-o", path.join(dir, "n.arrow")]);
		expect([text.status, text.stderr]).toEqual([
			1,
			`dt64-export: not a Zarr store: ${path.join(dir, "notes.txt")} is a file that is not a zip file either (expected a folder, a zip file or an http(s):// URL) [STORE_INVALID]\n`,
		]);
	});

	it("an empty store location, or - (standard input), is a usage error, exit 2", () => {
		for (const [args, message] of [
			[["", "-o", path.join(work, "x.arrow")], "the store location is empty: name a folder, a .zip file or a URL"],
			[["-", "-o", path.join(work, "x.arrow")], "- (standard input) cannot be a store: name a folder, a .zip file or a URL"],
			[["inspect", "-"], "- (standard input) cannot be a store: name a folder, a .zip file or a URL"],
		] as const) {
			const result = runCli([...args]);
			expect(result.status, args.join(" ")).toBe(2);
			expect(result.stderr).toBe(`dt64-export: ${message} [USAGE]\n`);
		}
	});

	it("--array cannot leave the store", () => {
		// "..%2Fx" is a name (a % is not decoded, see spec-conformance.test.ts), read inside the store or not found.
		for (const bad of ["../x", "/etc", "a/../../b", "a\\..\\..\\b"]) {
			const result = runCli([path.join(REPO, "data/weather-station.zarr"), "--array", bad]);
			expect(result.status).toBe(2);
			expect(result.stderr).toMatch(/^dt64-export: --array .*(must not leave the store|relative path inside the store)/);
			const column = runCli([path.join(REPO, "data/observations.zarr"), "--columns", `time,${bad}`]);
			expect(column.status).toBe(2);
			expect(column.stderr).toMatch(/^dt64-export: --columns .*(must not leave the store|relative path inside the store)/);
		}
	});

	it("a group with several datetime64 arrays is an error listing them", async () => {
		const root = path.join(work, "group.zarr");
		for (const name of ["a", "b"]) await writeArray(root, name, { shape: [2], chunks: [2], values: BigInt64Array.of(1n, 2n), codecs: [LE] });
		const result = runCli([root]);
		expect(result.status).toBe(2);
		expect(result.stderr).toBe(`dt64-export: ${root}: the group holds several datetime64 arrays: a, b; choose one with --array [ARRAY_AMBIGUOUS]\n`);
		const out = path.join(work, "b.arrow");
		expect(runCli([root, "--array", "b", "-o", out, "-q"]).status).toBe(0);
	});

	it("a conversion error leaves no output and no temporary file", async () => {
		const root = path.join(work, "ps.zarr");
		await writeArray(root, "", { shape: [3], chunks: [2], dataType: { name: "numpy.datetime64", configuration: { unit: "ps", scale_factor: 1 } }, values: BigInt64Array.of(1000n, 2000n, 1500n), codecs: [LE] });
		const outDir = tempDir();
		const result = runCli([root, "-o", path.join(outDir, "t.arrow")]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe("dt64-export: value 1500 of datetime64[ps] at index 2 is not a whole number of ns (it would be floored to 1 ns, or rounded to the nearest, 2 ns); use --round to round to the nearest (as xarray decodes floats), --allow-truncate to floor [TRUNCATION]\n");
		expect(fs.readdirSync(outDir)).toEqual([]);
		expect(runCli([root, "-o", path.join(outDir, "t.arrow"), "--allow-truncate", "-q"]).status).toBe(0);
	});

	it("refuses a non-datetime64 array, saying what it is", async () => {
		const root = path.join(work, "f64.zarr");
		fs.mkdirSync(root);
		fs.writeFileSync(path.join(root, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "array", shape: [1], data_type: "float64", chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } }, chunk_key_encoding: { name: "default" }, fill_value: 0, codecs: [LE] }));
		const result = runCli([root]);
		expect(result.status).toBe(1);
		expect(result.stderr).toBe(`dt64-export: ${root}/zarr.json: data type is float64, not numpy.datetime64 or numpy.timedelta64 [UNSUPPORTED]\n`);
	});

	it.skipIf(!fs.existsSync("/dev/full"))("a failed write to stdout or a device names it, once, without the system call", () => {
		const store = path.join(REPO, "data/weather-station.zarr");
		const full = fs.openSync("/dev/full", "w");
		try {
			const toStdout = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { stdio: ["ignore", full, "pipe"] });
			for (const format of ["arrow", "arrow-stream", "parquet"]) {
				const piped = toStdout([store, "--to", format, "-o", "-"]);
				expect(piped.stderr.toString()).toBe("dt64-export: cannot write to stdout: ENOSPC: no space left on device [WRITE_FAILED]\n");
				expect(piped.status).toBe(1);
				const device = runCli([store, "--to", format, "-o", "/dev/full"]);
				expect(device.stderr).toBe("dt64-export: cannot write to /dev/full: ENOSPC: no space left on device [WRITE_FAILED]\n");
				expect(device.status).toBe(1);
			}
			const inspect = toStdout(["inspect", store]);
			expect(inspect.stderr.toString()).toBe("dt64-export: cannot write to stdout: ENOSPC: no space left on device [WRITE_FAILED]\n");
			expect(inspect.status).toBe(1);
		} finally {
			fs.closeSync(full);
		}
	});

	it("a reader closing the pipe early ends the export (and inspect) quietly", () => {
		const result = spawnSync("bash", ["-c", `set -o pipefail; node ${path.join(REPO, "bin/dt64-export.js")} ${path.join(REPO, "data/weather-station.zarr")} --to arrow-stream -o - | head -c 100 > /dev/null`]);
		expect(result.stderr.toString()).toBe("");
		expect(result.status).toBe(0);
		const inspect = spawnSync("bash", ["-c", `set -o pipefail; node ${BIN} inspect ${path.join(REPO, "data/observations.zarr")} | head -c 10 > /dev/null`]);
		expect(inspect.stderr.toString()).toBe("");
		expect(inspect.status).toBe(0);
	});
});

describe("Parquet through the CLI, read back by DuckDB", () => {
	const cases = [
		["s", "TIMESTAMP", "epoch_ms", 1000n],
		["ms", "TIMESTAMP", "epoch_ms", 1n],
		["us", "TIMESTAMP", "epoch_us", 1n],
		["ns", "TIMESTAMP_NS", "epoch_ns", 1n],
	] as const;
	for (const [unit, duckType, epoch, factor] of cases) {
		it(`unit ${unit}`, async () => {
			const root = path.join(work, `pq-${unit}.zarr`);
			const input = BigInt64Array.of(0n, NAT, 1107403506n, -86400n);
			await writeArray(root, "", { shape: [4], chunks: [3], dataType: { name: "numpy.datetime64", configuration: { unit, scale_factor: 1 } }, values: input, codecs: [LE] });
			const file = path.join(work, `pq-${unit}.parquet`);
			expect(runCli([root, "--to", "parquet", "-o", file, "-q", "--column", "t"]).status).toBe(0);
			const rows = await duck(`select typeof(t), ${epoch}(t)::varchar from '${file}'`);
			expect(rows[0][0]).toBe(duckType);
			expect(rows.map((r) => r[1])).toEqual(Array.from(input, (v) => (v === NAT ? null : (v * factor).toString())));
		});
	}
	it("--tz UTC marks the column as adjusted to UTC", async () => {
		const file = path.join(work, "tz.parquet");
		expect(runCli([path.join(REPO, "data/weather-station.zarr"), "--to", "parquet", "--tz", "UTC", "-o", file, "-q"]).status).toBe(0);
		const rows = await duck(`select logical_type::varchar from parquet_schema('${file}') where name = 'weather-station'`);
		expect(String(rows[0][0])).toMatch(/isAdjustedToUTC=(1|true)/i);
	});
});

describe("README", () => {
	const readme = fs.readFileSync(path.join(REPO, "README.md"), "utf8");
	const blocks = (language: string) => Array.from(readme.matchAll(new RegExp("```" + language + "\n([\\s\\S]*?)```", "g")), (match) => match[1]);

	it("the quick start's commands after npm i -g run as written, on the sample stores the package ships", () => {
		const cwd = scratch();
		const block = blocks("sh").find((text) => text.includes("npm root -g")) as string;
		const lines = block.split("\n").filter((line) => line !== "");
		expect(lines[0]).toBe('samples="$(npm root -g)/dt64-export/data"');
		const commands = lines.slice(1);
		expect(commands.length).toBeGreaterThanOrEqual(2);
		for (const command of commands) {
			expect(command.startsWith("dt64-export ")).toBe(true);
			const args = command.slice("dt64-export ".length).split(" ").map((arg) => arg.replace(/^"\$samples\/(.*)"$/, `${path.join(REPO, "data")}/$1`));
			const result = runCli(args, { cwd });
			expect({ command, status: result.status, stderr: result.stderr }).toMatchObject({ command, status: 0 });
		}
		expect(fs.readdirSync(cwd).sort()).toEqual(["weather.parquet"]);
	});

	it("the quick start's commands run as written, next to data/", () => {
		const cwd = scratch();
		fs.symlinkSync(path.join(REPO, "data"), path.join(cwd, "data"));
		const commands = (blocks("sh").find((text) => text.includes("npx dt64-export ")) as string).split("\n").filter((line) => line.startsWith("npx dt64-export "));
		expect(commands.length).toBeGreaterThanOrEqual(4);
		for (const command of commands) {
			const result = runCli(command.slice("npx dt64-export ".length).split(" "), { cwd });
			expect({ command, status: result.status, stderr: result.stderr }).toMatchObject({ command, status: 0 });
		}
		expect(fs.readdirSync(cwd).sort()).toEqual(["data", "grid-indexed.parquet", "grid.parquet", "observations.parquet", "weather.arrow"]);
	});

	it("the library examples run, as one script, against the built package", () => {
		const cwd = scratch();
		fs.symlinkSync(path.join(REPO, "data"), path.join(cwd, "data"));
		fs.mkdirSync(path.join(cwd, "node_modules"));
		fs.symlinkSync(REPO, path.join(cwd, "node_modules/dt64-export"));
		fs.writeFileSync(path.join(cwd, "example.mjs"), blocks("ts").join("\n"));
		const result = spawnSync(process.execPath, ["example.mjs"], { cwd });
		expect(result.stderr.toString()).toBe("");
		expect(result.status).toBe(0);
		expect(readArrow(path.join(cwd, "weather.arrow")).numRows).toBe(17520);
		expect(readArrow(path.join(cwd, "obs.arrow")).schema.fields.map((field) => field.name)).toEqual(["time", "temperature"]);
		expect(fs.readdirSync(cwd).sort()).toEqual(["data", "example.mjs", "grid-from-library.parquet", "grid.arrow", "node_modules", "obs.arrow", "obs.parquet", "weather.arrow"]);
	});
});
