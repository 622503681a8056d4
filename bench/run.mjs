// npm run bench [-- --runs N] [--warmup N] [--only s-raw,s-gzip,...,tables] [--no-reference] [--no-rss] [--no-convert] [--no-e2e] [--target DIR]
//                [--keep-env] [--no-codecs] [--no-tables] [--no-scale]
//
// End-to-end CLI timings on synthetic stores (built once into .bench-cache/), the numpy + zlib reference
// (bench/reference.py) run alternately with them, peak RSS at 5M and 50M values, and the pure conversion core.
// Then the codecs real stores use (bench/codec-bench.mjs): v2 blosc-lz4, zstd and lz4, v3 zstd, blosc-zstd, sharded
// zstd, gzip, uncompressed and a 3-D array in C and chunk order, against numcodecs' C decoders in 2 threads and
// zarr-python 2.13, all three alternated in one run, with peak RSS (5M and 50M zstd values). Then a 50M-row table against
// xarray's to_dataframe (bench/tables.mjs).
// Prints results and pass/fail against the targets; never fails on a miss (benchmarks are not tests).
// --target DIR benchmarks the bin/ and dist/ of another checkout (an A/B of two builds on the same cached stores).
// Each timed run writes a new file (the previous output is removed first, untimed), and the exporter runs without
// NODE_EXTRA_CA_CERTS, which makes every Node start parse a certificate bundle; --keep-env keeps it (both are
// reported in the header).
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { CODEC_CASES, CODEC_RSS_CASES, codecPythonVersions, ensureCodecStore, referenceCommand, RSS_LIMIT_MIB as CODEC_RSS_LIMIT_MIB, TARGET_VS_C, TARGET_VS_ZARR_PYTHON, zarrPythonCommand } from "./codec-bench.mjs";
import { median } from "./lib/median.mjs";
import { ensureStore, SERIES } from "./lib/synthetic.mjs";
import { scaleBench } from "./scale.mjs";
import { tablesBench } from "./tables.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The checkout whose bin/ and dist/ are measured: this one unless --target. */
let target = root;
const referenceScript = path.join(root, "bench", "reference.py");
const cacheDir = path.join(root, ".bench-cache");

function parseArgs(argv) {
	const args = { runs: 3, warmup: 1, only: null, reference: true, rss: true, convert: true, e2e: true, codecs: true, tables: true, target: root, keepEnv: false, scale: true };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const value = () => {
			const v = argv[++i];
			if (v === undefined) throw new Error(`${a} needs a value`);
			return v;
		};
		if (a === "--runs") args.runs = Number(value());
		else if (a === "--warmup") args.warmup = Number(value());
		else if (a === "--only") args.only = value().split(",");
		else if (a === "--no-reference") args.reference = false;
		else if (a === "--no-rss") args.rss = false;
		else if (a === "--no-convert") args.convert = false;
		else if (a === "--no-e2e") args.e2e = false;
		else if (a === "--no-codecs") args.codecs = false;
		else if (a === "--no-tables") args.tables = false;
		else if (a === "--target") args.target = path.resolve(value());
		else if (a === "--keep-env") args.keepEnv = true;
		else if (a === "--no-scale") args.scale = false;
		else if (a === "-h" || a === "--help") {
			const header = fs.readFileSync(fileURLToPath(import.meta.url), "utf8").split("\n");
			console.log(header.slice(0, header.findIndex((l) => !l.startsWith("//"))).map((l) => l.slice(3)).join("\n"));
			process.exit(0);
		} else throw new Error(`unknown argument ${a}`);
	}
	if (!Number.isInteger(args.runs) || args.runs < 1) throw new Error("--runs must be an integer >= 1");
	if (!Number.isInteger(args.warmup) || args.warmup < 0) throw new Error("--warmup must be an integer >= 0");
	return args;
}

