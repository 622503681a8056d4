#!/usr/bin/env node
/**
 * The differential campaign (trial 30's, rerunnable): generate N seeded stores per family with
 * test/golden/make_differential_corpus.py (Debian's /usr/bin/python3: xarray, zarr 2.13, numcodecs, cftime), export
 * each time array and the table (`--columns all --index`) with the packed CLI to Arrow IPC (read back by
 * apache-arrow) and, where DuckDB can read the times, to Parquet (read back by DuckDB), compare every value with the
 * store's oracle, and print a summary table. A time array refused for TRUNCATION, and the table holding one, are
 * exported again with `--allow-truncate` and with `--round` (`--unit auto`) to Arrow IPC and Parquet and compared with
 * the exact values floored / rounded half to even in the unit written. Never run by `npm test`; see scripts/differential/README.md.
 *
 *     node scripts/differential/run.mjs [--stores 100] [--first 0] [--families xr,raw,dt64,model,mix]
 *                                       [--work /tmp/dt64-differential] [--cli <path to dt64-export>] [--keep]
 *
 * Exit status 1 when any export differs from its oracle (each difference is printed), 0 otherwise.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DuckDBInstance } from "@duckdb/node-api";
import { tableFromIPC } from "apache-arrow";
import { staleBuildReason } from "../lib/stale-build.mjs";
import { arrowColumns, comparedValues, oracleDifferences, parquetColumns, ROUNDING_FLAGS, roundedDifferences, roundedTableDifferences } from "./oracle-columns.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const GENERATOR = path.join(REPO, "test/golden/make_differential_corpus.py");
const PYTHON = "/usr/bin/python3";
const FAMILIES = ["xr", "raw", "dt64", "model", "mix"];

/** A refusal of the campaign's own arguments or setup: one line on stderr, exit status 2, before anything is written. */
function refuse(message) {
	process.stderr.write(`run.mjs: ${message}\n`);
	process.exit(2);
}

let parsed;
try {
	parsed = parseArgs({
		options: {
			stores: { type: "string", default: "100" },
			first: { type: "string", default: "0" },
			families: { type: "string", default: FAMILIES.join(",") },
			work: { type: "string", default: "/tmp/dt64-differential" },
			cli: { type: "string" },
			keep: { type: "boolean", default: false },
		},
	});
} catch (error) {
	refuse(error.message.split("\n")[0]);
}
const args = parsed.values;
/** A whole number of at least `least` given as `--name`: anything else is refused (a NaN reached the generator as 'NaN'). */
function wholeNumber(name, least) {
	const text = args[name];
	if (!/^\d+$/.test(text) || Number(text) < least || !Number.isSafeInteger(Number(text))) refuse(`--${name} ${text}: a whole number of at least ${least}`);
	return Number(text);
}
const count = wholeNumber("stores", 1);
const first = wholeNumber("first", 0);
const families = args.families.split(",");
for (const family of families) if (!FAMILIES.includes(family)) refuse(`unknown family ${family} (expected ${FAMILIES.join(", ")})`);
// The packed tarball holds dist/ as built: after an edit of src/ without `npm run build`, the campaign would compare
// the previous build with the oracles and report on code that is no longer there.
if (!args.cli) {
	const stale = staleBuildReason(REPO);
	if (stale !== undefined) refuse(`not packing this checkout: ${stale}`);
}
const work = path.resolve(args.work);
fs.mkdirSync(work, { recursive: true });

