// node bench/first-chunks.mjs [--store v3-zstd] [--runs 9] [--target DIR]...
//
// The first chunks of a CLI export on its decode thread, this checkout's build against others' (`--target`, e.g.
// /work/main), alternated run by run: each export of a codec store of `.bench-cache/codecs-v1-20000000/` (as the
// bench runs it: without NODE_EXTRA_CA_CERTS, output to os.tmpdir()) with bench/lib/chunk-timeline.cjs preloaded,
// which records when each chunk was sent to the thread and answered. Prints, median of the runs: the wall time
// (spawn to exit), when the first chunk was sent and answered (ms since the process started), the first, second and
// third chunks' time on the thread (sent to answered: the decode, and any wait behind the one before), and the mean
// of the chunks after the tenth. Run with `TMPDIR=/dev/shm`; note the load average it prints.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./lib/median.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function parseArgs(argv) {
	const args = { store: "v3-zstd", runs: 9, targets: [root] };
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--store") args.store = argv[++i];
		else if (argv[i] === "--runs") args.runs = Number(argv[++i]);
		else if (argv[i] === "--target") args.targets.push(path.resolve(argv[++i]));
		else throw new Error(`unknown argument ${argv[i]}`);
	}
	return args;
}

function runOnce(target, store, scratch) {
	const timeline = path.join(scratch, "timeline.json");
	const output = path.join(scratch, "out.arrow");
	fs.rmSync(output, { force: true });
	const env = { ...process.env, DT64_CHUNK_TIMELINE: timeline };
	delete env.NODE_EXTRA_CA_CERTS;
	const started = process.hrtime.bigint();
	const run = spawnSync(process.execPath, ["--require", path.join(root, "bench", "lib", "chunk-timeline.cjs"), path.join(target, "bin", "dt64-export.js"), store, "-o", output, "-q"], { env, encoding: "utf8" });
	const wall = Number(process.hrtime.bigint() - started) / 1e6;
	if (run.status !== 0) throw new Error(`export failed (${run.status}): ${run.stderr}`);
	const { chunks } = JSON.parse(fs.readFileSync(timeline, "utf8"));
	const onThread = chunks.map((chunk) => chunk.back - chunk.sent);
	const later = onThread.slice(10);
	return { wall, firstSent: chunks[0].sent, firstBack: chunks[0].back, first: onThread[0], second: onThread[1], third: onThread[2], later: later.reduce((a, b) => a + b, 0) / Math.max(1, later.length) };
}

const args = parseArgs(process.argv.slice(2));
const store = path.join(root, ".bench-cache", "codecs-v1-20000000", `${args.store}.zarr`);
if (!fs.existsSync(store)) throw new Error(`${store}: no such store (npm run bench writes it)`);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-first-chunks-"));
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
console.log(`${args.store}: ${args.runs} runs of each of ${args.targets.length} builds, alternated; load average ${load()}`);
const results = args.targets.map(() => []);
try {
	for (let run = 0; run < args.runs; run++) args.targets.forEach((target, k) => results[k].push(runOnce(target, store, scratch)));
} finally {
	fs.rmSync(scratch, { recursive: true, force: true });
}
const fields = ["wall", "firstSent", "firstBack", "first", "second", "third", "later"];
console.log(`${"build".padEnd(40)} ${fields.map((f) => f.padStart(9)).join(" ")}  (ms, medians)`);
args.targets.forEach((target, k) => console.log(`${path.basename(target).padEnd(40)} ${fields.map((f) => median(results[k].map((r) => r[f])).toFixed(1).padStart(9)).join(" ")}`));
console.log(`load average at the end ${load()}`);
