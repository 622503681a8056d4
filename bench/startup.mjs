// node bench/startup.mjs [--runs 15] [--target DIR]... [--only version,help,inspect,export,big] [--big STORE]
//
// Start-up of the CLI: each command run --runs times (timed by python3 os.wait4) in one process per run, the targets (bin/
// and dist/ of checkouts, default this one) alternated run by run so that a busy machine weighs on all alike.
// Prints medians of wall, CPU (user + system) and peak RSS. CPU seconds are the figure to trust on a shared machine.
// Runs without NODE_EXTRA_CA_CERTS (Node parses that bundle at every start, before any of the CLI's code).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./lib/median.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = { runs: 15, targets: [], only: null, big: path.join(root, ".bench-cache", "codecs-v1-20000000", "v2-blosc-lz4.zarr"), bigRuns: 5 };
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i];
	if (a === "--runs") args.runs = Number(process.argv[++i]);
	else if (a === "--big-runs") args.bigRuns = Number(process.argv[++i]);
	else if (a === "--target") args.targets.push(path.resolve(process.argv[++i]));
	else if (a === "--only") args.only = process.argv[++i].split(",");
	else if (a === "--big") args.big = path.resolve(process.argv[++i]);
	else throw new Error(`unknown argument ${a}`);
}
if (args.targets.length === 0) args.targets.push(root);

const out = fs.mkdtempSync(path.join(fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir(), "dt64-startup-"));
const data = path.join(root, "data");
const commands = {
	version: ["--version"],
	help: ["--help"],
	inspect: ["inspect", path.join(data, "observations.zarr")],
	export: [path.join(data, "weather-station.zarr"), "--to", "arrow", "-o", path.join(out, "small.arrow"), "--force", "-q"],
	big: [args.big, "--to", "arrow", "-o", path.join(out, "big.arrow"), "--force", "-q"],
};
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;

// wait4's resource usage in microseconds (GNU time prints hundredths of a second, too coarse for start-up).
const WAIT4 = `
import os, sys, time
t = time.monotonic()
pid = os.spawnv(os.P_NOWAIT, sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
sys.stderr.write("\\n%f %f %f %d %d\\n" % (time.monotonic() - t, ru.ru_utime, ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)))
`;

function run(target, argv) {
	const result = spawnSync("python3", ["-c", WAIT4, process.execPath, path.join(target, "bin", "dt64-export.js"), ...argv], { env, encoding: "utf8" });
	const [wall, user, sys, rss, status] = result.stderr.trim().split("\n").at(-1).split(" ").map(Number);
	if (result.status !== 0 || status !== 0) throw new Error(`${target}: ${argv.join(" ")} failed: ${result.stderr}`);
	return { wall, cpu: user + sys, rss: rss / 1024 };
}

console.log(`node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
for (const [name, argv] of Object.entries(commands)) {
	if (args.only !== null && !args.only.includes(name)) continue;
	if (name === "big" && !fs.existsSync(args.big)) {
		console.log(`big: ${args.big} missing, skipped`);
		continue;
	}
	const runs = name === "big" ? args.bigRuns : args.runs;
	const samples = args.targets.map(() => []);
	for (const target of args.targets) run(target, argv);
	for (let k = 0; k < runs; k++) for (const [t, target] of args.targets.entries()) samples[t].push(run(target, argv));
	for (const [t, target] of args.targets.entries()) {
		const s = samples[t];
		const f = (key) => median(s.map((x) => x[key]));
		console.log(`${name.padEnd(8)} ${path.basename(target).padEnd(20)} wall ${f("wall").toFixed(3)} s  cpu ${f("cpu").toFixed(3)} s  rss ${f("rss").toFixed(0)} MiB  (n=${s.length})`);
	}
}
fs.rmSync(out, { recursive: true, force: true });
console.log(`load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
