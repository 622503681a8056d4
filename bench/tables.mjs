// The table benchmark of `npm run bench`: an xarray dataset as a tidy table, 50M rows (time 2,000 x lat 100 x
// lon 250), exported with coordinate index columns (`--columns t2m --index`, and with a static field broadcast
// along time) to Parquet and Arrow IPC, against xarray's `ds[["t2m"]].to_dataframe().reset_index()` on the same
// store (bench/table_reference.py, Debian's python3-xarray and pandas). pyarrow is not available there, so the
// reference stops at the DataFrame that `to_parquet` would then write: its figures are a lower bound of xarray's
// own export. The Parquet encoding itself is set against DuckDB writing the same rows (bench/duckdb-parquet-reference.mjs). Rows/s and peak RSS for both; the store is written by xarray itself, once, into .bench-cache/.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** Debian's python with xarray (not the `python3` on PATH, which may lack it). */
const XARRAY_PYTHON = "/usr/bin/python3";
/** Bump when bench/table_reference.py's `make` changes, so that the cached store is rebuilt. */
const STORE_VERSION = 1;
const ROWS = 2000 * 100 * 250;

function haveXarray() {
	const probe = spawnSync(XARRAY_PYTHON, ["-c", "import xarray, zarr, pandas"], { encoding: "utf8" });
	return probe.status === 0;
}

/** DuckDB's threads for the Parquet reference: the machine's two cores, as the exporter's decode thread and main thread. */
const DUCKDB_THREADS = 2;
/** dt64-export's default compression (src/stream/parquet/options.ts), which the reference writes with too. */
const PARQUET_COMPRESSION = "zstd";
/** The reference writes row groups of the exporter's file's own size (its default depends on the row's width). */
const PARQUET_ROW_GROUP_ROWS = "input";

/**
 * DuckDB writing the rows of the exporter's Parquet file `out` to Parquet again, `runs` times: the median COPY
 * time, the rows, the bytes and DuckDB's version; undefined (said) when @duckdb/node-api cannot run here.
 */
async function duckdbReencode({ root, out, outDir, runs, median, log }) {
	const script = path.join(root, "bench", "duckdb-parquet-reference.mjs");
	const copy = path.join(outDir, "table-duckdb.parquet");
	const measured = [];
	for (let r = 0; r < runs; r++) {
		const run = spawnSync(process.execPath, [script, out, copy, String(DUCKDB_THREADS), PARQUET_COMPRESSION, String(PARQUET_ROW_GROUP_ROWS)], { encoding: "utf8", cwd: root });
		if (run.status !== 0) {
			log(`DuckDB reference skipped: ${run.stderr.trim().split("\n")[0]}`);
			return undefined;
		}
		measured.push(JSON.parse(run.stdout.trim().split("\n").at(-1)));
	}
	return { ...measured[0], seconds: median(measured.map((m) => m.seconds)) };
}

/** The 50M-row store, written by xarray once. */
function ensureTableStore(root, cacheDir, log) {
	const store = path.join(cacheDir, `table-50M-v${STORE_VERSION}.zarr`);
	if (fs.existsSync(path.join(store, ".zmetadata"))) return store;
	log(`writing ${path.relative(root, store)} with xarray (once)...`);
	fs.rmSync(store, { recursive: true, force: true });
	const made = spawnSync(XARRAY_PYTHON, [path.join(root, "bench", "table_reference.py"), "make", store], { encoding: "utf8" });
	if (made.status !== 0) throw new Error(`table_reference.py make: ${made.stderr.trim()}`);
	return store;
}

/**
 * Runs the cases and prints their table. `measure(command, args, options)` is run.mjs's (wall time here, peak RSS
 * and CPU by GNU time); `exporter` the command and arguments that run dt64-export.
 */
