// node bench/peak-breakdown.mjs <codec case, default 3d-zstd-C> [--runs N] [--target DIR] [--env NAME=VALUE]...
//                                [--node-option OPTION]...
//
// What one CLI export holds at its peak RSS, and the CPU of its main thread against its other threads: the export
// runs as the bench runs it (bench/codec-bench.mjs's cases and stores, without NODE_EXTRA_CA_CERTS, output to
// os.tmpdir()), with bench/lib/peak-sampler.cjs preloaded. Prints, median of the runs: peak RSS (the kernel's, and
// the sampler's split into the node binary's file pages and anonymous memory), at the sampled peak the V8 heap
// (new space and the rest) and the array buffers, the buffers of 64 KiB or more the export made (the BufferPool's
// footprint: it reuses them) by size and caller, and CPU seconds of the main thread and of all other threads (decode
// threads, libuv's pool doing file reads and writes, V8's helpers). `--env DT64_DECODE_THREADS=0` decodes on the
// main thread; `--node-option --max-semi-space-size=1` gives node an option (V8 then rejects the CLI's code caches,
// and loading it allocates more). A store is written on first use as `npm run bench` writes it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CODEC_CASES, codecPythonVersions, ensureCodecStore } from "./codec-bench.mjs";
import { median } from "./lib/median.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const LENGTH = 20_000_000;

function parseArgs(argv) {
	const args = { name: "3d-zstd-C", runs: 3, target: root, env: {}, nodeOptions: [] };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--runs") args.runs = Number(argv[++i]);
		else if (a === "--target") args.target = path.resolve(argv[++i]);
		else if (a === "--node-option") args.nodeOptions.push(argv[++i]);
		else if (a === "--env") {
			const [name, ...value] = argv[++i].split("=");
			args.env[name] = value.join("=");
		} else args.name = a;
	}
	return args;
}

function runOnce(store, exportArgs, { target, env: extraEnv, nodeOptions }) {
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-peak-"));
	const report = path.join(scratch, "peak.json");
	const env = { ...process.env, ...extraEnv, PEAK_SAMPLER_FILE: report };
	delete env.NODE_EXTRA_CA_CERTS;
	try {
		const sampler = path.join(root, "bench", "lib", "peak-sampler.cjs");
		const child = spawnSync(process.execPath, [...nodeOptions, "--require", sampler, path.join(target, "bin", "dt64-export.js"), store, ...exportArgs, "-o", path.join(scratch, "out.arrow"), "-q"], { env, encoding: "utf8" });
		if (child.status !== 0) throw new Error(`export failed (${child.status}): ${child.stderr.trim()}`);
		return JSON.parse(fs.readFileSync(report, "utf8"));
	} finally {
		fs.rmSync(scratch, { recursive: true, force: true });
	}
}

function main() {
	const args = parseArgs(process.argv.slice(2));
	const codecCase = CODEC_CASES.find((c) => c.name === args.name);
	if (codecCase === undefined) throw new Error(`no codec case ${args.name}: one of ${CODEC_CASES.map((c) => c.name).join(", ")}`);
	if (codecPythonVersions() === null) throw new Error("Debian's /usr/bin/python3 with numcodecs and zarr is needed to write the store");
	const store = ensureCodecStore(path.join(root, ".bench-cache"), root, codecCase.store, LENGTH, (line) => console.log(line));
	const envText = Object.entries(args.env).map(([name, value]) => `${name}=${value} `).join("");
	console.log(`${envText}node ${args.nodeOptions.map((o) => `${o} `).join("")}dt64-export ${codecCase.store} ${(codecCase.exportArgs ?? []).join(" ")}${args.target === root ? "" : ` (${args.target})`}: ${args.runs} runs, load average ${os.loadavg()[0].toFixed(2)}`);
	const runs = [];
	for (let r = 0; r < args.runs; r++) {
		const run = runOnce(store, codecCase.exportArgs ?? [], args);
		runs.push(run);
		console.log(`  run ${r + 1}: peak RSS ${run.maxRss.toFixed(1)} MiB, main thread ${run.cpu.main.toFixed(2)} s CPU, other threads ${run.cpu.otherThreads.toFixed(2)} s`);
	}
	const pick = (f) => median(runs.map(f));
	const line = (label, value, unit = "MiB") => console.log(`${label.padEnd(44)} ${value.toFixed(unit === "s" ? 2 : 1).padStart(6)} ${unit}`);
	line("peak RSS (kernel)", pick((r) => r.maxRss));
	line("  sampled peak", pick((r) => r.peak.rss));
	line("    node binary and libraries (file pages)", pick((r) => r.peak.file));
	line("    anonymous", pick((r) => r.peak.anon));
	line("      main thread's V8 heap", pick((r) => r.peak.heapTotal));
	line("        of which new space", pick((r) => r.peak.spaces.new_space ?? 0));
	line("      array buffers", pick((r) => r.peak.arrayBuffers));
	line("      the rest (decode threads, malloc, code)", pick((r) => r.peak.anon - r.peak.heapTotal - r.peak.arrayBuffers));
	const pool = runs.at(-1).pool.sort((a, b) => b.bytes * b.count - a.bytes * a.count);
	const footprint = pool.reduce((sum, p) => sum + p.bytes * p.count, 0);
	console.log(`buffers of 64 KiB or more made (last run; the pool reuses them): ${(footprint / 2 ** 20).toFixed(1)} MiB`);
	for (const p of pool) console.log(`  ${p.count} x ${(p.bytes / 2 ** 20).toFixed(2)} MiB  ${p.caller}`);
	line("CPU: main thread", pick((r) => r.cpu.main), "s");
	line("CPU: other threads, all", pick((r) => r.cpu.otherThreads), "s");
	line("CPU: the busiest other thread", pick((r) => r.cpu.busiestOther), "s");
}

main();