/** Runs a command, failing loudly; returns its stdout. */
function succeed(command, argv, options = {}) {
	const result = spawnSync(command, argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
	if (result.status !== 0) throw new Error(`${command} ${argv.join(" ")} failed (${result.status}): ${result.stderr}`);
	return result.stdout;
}

/** The CLI as a user gets it: the package packed (dist/ as built) and installed from the tarball in a fresh folder. */
function packedCli() {
	if (args.cli) return path.resolve(args.cli);
	const app = path.join(work, "app");
	fs.rmSync(app, { recursive: true, force: true });
	fs.mkdirSync(app);
	fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "differential-campaign", version: "1.0.0", private: true }));
	const [{ filename }] = JSON.parse(succeed("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: REPO }));
	succeed("npm", ["install", path.join(work, filename), "--prefer-offline", "--no-audit", "--no-fund"], { cwd: app });
	return path.join(app, "node_modules/.bin/dt64-export");
}

const cli = packedCli();
const db = await DuckDBInstance.create(":memory:");
const connection = await db.connect();
const query = async (sql) => (await connection.runAndReadAll(sql)).getRows();

/** The exports of a store: each time array alone, then the table; the oracle's expectation of each. */
function exportsOf(oracle) {
	const out = Object.entries(oracle.arrays).map(([name, array]) => ({
		what: `array ${name}`,
		argv: ["--array", name],
		expected: array.refusal === undefined ? { columns: [name], rows: array.values.length, data: { [name]: array } } : array,
	}));
	out.push({ what: "table", argv: ["--columns", "all", "--index"], expected: oracle.table });
	return out;
}

function newTally() {
	return { stores: 0, skipped: 0, runs: 0, values: 0, refusals: {}, mismatches: 0 };
}
const tallies = Object.fromEntries(families.map((family) => [family, newTally()]));
const mismatches = [];

/** One CLI run; a refusal must be one line ending in its code. */
function runExport(store, argv, options, file, format) {
	const extra = options.convertCalendar ? ["--convert-calendar"] : [];
	const result = spawnSync(cli, [store, ...argv, ...extra, "--to", format, "-o", file, "-q", "--force"], { encoding: "utf8" });
	const stderr = (result.stderr ?? "").trim();
	const code = /\[([A-Z_]+)\]$/.exec(stderr)?.[1];
	return { status: result.status, stderr, code, oneLine: !stderr.includes("\n") };
}

/**
 * A time array refused for TRUNCATION, or the table holding one, with each rounding: the exact values floored /
 * rounded in the unit written (a table's other columns as its oracle has them), to IPC and, where DuckDB reads the
 * store's times, to Parquet in the unit of the same export to IPC.
 */
async function compareRounded(store, what, argv, expected, options, parquet, file, tally, differ) {
	const array = argv.includes("--array") ? argv[argv.indexOf("--array") + 1] : undefined;
	const differences = (rounding, columns) => (array === undefined ? roundedTableDifferences(expected, rounding, columns) : roundedDifferences(array, expected, rounding, columns));
	const values = (rounding) => (array === undefined ? comparedValues(expected.rounded[rounding]) : (Object.values(expected.rounded[rounding])[0]?.length ?? 0));
	for (const [rounding, flag] of Object.entries(ROUNDING_FLAGS)) {
		const run = runExport(store, [...argv, flag], options, `${file}${flag}.arrow`, "arrow");
		tally.runs++;
		if (run.status !== 0) {
			differ(`${what} ${flag}`, [`refused: ${run.stderr}`]);
			continue;
		}
		const columns = arrowColumns(tableFromIPC(fs.readFileSync(`${file}${flag}.arrow`)));
		const problems = differences(rounding, columns);
		tally.values += values(rounding);
		if (problems.length) differ(`${what} ${flag}`, problems);
		if (!parquet) continue;
		const written = runExport(store, [...argv, flag], options, `${file}${flag}.parquet`, "parquet");
		tally.runs++;
		if (written.status !== 0) {
			differ(`${what} ${flag} (Parquet)`, [`refused: ${written.stderr}`]);
			continue;
		}
		const durations = Object.fromEntries(columns.filter((column) => column.kind === "delta").map((column) => [column.name, column.unit]));
		const units = new Map(columns.map((column) => [column.name, column.unit]));
		const read = (await parquetColumns(query, `${file}${flag}.parquet`, durations)).map((column) => ({ ...column, unit: units.get(column.name) }));
		const fromParquet = differences(rounding, read);
		tally.values += values(rounding);
		if (fromParquet.length) differ(`${what} ${flag} (Parquet)`, fromParquet);
	}
}

async function compareStore(family, folder) {
	const tally = tallies[family];
	const oracle = JSON.parse(fs.readFileSync(path.join(folder, "oracle.json"), "utf8"));
	const store = path.join(folder, "store.zarr");
	const out = path.join(folder, "out");
	fs.mkdirSync(out, { recursive: true });
	const name = path.basename(folder);
	const differ = (what, problems) => {
		tally.mismatches++;
		mismatches.push(`${name} ${what}: ${problems.join("; ")}`);
	};
	tally.stores++;
	let k = 0;
	for (const { what, argv, expected } of exportsOf(oracle)) {
		const file = path.join(out, `${k++}`);
		const arrow = runExport(store, argv, oracle.options, `${file}.arrow`, "arrow");
		tally.runs++;
		if (expected.refusal !== undefined) {
			const codes = Array.isArray(expected.refusal) ? expected.refusal : [expected.refusal];
			if (arrow.status === 0) differ(what, [`exported, expected a refusal ${codes} (${expected.why})`]);
			else if (!codes.includes(arrow.code) || !arrow.oneLine) differ(what, [`refused ${JSON.stringify(arrow.stderr)}, expected one line ending [${codes}]`]);
			else tally.refusals[arrow.code] = (tally.refusals[arrow.code] ?? 0) + 1;
			if (expected.rounded !== undefined) await compareRounded(store, what, argv, expected, oracle.options, oracle.parquet, file, tally, differ);
			continue;
		}
		if (arrow.status !== 0) {
			differ(what, [`refused: ${arrow.stderr}`]);
			continue;
		}
		const columns = arrowColumns(tableFromIPC(fs.readFileSync(`${file}.arrow`)));
		const problems = oracleDifferences(expected, columns);
		tally.values += comparedValues(expected);
		if (problems.length) differ(`${what} (IPC)`, problems);
		if (!oracle.parquet) continue;
		const parquet = runExport(store, argv, oracle.options, `${file}.parquet`, "parquet");
		tally.runs++;
		if (parquet.status !== 0) {
			differ(`${what} (Parquet)`, [`refused: ${parquet.stderr}`]);
			continue;
		}
		const units = Object.fromEntries(columns.filter((column) => column.kind === "delta").map((column) => [column.name, column.unit]));
		const fromParquet = oracleDifferences(expected, await parquetColumns(query, `${file}.parquet`, units));
		tally.values += comparedValues(expected);
		if (fromParquet.length) differ(`${what} (Parquet)`, fromParquet);
	}
	if (!args.keep) fs.rmSync(out, { recursive: true, force: true });
}

for (const family of families) {
	const stores = path.join(work, "stores");
	const generated = spawnSync("nice", ["-n", "10", PYTHON, GENERATOR, "--out", stores, "--family", family, "--seeds", `${first}:${first + count}`], { encoding: "utf8" });
	if (generated.status !== 0) throw new Error(`the generator failed: ${generated.stderr}`);
	tallies[family].skipped = (generated.stderr.match(/: not written/g) ?? []).length;
	for (let seed = first; seed < first + count; seed++) {
		const folder = path.join(stores, `${family}-${String(seed).padStart(5, "0")}`);
		if (fs.existsSync(path.join(folder, "oracle.json"))) await compareStore(family, folder);
	}
	const t = tallies[family];
	console.error(`${family}: ${t.stores} stores, ${t.runs} runs, ${t.mismatches} mismatches`);
}
connection.closeSync();
db.closeSync();

const total = newTally();
const rows = [];
for (const family of families) {
	const t = tallies[family];
	for (const key of ["stores", "skipped", "runs", "values", "mismatches"]) total[key] += t[key];
	for (const [code, n] of Object.entries(t.refusals)) total.refusals[code] = (total.refusals[code] ?? 0) + n;
	rows.push([family, t]);
}
rows.push(["total", total]);
const refusals = (t) =>
	Object.entries(t.refusals)
		.sort()
		.map(([code, n]) => `${code} ${n}`)
		.join(", ") || "-";
console.log("| family | stores | not written | CLI runs | values compared | refusals (as expected) | mismatches |");
console.log("| --- | ---: | ---: | ---: | ---: | --- | ---: |");
for (const [family, t] of rows) console.log(`| ${family} | ${t.stores} | ${t.skipped} | ${t.runs.toLocaleString("en-US")} | ${t.values.toLocaleString("en-US")} | ${refusals(t)} | ${t.mismatches} |`);
for (const line of mismatches) console.log(`MISMATCH ${line}`);
process.exitCode = mismatches.length ? 1 : 0;