const M = 1_000_000;
const CHUNK = 1_000_000;
/** End-to-end stores: name, series (source unit), values, codec; `target` is the ratio to the reference. */
const E2E_STORES = [
	{ name: "s-raw", series: "s", length: 20 * M, codec: "raw", target: 1.0 },
	{ name: "s-gzip", series: "s", length: 20 * M, codec: "gzip", target: 0.8 },
	{ name: "D-gzip", series: "D", length: 20 * M, codec: "gzip", target: 0.8 },
	{ name: "10us-gzip", series: "10us", length: 20 * M, codec: "gzip", target: 0.8 },
	{ name: "ps-gzip", series: "ps", length: 20 * M, codec: "gzip", target: 0.8 },
];
const RSS_STORES = [
	{ name: "s-gzip-5M", series: "s", length: 5 * M, codec: "gzip" },
	{ name: "s-gzip-50M", series: "s", length: 50 * M, codec: "gzip" },
];
const RSS_LIMIT_MIB = 200;
const RSS_GROWTH_LIMIT = 1.25;

/** The medians of a set of runs: wall, CPU (user + system) and user seconds. */
const mediansOf = (runs) => ({ seconds: median(runs.map((m) => m.seconds)), cpuSeconds: median(runs.map((m) => m.cpuSeconds)), userSeconds: median(runs.map((m) => m.userSeconds)) });
const fmt = (x, digits = 2) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(digits));
const mib = (kib) => kib / 1024;

// BENCH_NO_GNU_TIME=1 tries the fallback (a preload for node, the script itself for the reference).
const haveGnuTime = fs.existsSync("/usr/bin/time") && process.env.BENCH_NO_GNU_TIME !== "1";

function pythonWithNumpy() {
	const probe = spawnSync("python3", ["-c", "import numpy, sys; print(numpy.__version__, sys.version.split()[0])"], { encoding: "utf8" });
	return probe.status === 0 ? probe.stdout.trim() : null;
}

/**
 * The environment of the exporter's runs. NODE_EXTRA_CA_CERTS (set machine-wide in some sandboxes, for a proxy)
 * makes Node read and parse that certificate bundle at every start, before any of the exporter's code runs: a
 * cost of the machine, not of the export, which the reference (python) does not pay. Dropped unless --keep-env.
 */
let exporterEnv = process.env;

/** Median wall seconds of `node -e 0` with `env`: Node's own start-up. */
function nodeStartSeconds(env) {
	const times = [];
	for (let i = 0; i < 7; i++) {
		const start = performance.now();
		spawnSync(process.execPath, ["-e", "0"], { env });
		times.push((performance.now() - start) / 1000);
	}
	return median(times);
}