export async function tablesBench({ root, cacheDir, outDir, runs, measure, exporter, exporterEnv, printTable, fmt, median, log }) {
	if (!haveXarray()) {
		console.log(`\nTables: skipped (${XARRAY_PYTHON} has no xarray, zarr and pandas to write the store and run the reference)`);
		return [];
	}
	const store = ensureTableStore(root, cacheDir, log);
	const cases = [
		{ label: "t2m + index -> parquet", args: ["--columns", "t2m", "--index", "--to", "parquet"], ext: "parquet" },
		{ label: "t2m + index -> arrow", args: ["--columns", "t2m", "--index", "--to", "arrow"], ext: "arrow" },
		{ label: "t2m, elev (broadcast) + index -> arrow", args: ["--columns", "t2m,elev", "--index", "--to", "arrow"], ext: "arrow" },
	];
	console.log(`\nTables: ${ROWS / 1e6}M rows (time 2000 x lat 100 x lon 250, t2m float32 in 100x100x250 Blosc chunks, written by xarray); median of ${runs}`);
	const rows = [];
	const results = [];
	let duckdb;
	for (const spec of cases) {
		const out = path.join(outDir, `table.${spec.ext}`);
		const measured = [];
		for (let r = 0; r < runs; r++) {
			fs.rmSync(out, { force: true });
			measured.push(await measure(exporter.command, [...exporter.args, store, ...spec.args, "-o", out, "-q", "--force"], { preloadRss: true, env: exporterEnv }));
		}
		const bytes = fs.statSync(out).size;
		if (spec.ext === "parquet") duckdb = await duckdbReencode({ root, out, outDir, runs, median, log });
		fs.rmSync(out, { force: true });
		const seconds = median(measured.map((m) => m.seconds));
		const rssMiB = median(measured.map((m) => m.rssKiB)) / 1024;
		const cpu = median(measured.map((m) => m.cpuSeconds));
		results.push({ case: spec.label, rows: ROWS, seconds, rssMiB, cpuSeconds: cpu, bytes, allSeconds: measured.map((m) => m.seconds) });
		rows.push([spec.label, fmt(seconds, 2), fmt(ROWS / seconds / 1e6, 1), fmt(cpu, 1), fmt(rssMiB, 0), fmt(bytes / 1e6, 0)]);
	}
	const resultFile = path.join(outDir, "table-reference.json");
	const reference = [];
	for (let r = 0; r < runs; r++) {
		const whole = await measure(XARRAY_PYTHON, [path.join(root, "bench", "table_reference.py"), "to_dataframe", store, "t2m", resultFile]);
		reference.push({ ...whole, step: JSON.parse(fs.readFileSync(resultFile, "utf8")) });
	}
	const step = median(reference.map((m) => m.step.seconds));
	const whole = median(reference.map((m) => m.seconds));
	const refRss = median(reference.map((m) => m.rssKiB)) / 1024;
	const refCpu = median(reference.map((m) => m.cpuSeconds));
	const versions = `xarray ${reference[0].step.xarray}, pandas ${reference[0].step.pandas}`;
	results.push({ case: "xarray to_dataframe (reference)", rows: reference[0].step.rows, stepSeconds: step, seconds: whole, rssMiB: refRss, cpuSeconds: refCpu, versions });
	const [toParquet, toArrow] = results;
	rows.push(["dt64-export: Parquet encoding (parquet - arrow)", fmt(toParquet.seconds - toArrow.seconds, 2), "-", fmt(toParquet.cpuSeconds - toArrow.cpuSeconds, 1), "-", "-"]);
	if (duckdb !== undefined) {
		results.push({ case: "DuckDB re-encode (reference)", rows: duckdb.rows, seconds: duckdb.seconds, bytes: duckdb.bytes, version: duckdb.version });
		rows.push([`DuckDB ${duckdb.version}: the same rows to Parquet (COPY only)`, fmt(duckdb.seconds, 2), fmt(duckdb.rows / duckdb.seconds / 1e6, 1), "-", "-", fmt(duckdb.bytes / 1e6, 0)]);
	}
	rows.push(["xarray to_dataframe() step only", fmt(step, 2), fmt(ROWS / step / 1e6, 1), "-", "-", "-"]);
	rows.push(["xarray: open + to_dataframe (process)", fmt(whole, 2), fmt(ROWS / whole / 1e6, 1), fmt(refCpu, 1), fmt(refRss, 0), "-"]);
	printTable(["case", "median s", "M rows/s", "cpu s", "peak RSS MiB", "output MB"], rows);
	// Debian's python3-xarray 2023.01 reports its version as 999 (its packaging has no git metadata).
	console.log(`reference: ${versions} (as reported) on ${XARRAY_PYTHON}; no pyarrow there, so it stops at the DataFrame (no Parquet write): a lower bound of its export.`);
	console.log("dt64-export figures are whole processes: read, decode, broadcast, encode and write the file (fsync, rename).");
	if (duckdb !== undefined) console.log(`DuckDB (bench/duckdb-parquet-reference.mjs, ${DUCKDB_THREADS} threads): the exporter's Parquet file loaded into memory untimed, then COPY to Parquet with the same compression and row groups, timed: a C++ encoder's cost for the same rows.`);
	return results;
}
