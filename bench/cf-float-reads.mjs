#!/usr/bin/env node
/**
 * What `--unit auto` costs on float CF time counts, which are read once to choose the unit and then exported: a 1-D
 * float64 array of `--values` counts of `hours since 2000-01-01` (quarter hours) in chunks of `--chunk` values,
 * blosc(lz4, shuffle) as zarr-python writes by default (`--codec none`: uncompressed, 8 bytes a count), exported to Arrow IPC with `exportToFile` from the folder and
 * over HTTP (a local server, `--latency` ms per answer), in a child process per case (after one run to load the
 * modules), for this checkout's dist/ and, with `--target <checkout>`, another one's (built). Prints the median wall
 * time, the bytes the child read from files (Linux's rchar, the store's chunks and the modules' files alike: compare
 * the cases with each other), the server's requests and bytes sent per run, and the child's peak RSS.
 *
 *     npm run build && node bench/cf-float-reads.mjs [--values 20000000] [--chunk 1000000] [--latency 5] [--runs 3] [--codec blosc|none] [--target ../other]
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createServer } from "node:http";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeArray } from "../scripts/lib/zarr-writer.mjs";
import { median } from "./lib/median.mjs";

const { values } = parseArgs({
	options: {
		values: { type: "string", default: "20000000" },
		chunk: { type: "string", default: "1000000" },
		latency: { type: "string", default: "5" },
		runs: { type: "string", default: "3" },
		codec: { type: "string", default: "blosc" },
		target: { type: "string", multiple: true, default: [] },
	},
});
const COUNT = Number(values.values);
const CHUNK = Number(values.chunk);
const LATENCY = Number(values.latency);
const RUNS = Number(values.runs);
const HERE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dt64-cf-float-reads-"));
const served = path.join(root, "served");
const folder = path.join(served, "hours.zarr");

/** Serves `served` after LATENCY ms per answer; counts requests and the bytes of the answers. */
function startServer() {
	let requests = 0;
	let bytes = 0;
	const server = createServer((request, response) => {
		requests++;
		setTimeout(() => {
			const file = path.join(served, ...decodeURIComponent(new URL(request.url, "http://localhost").pathname).split("/"));
			if (!file.startsWith(served + path.sep) || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return response.writeHead(404).end();
			const body = fs.readFileSync(file);
			bytes += body.length;
			return response.writeHead(200, { "Content-Length": body.length }).end(body);
		}, LATENCY);
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${server.address().port}`, counts: () => ({ requests, bytes }) })));
}

/** The child: one untimed run, then RUNS timed ones, each with the bytes the process read (rchar) meanwhile. */
const CHILD = `
const [dist, runs, store, out] = process.argv.slice(1);
const fs = await import("node:fs");
const api = await import(dist);
const rchar = () => Number(/rchar: (\\d+)/.exec(fs.readFileSync("/proc/self/io", "utf8"))[1]);
const run = () => api.exportToFile(store, out, { overwrite: true });
await run();
const times = [];
const reads = [];
for (let i = 0; i < Number(runs); i++) {
	const before = rchar();
	const started = performance.now();
	await run();
	times.push(performance.now() - started);
	reads.push(rchar() - before);
}
console.log(JSON.stringify({ times, reads, maxRssKiB: process.resourceUsage().maxRSS }));
`;

function timeInChild(checkout, store) {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD, path.join(checkout, "dist/index.js"), String(RUNS), store, path.join(root, "out.arrow")], { stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (data) => (stdout += data));
		child.stderr.on("data", (data) => (stderr += data));
		child.on("close", (status) => (status === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`${checkout} ${store}: exit ${status}: ${stderr}`))));
	});
}

const counts = Float64Array.from({ length: COUNT }, (_, i) => i / 4);
await writeArray(folder, "", {
	shape: [COUNT],
	chunks: [CHUNK],
	dataType: "float64",
	fillValue: "NaN",
	values: counts,
	attributes: { units: "hours since 2000-01-01", calendar: "proleptic_gregorian" },
	codecs: [
		{ name: "bytes", configuration: { endian: "little" } },
		...(values.codec === "none" ? [] : [{ name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }]),
	],
});
const stored = fs.readdirSync(path.join(folder, "c"), { recursive: true }).reduce((sum, name) => sum + (fs.statSync(path.join(folder, "c", String(name))).isFile() ? fs.statSync(path.join(folder, "c", String(name))).size : 0), 0);
const server = await startServer();
const checkouts = [HERE, ...values.target.map((target) => path.resolve(target))];
const mb = (bytes) => `${(bytes / 1e6).toFixed(1).padStart(7)} MB`;
console.log(`${COUNT} float64 counts in chunks of ${CHUNK} (${values.codec}), ${mb(stored).trim()} of chunks stored; HTTP ${LATENCY} ms per answer; median of ${RUNS} runs; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
for (const [label, store] of [
	["local", folder],
	["http", `${server.url}/hours.zarr`],
]) {
	for (const checkout of checkouts) {
		const before = server.counts();
		const { times, reads, maxRssKiB } = await timeInChild(checkout, store);
		const after = server.counts();
		const perRun = (n) => Math.round(n / (RUNS + 1));
		const remote = label === "http" ? ` ${String(perRun(after.requests - before.requests)).padStart(5)} req ${mb(perRun(after.bytes - before.bytes))} sent` : "";
		console.log(`${label.padEnd(6)} ${path.basename(checkout).padEnd(14)} ${(median(times) / 1000).toFixed(2).padStart(6)} s ${mb(median(reads))} read${remote} ${(maxRssKiB / 1024).toFixed(0).padStart(5)} MiB peak RSS`);
	}
}
console.log(`load average at the end ${os.loadavg()[0].toFixed(1)}`);
server.server.close();
fs.rmSync(root, { recursive: true, force: true });