/** Runs a command, timing its wall clock here and its peak RSS with GNU time (or a preload / the script itself). */
function measure(command, commandArgs, { preloadRss = false, env: baseEnv = process.env } = {}) {
	const rssFile = path.join(os.tmpdir(), `dt64-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
	let file = command;
	let argv = commandArgs;
	const env = { ...baseEnv };
	if (haveGnuTime) {
		file = "/usr/bin/time";
		argv = ["-f", "%M %U %S", "-o", rssFile, command, ...commandArgs];
	} else {
		env.BENCH_RSS_FILE = rssFile;
		if (preloadRss) argv = ["--import", path.join(root, "bench", "lib", "report-rss.mjs"), ...commandArgs];
	}
	return new Promise((resolve, reject) => {
		const start = performance.now();
		const child = spawn(file, argv, { stdio: ["ignore", "ignore", "pipe"], env, cwd: root });
		let stderr = "";
		child.stderr.on("data", (d) => (stderr += d));
		child.on("error", reject);
		child.on("close", (code) => {
			const seconds = (performance.now() - start) / 1000;
			let rssKiB = NaN;
			let cpuSeconds = NaN;
			let userSeconds = NaN;
			try {
				// "peak RSS KiB, user s, system s" on the last line (GNU time may print a status line before it).
				const [rss, user, system] = fs.readFileSync(rssFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
				rssKiB = rss;
				cpuSeconds = user + system;
				userSeconds = user;
				fs.rmSync(rssFile, { force: true });
			} catch {
				// Not reported: left as NaN and printed as "-".
			}
			if (code !== 0) reject(new Error(`${command} ${commandArgs.join(" ")} exited ${code}: ${stderr.trim()}`));
			else resolve({ seconds, rssKiB, cpuSeconds, userSeconds });
		});
	});
}

/**
 * Each run writes a new file, as a first export does: the previous output is removed first (not timed). Written over
 * in place, the reference (which truncates its output) would reuse the page-cache pages its last output had just
 * freed, while the exporter, which writes a temporary file beside the old output and renames it over, cannot: on a
 * VM whose free memory goes back to the host, fresh pages cost up to 0.3 s of system time per 160 MB.
 */
const exportRun = (store, output, extraArgs = []) => {
	fs.rmSync(output, { force: true });
	return measure(process.execPath, [path.join(target, "bin", "dt64-export.js"), store, "--to", "arrow", "-o", output, "-q", "--force", ...extraArgs], { preloadRss: true, env: exporterEnv });
};
/** A python reference command ([file, args]), run on a new output file as the exporter is. */
const pythonRun = ([file, argv], output) => {
	fs.rmSync(output, { force: true });
	return measure(file, argv);
};
const referenceRun = (store, output) => {
	fs.rmSync(output, { force: true });
	return measure("python3", [referenceScript, store, output]);
};

function loadLine(when) {
	const [one, five] = os.loadavg();
	const busy = one > os.cpus().length / 2 ? " (other work is running: timings are noisy, ratios to the alternated reference less so)" : "";
	return `load average ${when}: ${one.toFixed(2)} (1 min), ${five.toFixed(2)} (5 min)${busy}`;
}

function machineLine(numpy) {
	const cpus = os.cpus();
	return [
		`machine: ${cpus[0]?.model ?? "unknown CPU"}, ${cpus.length} cores (available parallelism ${os.availableParallelism()}), ` +
			`${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}`,
		`node ${process.version}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? "4 (default)"}` +
			(numpy ? `, python ${numpy.split(" ")[1]} numpy ${numpy.split(" ")[0]}` : ", no python3+numpy (reference skipped)") +
			`, peak RSS and CPU by ${haveGnuTime ? "/usr/bin/time" : "process.resourceUsage (preload) / getrusage (reference)"}`,
		loadLine("at start"),
	];
}

function printTable(headers, rows, alignLeft = 1) {
	const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => String(r[c]).length)));
	const line = (cells) => cells.map((cell, c) => (c < alignLeft ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]))).join("  ");
	console.log(line(headers));
	console.log(widths.map((w) => "-".repeat(w)).join("  "));
	for (const r of rows) console.log(line(r));
}

async function convertMicro(runs) {
	const modulePath = path.join(target, "dist", "convert", "to-arrow-timestamps.js");
	const length = 10 * M;
	const repeats = Math.max(runs, 5);
	const cases = [
		{ label: "s -> s", series: "s", unit: "s" },
		{ label: "us -> us", series: "us", unit: "us" },
		{ label: "D -> s", series: "D", unit: "s" },
		{ label: "10us -> us", series: "10us", unit: "us" },
		{ label: "ps -> ns", series: "ps", unit: "ns" },
		{ label: "M -> s", series: "M", unit: "s" },
	];
	const rows = [];
	for (const c of cases) {
		const child = spawnSync(process.execPath, [path.join(root, "bench", "lib", "convert-case.mjs"), modulePath, c.series, c.unit, String(length), String(repeats)], { encoding: "utf8" });
		if (child.status !== 0) throw new Error(`convert ${c.label}: ${child.stderr.trim()}`);
		const { times, cpuTimes, nullCount, zeroCopy } = JSON.parse(child.stdout);
		const t = median(times);
		const cpu = median(cpuTimes);
		rows.push([c.label, `${length / M}M`, fmt(t * 1000, 1), fmt(length / t / M, 1), fmt((length * 8) / t / M, 0), fmt(cpu * 1000, 1), fmt(length / cpu / M, 1), nullCount, zeroCopy ? "yes" : "no"]);
	}
	console.log(`\nConvert only: toArrowTimestamps on ${length / M}M values in memory (~1% NaT), one process per case, median of ${repeats} after a warm-up`);
	printTable(["conversion", "values", "wall ms", "M values/s", "MB/s", "cpu ms", "M values/cpu s", "nulls", "zero-copy"], rows);
	return rows;
}

/** The codec stores (bench/codec-bench.mjs): exporter, 2-thread C reference and zarr-python, alternated. */
async function codecSection(args, outDir, log, results) {
	const versions = codecPythonVersions();
	if (versions === null) {
		console.log("\nCodecs: skipped (Debian's /usr/bin/python3 with numcodecs and zarr is needed to write the stores and run the references)");
		return;
	}
	const [numcodecsVersion, zarrVersion] = versions.split(" ");
	const cases = CODEC_CASES.filter((c) => !args.only || args.only.includes(c.name));
	const length = 20 * M;
	results.codecs = [];
	if (cases.length) {
		console.log(`\nCodecs: ${length / M}M datetime64[ns] values, 1M-value chunks, median of ${args.runs} (+${args.warmup} warm-up), exporter / C reference ` +
			`(numcodecs ${numcodecsVersion} in 2 threads, bench/reference-codecs.py) / zarr-python ${zarrVersion} (v2 stores) alternated`);
		const rows = [];
		for (const spec of cases) {
			const store = ensureCodecStore(cacheDir, root, spec.store, length, log);
			const outputs = { e: path.join(outDir, `${spec.name}.arrow`), c: path.join(outDir, `${spec.name}.c`), z: path.join(outDir, `${spec.name}.zp`) };
			const runs = { e: [], c: [], z: [] };
			const who = ["e", "c", ...(spec.zarrPython ? ["z"] : [])];
			for (let r = 0; r < args.warmup + args.runs; r++) {
				// Rotate which goes first, so that none always runs right after another's page-cache writes.
				for (let k = 0; k < who.length; k++) {
					const w = who[(k + r) % who.length];
					let m;
					if (w === "e") m = await exportRun(store, outputs.e, spec.exportArgs);
					else if (w === "c") m = await pythonRun(referenceCommand(root, store, outputs.c, spec.referenceArgs), outputs.c);
					else m = await pythonRun(zarrPythonCommand(root, store, outputs.z), outputs.z);
					if (r >= args.warmup) runs[w].push(m);
				}
			}
			for (const output of Object.values(outputs)) fs.rmSync(output, { force: true });
			const t = (w) => (runs[w].length ? median(runs[w].map((m) => m.seconds)) : NaN);
			const rss = mib(median(runs.e.map((m) => m.rssKiB)));
			// The reference's own peak, for scale: the RSS target is the exporter's alone.
			const cRss = mib(median(runs.c.map((m) => m.rssKiB)));
			const exporter = mediansOf(runs.e);
			const reference = mediansOf(runs.c);
			const cpu = exporter.cpuSeconds;
			const cCpu = reference.cpuSeconds;
			const userVsC = exporter.userSeconds / reference.userSeconds;
			const row = {
				store: spec.name, seconds: t("e"), cSeconds: t("c"), zarrPythonSeconds: t("z"), rssMiB: rss, cRssMiB: cRss, cpuSeconds: cpu, cCpuSeconds: cCpu, vsC: t("e") / t("c"),
				vsZarrPython: t("e") / t("z"), cpuVsC: cpu / cCpu, userVsC, allSeconds: runs.e.map((m) => m.seconds), allCSeconds: runs.c.map((m) => m.seconds),
			};
			results.codecs.push(row);
			const verdict = row.vsC <= TARGET_VS_C && (Number.isNaN(row.vsZarrPython) || row.vsZarrPython <= TARGET_VS_ZARR_PYTHON) && rss <= CODEC_RSS_LIMIT_MIB ? "PASS" : "FAIL";
			rows.push([
				row.store, fmt(row.seconds, 3), fmt(cpu, 2), fmt(row.cSeconds, 3), fmt(cCpu, 2), fmt(row.zarrPythonSeconds, 3), `${fmt(row.vsC)}x`, `${fmt(row.cpuVsC)}x`, `${fmt(userVsC)}x`,
				Number.isNaN(row.vsZarrPython) ? "-" : `${fmt(row.vsZarrPython)}x`, fmt(rss, 0), fmt(cRss, 0), verdict,
			]);
		}
		printTable(["store", "export s", "cpu s", "C ref s", "C cpu s", "zarr-py s", "exp/C", "cpu exp/C", "user exp/C", "exp/zarr-py", "RSS MiB", "C RSS MiB", "target"], rows);
		console.log("cpu s = user + system seconds of all threads: on a machine shared with other work, the ratio of CPU seconds moves less than that of wall times");
		console.log("user exp/C = the ratio of user CPU seconds alone: system time here is mostly the page-cache copy of the output, the same bytes for both, whose cost varies from run to run on a VM");
		console.log(`targets: exp/C <= ${TARGET_VS_C.toFixed(2)}x, exp/zarr-py <= ${TARGET_VS_ZARR_PYTHON.toFixed(2)}x, peak RSS <= ${CODEC_RSS_LIMIT_MIB} MiB; 3-D: shape (200, 100, 1000) in (50, 20, 1000) chunks, --index`);
	}
	const rssCases = CODEC_RSS_CASES.filter((c) => !args.only || args.only.includes(c.name));
	if (args.rss && rssCases.length) {
		// Each length is exported and, alternated, read by the C reference: besides the peaks, the difference between
		// the two lengths is the cost of 45M values once both are started (threads, WebAssembly compiled and optimized).
		const peaks = [];
		const times = [];
		for (const spec of rssCases) {
			const store = ensureCodecStore(cacheDir, root, spec.store, spec.length, log);
			const out = path.join(outDir, `${spec.name}.arrow`);
			const reference = path.join(outDir, `${spec.name}.c`);
			const runs = { e: [], c: [] };
			for (let r = 0; r < args.runs; r++) {
				const order = r % 2 === 0 ? ["e", "c"] : ["c", "e"];
				for (const w of order) runs[w].push(w === "e" ? await exportRun(store, out) : await pythonRun(referenceCommand(root, store, reference), reference));
			}
			fs.rmSync(out, { force: true });
			fs.rmSync(reference, { force: true });
			peaks.push(mib(median(runs.e.map((m) => m.rssKiB))));
			times.push({ e: mediansOf(runs.e), c: mediansOf(runs.c) });
		}
		if (peaks.length === 2) {
			console.log(`zstd peak RSS: ${fmt(peaks[0], 1)} MiB at 5M, ${fmt(peaks[1], 1)} MiB at 50M: ${fmt(peaks[1] / peaks[0])}x (target <= ${RSS_GROWTH_LIMIT}x, <= ${CODEC_RSS_LIMIT_MIB} MiB)`);
			const [small, large] = times;
			// The exporter's growth from 5M to 50M values over the reference's, in one measure.
			const marginal = (measure) => (large.e[measure] - small.e[measure]) / (large.c[measure] - small.c[measure]);
			console.log(
				`zstd 5M -> 50M values: export ${fmt(small.e.seconds, 3)} -> ${fmt(large.e.seconds, 3)} s (cpu ${fmt(small.e.cpuSeconds)} -> ${fmt(large.e.cpuSeconds)}), ` +
					`C reference ${fmt(small.c.seconds, 3)} -> ${fmt(large.c.seconds, 3)} s (cpu ${fmt(small.c.cpuSeconds)} -> ${fmt(large.c.cpuSeconds)}); ` +
					`the 45M values after start-up: exp/C ${fmt(marginal("seconds"))}x, cpu exp/C ${fmt(marginal("cpuSeconds"))}x, user exp/C ${fmt(marginal("userSeconds"))}x`,
			);
			results.codecRss = peaks;
			results.codecMarginal = { small, large, vsC: marginal("seconds"), cpuVsC: marginal("cpuSeconds"), userVsC: marginal("userSeconds") };
		}
	}
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	target = args.target;
	if (!fs.existsSync(path.join(target, "dist", "convert", "to-arrow-timestamps.js"))) throw new Error(`${target}/dist/ is missing: run \`npm run build\` there first`);
	const numpy = args.reference ? pythonWithNumpy() : null;
	console.log(`dt64-export benchmark${target === root ? "" : ` of ${target}`}`);
	const machine = machineLine(numpy);
	if (process.env.NODE_EXTRA_CA_CERTS) {
		const without = { ...process.env };
		delete without.NODE_EXTRA_CA_CERTS;
		const cost = nodeStartSeconds(process.env) - nodeStartSeconds(without);
		if (!args.keepEnv) exporterEnv = without;
		machine.push(
			`NODE_EXTRA_CA_CERTS is set: every Node start parses ${process.env.NODE_EXTRA_CA_CERTS} (+${fmt(cost * 1000, 0)} ms to \`node -e 0\` here); ` +
				(args.keepEnv ? "kept for the exporter (--keep-env)" : "the exporter runs without it (--keep-env keeps it)"),
		);
	}
	for (const l of machine) console.log(l);
	const results = { machine, keepEnv: args.keepEnv, e2e: [], rss: [], convert: [] };

	fs.mkdirSync(cacheDir, { recursive: true });
	const outDir = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-bench-"));
	const log = (m) => console.log(`  ${m}`);
	try {
		if (args.convert) results.convert = await convertMicro(args.runs);

		const e2eStores = E2E_STORES.filter((s) => !args.only || args.only.includes(s.name));
		if (args.e2e && e2eStores.length) {
			console.log(`\nEnd to end: node bin/dt64-export.js <store> --to arrow -o <tmp> -q --force; median of ${args.runs} (+${args.warmup} warm-up), ` +
				`${CHUNK / M}M-value chunks, ~1% NaT${numpy ? "; reference = python3 bench/reference.py, alternated with the exporter" : ""}`);
			const rows = [];
			for (const spec of e2eStores) {
				const store = await ensureStore(cacheDir, { ...spec, chunk: CHUNK }, log);
				const exportOut = path.join(outDir, `${spec.name}.arrow`);
				const referenceOut = path.join(outDir, `${spec.name}.ref`);
				const exp = [];
				const ref = [];
				for (let r = 0; r < args.warmup + args.runs; r++) {
					// Alternate which goes first, so neither always runs right after the other's page-cache writes.
					const order = r % 2 === 0 ? ["e", "r"] : ["r", "e"];
					for (const who of order) {
						if (who === "e") {
							const m = await exportRun(store.dir, exportOut);
							if (r >= args.warmup) exp.push(m);
						} else if (numpy) {
							const m = await referenceRun(store.dir, referenceOut);
							if (r >= args.warmup) ref.push(m);
						}
					}
				}
				fs.rmSync(exportOut, { force: true });
				fs.rmSync(referenceOut, { force: true });
				const t = median(exp.map((m) => m.seconds));
				const rss = median(exp.map((m) => m.rssKiB));
				const tr = ref.length ? median(ref.map((m) => m.seconds)) : NaN;
				const rssRef = ref.length ? median(ref.map((m) => m.rssKiB)) : NaN;
				const cpu = median(exp.map((m) => m.cpuSeconds));
				const cpuRef = ref.length ? median(ref.map((m) => m.cpuSeconds)) : NaN;
				const ratio = t / tr;
				const verdict = Number.isNaN(ratio) ? "-" : `${ratio <= spec.target ? "PASS" : "FAIL"} (<= ${spec.target.toFixed(2)}x)`;
				const row = {
					store: spec.name,
					unit: `${SERIES[spec.series].scaleFactor === 1 ? "" : SERIES[spec.series].scaleFactor}${SERIES[spec.series].unit}`,
					values: spec.length,
					diskMB: store.bytesOnDisk / M,
					seconds: t,
					minSeconds: Math.min(...exp.map((m) => m.seconds)),
					mValuesPerSecond: spec.length / t / M,
					mbPerSecond: (spec.length * 8) / t / M,
					rssMiB: mib(rss),
					cpuSeconds: cpu,
					referenceCpuSeconds: cpuRef,
					referenceSeconds: tr,
					referenceRssMiB: mib(rssRef),
					ratio,
					verdict,
					allSeconds: exp.map((m) => m.seconds),
					allReferenceSeconds: ref.map((m) => m.seconds),
				};
				results.e2e.push(row);
				rows.push([
					row.store, row.unit, `${spec.length / M}M`, fmt(row.diskMB, 0), fmt(row.seconds, 3), fmt(row.minSeconds, 3), fmt(row.mValuesPerSecond, 1),
					fmt(row.mbPerSecond, 0), fmt(cpu, 2), fmt(row.rssMiB, 0), fmt(tr, 3), fmt(cpuRef, 2), fmt(row.referenceRssMiB, 0), Number.isNaN(ratio) ? "-" : `${fmt(ratio)}x`, verdict,
				]);
			}
			printTable(["store", "unit", "values", "disk MB", "median s", "min s", "M val/s", "MB/s", "cpu s", "RSS MiB", "ref s", "ref cpu s", "ref MiB", "exp/ref", "target"], rows);
			console.log("median s, min s = wall time; M val/s, MB/s (int64 input bytes, values x 8) from the median; cpu s = user + system of the process (all threads);");
			console.log("RSS = peak resident set; ref = bench/reference.py (numpy + zlib, one thread, fsyncs its output like the exporter); exp/ref = ratio of median wall times");
		}

		if (args.rss && (!args.only || RSS_STORES.some((s) => args.only.includes(s.name)))) {
			console.log(`\nPeak RSS vs length (s unit, gzip level 1, ${CHUNK / M}M-value chunks; median of ${args.runs})`);
			const rows = [];
			const peaks = [];
			for (const spec of RSS_STORES) {
				const store = await ensureStore(cacheDir, { ...spec, chunk: CHUNK }, log);
				const out = path.join(outDir, `${spec.name}.arrow`);
				const runs = [];
				for (let r = 0; r < args.runs; r++) runs.push(await exportRun(store.dir, out));
				fs.rmSync(out, { force: true });
				const peak = mib(median(runs.map((m) => m.rssKiB)));
				const t = median(runs.map((m) => m.seconds));
				peaks.push(peak);
				results.rss.push({ store: spec.name, values: spec.length, rssMiB: peak, seconds: t, allRssMiB: runs.map((m) => mib(m.rssKiB)) });
				rows.push([spec.name, `${spec.length / M}M`, fmt(peak, 1), fmt(Math.min(...runs.map((m) => mib(m.rssKiB))), 1), fmt(Math.max(...runs.map((m) => mib(m.rssKiB))), 1), fmt(t, 3), fmt(spec.length / t / M, 1)]);
			}
			printTable(["store", "values", "RSS MiB", "min", "max", "median s", "M val/s"], rows);
			const [small, large] = peaks;
			const growth = large / small;
			const worst = Math.max(...results.rss[1].allRssMiB);
			const verdict = (ok) => (ok ? "PASS" : "FAIL");
			console.log(`peak RSS at 50M: ${fmt(large, 1)} MiB (median) -> ${verdict(large <= RSS_LIMIT_MIB)}, worst run ${fmt(worst, 1)} MiB -> ${verdict(worst <= RSS_LIMIT_MIB)} (<= ${RSS_LIMIT_MIB} MiB)`);
			console.log(`50M / 5M peak RSS: ${fmt(growth)}x (medians) -> ${verdict(growth <= RSS_GROWTH_LIMIT)} (<= ${RSS_GROWTH_LIMIT}x)`);
			results.rssGrowth = growth;
		}
		if (args.codecs) await codecSection(args, outDir, log, results);
		if (args.tables && (!args.only || args.only.includes("tables"))) {
			const exporter = { command: process.execPath, args: [path.join(target, "bin", "dt64-export.js")] };
			results.tables = await tablesBench({ root, cacheDir, outDir, runs: args.runs, measure, exporter, exporterEnv, printTable, fmt, median, log });
		}

		if (args.scale && !args.only) {
			const runExporter = (exporterArgs) => measure(process.execPath, [path.join(target, "bin", "dt64-export.js"), ...exporterArgs], { preloadRss: true, env: exporterEnv });
			const stores = { parts: E2E_STORES.find((s) => s.name === "s-gzip"), range: RSS_STORES.find((s) => s.name === "s-gzip-50M") };
			results.scale = await scaleBench({ cacheDir, outDir, runs: args.runs, runExporter, referenceRun: numpy ? referenceRun : undefined, ensureStore, median, fmt, printTable, log, chunk: CHUNK, stores, cores: os.availableParallelism() });
		}
	} finally {
		fs.rmSync(outDir, { recursive: true, force: true });
	}
	console.log(`\n${loadLine("at end")}`);
	results.loadAtEnd = os.loadavg();
	const resultsFile = path.join(cacheDir, "last-results.json");
	fs.writeFileSync(resultsFile, JSON.stringify(results, null, 2));
	console.log(`\nresults as JSON: ${path.relative(process.cwd(), resultsFile)}`);
}

main().catch((error) => {
	console.error(`bench: ${error.message}`);
	process.exit(1);
});
