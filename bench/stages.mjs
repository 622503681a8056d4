// node bench/stages.mjs [store name, default s-gzip] [--runs N] [--target DIR: the dist/ of another checkout]
//
// Where the time of one export goes, stage by stage, in process (each measurement in a fresh process): the chunk
// reader alone (read + decode), then + the timestamp batcher (conversion, RecordBatch), then + the IPC writer
// into a sink that drops the bytes, then the whole export into a file (AtomicFileWriter: write, fsync, rename).
// The difference between two rows is the cost of the stage added. Stores come from .bench-cache/ (npm run bench).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const STAGES = ["read+decode", "+convert", "+ipc", "+file"];

async function measureStage(stage, storeDir, target) {
	const lib = await import(pathToFileURL(path.join(target, "dist", "index.js")).href);
	const { AtomicFileWriter } = await import(pathToFileURL(path.join(target, "dist", "output", "atomic-file.js")).href);
	const cpu0 = process.cpuUsage();
	const t0 = performance.now();
	const array = await lib.openTimeArray(storeDir);
	const { reader, batcher, writer } = lib.createTableExportStages(lib.tableOfTimeArray(array), { format: "arrow" });
	const sink = () =>
		new Writable({
			objectMode: true,
			write(_chunk, _encoding, callback) {
				callback();
			},
		});
	const out = path.join(os.tmpdir(), `dt64-stages-${process.pid}.arrow`);
	if (stage === "read+decode") await pipeline(reader, sink());
	else if (stage === "+convert") await pipeline(reader, batcher, sink());
	else if (stage === "+ipc") await pipeline(reader, batcher, writer, sink());
	else await pipeline(reader, batcher, writer, new AtomicFileWriter(out, { overwrite: true }));
	const seconds = (performance.now() - t0) / 1000;
	const cpu = process.cpuUsage(cpu0);
	fs.rmSync(out, { force: true });
	return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, rssMiB: process.resourceUsage().maxRSS / 1024 };
}

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
	const argv = process.argv.slice(2);
	if (argv[0] === "--child") {
		process.stdout.write(JSON.stringify(await measureStage(argv[1], argv[2], argv[3])));
		return;
	}
	let store = "s-gzip";
	let runs = 3;
	let target = root;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--runs") runs = Number(argv[++i]);
		else if (argv[i] === "--target") target = path.resolve(argv[++i]);
		else store = argv[i];
	}
	const storeDir = store.includes("/") ? path.resolve(store) : path.join(root, ".bench-cache", `${store}.zarr`);
	if (!fs.existsSync(storeDir)) throw new Error(`${storeDir} does not exist: run npm run bench first`);
	console.log(`stages of one export of ${storeDir}${target === root ? "" : ` by ${target}`} (in process, after module loading; median of ${runs}; load average ${os.loadavg()[0].toFixed(2)})`);
	console.log(`${"stage".padEnd(12)} ${"wall s".padStart(7)} ${"cpu s".padStart(7)} ${"RSS MiB".padStart(8)}`);
	for (const stage of STAGES) {
		const results = [];
		for (let r = 0; r < runs; r++) {
			const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", stage, storeDir, target], { encoding: "utf8" });
			if (child.status !== 0) throw new Error(child.stderr);
			results.push(JSON.parse(child.stdout));
		}
		const pick = (k) => median(results.map((x) => x[k]));
		console.log(`${stage.padEnd(12)} ${pick("seconds").toFixed(3).padStart(7)} ${pick("cpuSeconds").toFixed(2).padStart(7)} ${pick("rssMiB").toFixed(0).padStart(8)}`);
	}
}

main().catch((error) => {
	console.error(`stages: ${error.stack ?? error}`);
	process.exit(1);
});
