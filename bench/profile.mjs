// node bench/profile.mjs [store name or codec case, default s-gzip] [--top N] [--cpuprofile file] [--target DIR]
//                        [-- extra CLI args]
//
// Runs one export under `node --cpu-prof` on a store of .bench-cache/ (run `npm run bench` first to build them)
// and prints the functions with the most self time and the time per package. A codec case of bench/codec-bench.mjs
// (`v3-zstd`, `3d-zstd-C`...) is its 20M-value store of .bench-cache/codecs-v1-20000000/ exported with the case's
// arguments, as bench/peak-breakdown.mjs runs it (the store written on first use, as `npm run bench` writes it). The
// profile samples the main thread only: inflate on libuv's thread pool, the decode threads and the kernel's file I/O
// show up as "(idle)" there.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { CODEC_CASES, codecPythonVersions, ensureCodecStore } from "./codec-bench.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** The codec cases' stores, as bench/peak-breakdown.mjs reads them. */
const CODEC_LENGTH = 20_000_000;

function parseArgs(argv) {
	const args = { store: "s-gzip", top: 20, cpuprofile: null, extra: [], target: root };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--") {
			args.extra = argv.slice(i + 1);
			break;
		} else if (a === "--top") args.top = Number(argv[++i]);
		else if (a === "--cpuprofile") args.cpuprofile = argv[++i];
		else if (a === "--target") args.target = path.resolve(argv[++i]);
		else if (a.startsWith("-")) throw new Error(`unknown argument ${a}`);
		else args.store = a;
	}
	return args;
}

/**
 * The store to export and the case's own export arguments: a path; a codec case's store (written on first use); or
 * a store of .bench-cache/'s root by name (`s-gzip`).
 */
function storeOf(store) {
	if (path.isAbsolute(store) || store.includes("/")) return { storeDir: store, caseArgs: [] };
	const codecCase = CODEC_CASES.find((c) => c.name === store);
	if (codecCase !== undefined) {
		const cache = path.join(root, ".bench-cache");
		const written = fs.existsSync(path.join(cache, `codecs-v1-${CODEC_LENGTH}`, `${codecCase.store}.zarr`, ".done"));
		if (!written && codecPythonVersions() === null) throw new Error("Debian's /usr/bin/python3 with numcodecs and zarr is needed to write the store");
		return { storeDir: ensureCodecStore(cache, root, codecCase.store, CODEC_LENGTH, (line) => console.log(line)), caseArgs: codecCase.exportArgs ?? [] };
	}
	const storeDir = path.join(root, ".bench-cache", `${store}.zarr`);
	if (!fs.existsSync(storeDir)) throw new Error(`${storeDir} does not exist: run npm run bench first (or name a codec case: ${CODEC_CASES.map((c) => c.name).join(", ")})`);
	return { storeDir, caseArgs: [] };
}

function record(store, extra, target) {
	const { storeDir, caseArgs } = storeOf(store);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-prof-"));
	const out = path.join(dir, "out.arrow");
	const started = process.hrtime.bigint();
	const run = spawnSync(process.execPath, ["--cpu-prof", "--cpu-prof-dir", dir, path.join(target, "bin", "dt64-export.js"), storeDir, ...caseArgs, "--to", "arrow", "-o", out, "-q", "--force", ...extra], { encoding: "utf8" });
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	if (run.status !== 0) throw new Error(`export failed: ${run.stderr}`);
	const file = fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
	const kept = path.join(os.tmpdir(), `dt64-export-${path.basename(store, ".zarr")}.cpuprofile`);
	fs.copyFileSync(path.join(dir, file), kept);
	fs.rmSync(dir, { recursive: true, force: true });
	console.log(`profiled: ${path.join(target, "bin", "dt64-export.js")} ${storeDir}${caseArgs.map((a) => ` ${a}`).join("")} in ${seconds.toFixed(3)} s wall (with profiler); profile kept at ${kept}`);
	return kept;
}

/** A package or area for a script URL: the node_modules package, dist/<folder>, or node's internals. */
function area(url) {
	if (!url) return "(native / VM)";
	const modules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
	if (modules) return modules[1];
	const dist = url.match(/\/dist\/(.+)$/);
	if (dist) return `dist/${dist[1].includes("/") ? dist[1].split("/")[0] : dist[1]}`;
	if (url.startsWith("node:")) return "node internals";
	return url.replace(/^file:\/\//, "");
}

function summarize(file, top) {
	const profile = JSON.parse(fs.readFileSync(file, "utf8"));
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const self = new Map();
	// timeDeltas[i] is the time before sample i; attribute it to the sample's node.
	for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
	const total = [...self.values()].reduce((a, b) => a + b, 0);
	const byFunction = new Map();
	const byArea = new Map();
	for (const [id, micros] of self) {
		const { callFrame } = byId.get(id);
		const name = callFrame.functionName || "(anonymous)";
		const where = callFrame.url ? `${area(callFrame.url)} ${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : "";
		const key = `${name}\t${where}`;
		byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
		const a = name.startsWith("(") && !callFrame.url ? name : area(callFrame.url);
		byArea.set(a, (byArea.get(a) ?? 0) + micros);
	}
	const pct = (m) => `${((100 * m) / total).toFixed(1).padStart(5)}%`;
	const ms = (m) => `${(m / 1000).toFixed(0).padStart(6)} ms`;
	console.log(`\nsampled main-thread time: ${(total / 1e6).toFixed(3)} s`);
	console.log(`\ntop ${top} functions by self time:`);
	for (const [key, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) {
		const [name, where] = key.split("\t");
		console.log(`${ms(micros)} ${pct(micros)}  ${name}  ${where}`);
	}
	console.log("\nself time by package / area:");
	for (const [a, micros] of [...byArea].sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`${ms(micros)} ${pct(micros)}  ${a}`);
}

const args = parseArgs(process.argv.slice(2));
summarize(args.cpuprofile ?? record(args.store, args.extra, args.target), args.top);
