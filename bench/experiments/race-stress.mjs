// node bench/experiments/race-stress.mjs [--minutes M] [--seed S] [--work DIR] [--big] [--only store,...] [--kinds kind,...] [--verbose]
//
// A stress run for memory races in the decode paths (a use after release, two writers of one place): not a test
// (tests never time anything, and a race lost one run in a hundred is no test). It runs exports many times, with
// random options, and compares every output's VALUES with a reference made once per export: the same export with
// DT64_DECODE_THREADS=0 and --no-range-search (everything on the calling thread, every row read and filtered), or,
// for whole exports, the same with DT64_DECODE_THREADS=0. Outputs are compared by their decoded columns (each column's
// values, nulls as null), never by bytes: batches may differ.
//
// Each run picks: a store (small ones generated here into --work: 1-D sharded, index at the end and at the start,
// zstd, blosc and gzip, missing inner chunks, NaT, inner chunks of 70,000 values, a group of a sharded time coordinate
// and a 2-D data variable, and one of 1-D columns (a sharded time coordinate and companion, no index); with
// --big, also the bench's codec stores in .bench-cache/codecs-v1-20000000/ of /work/main, 20M values each, v3 sharded
// zstd among them), DT64_DECODE_THREADS 0, 1 or 4, arrow or parquet, the CLI or the library (exportToFile in a child
// process), and a selection: the whole array, a random --start/--end (from the first or the last inner chunk, within
// one inner chunk, start or end only), a --part K/N, and for the group --columns all --index [--order chunk].
// --only keeps the stores named, --kinds the selections named (whole, range, head, tail, within-one, part, index,
// index-chunk, index-range). Prints a line per failure (its command, what differs; its output and the reference are
// kept under --work/out) and, at the end, runs and failures per store, selection and caller.
// Exit 1 when any run failed or differed.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { tableFromIPC } from "apache-arrow";
import { readParquet } from "parquet-wasm/node";
import { NAT, writeArray, writeGroup } from "../../scripts/lib/zarr-writer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin", "dt64-export.js");
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
	const at = argv.indexOf(name);
	return at < 0 ? fallback : argv[at + 1];
};
const minutes = Number(flag("--minutes", "10"));
let seed = Number(flag("--seed", String(Date.now() % 1_000_000)));
const work = flag("--work", "/dev/shm/race-stress");
const big = argv.includes("--big");
const verbose = argv.includes("--verbose");
const only = flag("--only", undefined)?.split(",");
const kindsAsked = flag("--kinds", undefined)?.split(",");
const BENCH = "/work/main/.bench-cache/codecs-v1-20000000";

/** A small deterministic generator (mulberry32), so a seed replays the same runs. */
function random() {
	seed = (seed + 0x6d2b79f5) | 0;
	let t = seed;
	t = Math.imul(t ^ (t >>> 15), t | 1);
	t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
	return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];

const LE = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 0, checksum: false } };
const GZIP = { name: "gzip", configuration: { level: 1 } };
const BLOSC = { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } };
const sharding = (inner, codecs, location) => ({
	name: "sharding_indexed",
	configuration: { chunk_shape: inner, codecs, index_codecs: [LE, { name: "crc32c" }], index_location: location },
});
const NS_2000 = 946_684_800_000_000_000n;

/** Sorted ns times from 2000 on, a step of 1 ms plus jitter, ~0.5% NaT; `blank` inner chunks left as fill (NaT). */
function sortedTimes(length, inner, blank = () => false) {
	const values = new BigInt64Array(length);
	for (let i = 0; i < length; i++) {
		if (blank(Math.floor(i / inner))) values[i] = NAT;
		else if ((i * 7919) % 211 === 3) values[i] = NAT;
		else values[i] = NS_2000 + BigInt(i) * 1_000_000n + BigInt((i * 37) % 1000);
	}
	return values;
}

/** The stores: { name, path, args (the store and its array/columns), times (sorted, for ranges), inner, shardRows, table }. */
async function stores() {
	fs.mkdirSync(work, { recursive: true });
	fs.rmSync(path.join(work, "out"), { recursive: true, force: true });
	const list = [];
	const make = async (name, build) => {
		const dir = path.join(work, `${name}.zarr`);
		if (!fs.existsSync(path.join(dir, ".done"))) {
			fs.rmSync(dir, { recursive: true, force: true });
			await build(dir);
			fs.writeFileSync(path.join(dir, ".done"), "");
		}
		return dir;
	};
	const ns = { name: "numpy.datetime64", configuration: { unit: "ns", scale_factor: 1 } };
	{
		const values = sortedTimes(400_000, 4_000);
		const dir = await make("sharded-end-zstd", (d) => writeArray(d, "", { shape: [400_000], chunks: [40_000], values, dataType: ns, codecs: [sharding([4_000], [LE, ZSTD], "end")] }));
		list.push({ name: "sharded-end-zstd", args: [dir], times: values, inner: 4_000, shardRows: 40_000 });
	}
	{
		const blank = (k) => k % 7 === 3;
		const values = sortedTimes(395_000, 5_000, blank);
		const dir = await make("sharded-start-gzip", (d) => writeArray(d, "", { shape: [395_000], chunks: [50_000], values, dataType: ns, codecs: [sharding([5_000], [LE, GZIP], "start")] }));
		list.push({ name: "sharded-start-gzip", args: [dir], times: values, inner: 5_000, shardRows: 50_000 });
	}
	{
		const blank = (k) => k === 11;
		const values = sortedTimes(331_000, 3_000, blank);
		const dir = await make("sharded-end-blosc", (d) => writeArray(d, "", { shape: [331_000], chunks: [30_000], values, dataType: ns, codecs: [sharding([3_000], [LE, BLOSC], "end")] }));
		list.push({ name: "sharded-end-blosc", args: [dir], times: values, inner: 3_000, shardRows: 30_000 });
	}
	{
		const values = sortedTimes(300_000, 10_000);
		const dir = await make("chunked-zstd", (d) => writeArray(d, "", { shape: [300_000], chunks: [10_000], values, dataType: ns, codecs: [LE, ZSTD] }));
		list.push({ name: "chunked-zstd", args: [dir], times: values, inner: 10_000, shardRows: 10_000 });
	}
	{
		// A group: time (sharded, 1-D) and v (time, y), v's values unique per position.
		const rows = 120_000;
		const ys = 3;
		const times = sortedTimes(rows, 3_000);
		const v = new BigInt64Array(rows * ys);
		for (let i = 0; i < v.length; i++) v[i] = i % 97 === 5 ? NAT : NS_2000 + BigInt(i) * 7n;
		const dir = await make("table", async (d) => {
			await writeGroup(d, "");
			await writeArray(d, "time", { shape: [rows], chunks: [30_000], values: times, dataType: ns, dimensionNames: ["time"], codecs: [sharding([3_000], [LE, ZSTD], "end")] });
			await writeArray(d, "v", { shape: [rows, ys], chunks: [30_000, ys], values: v, dataType: ns, dimensionNames: ["time", "y"], codecs: [sharding([3_000, ys], [LE, ZSTD], "end")] });
		});
		list.push({ name: "table", args: [dir, "--columns", "all"], times, inner: 3_000, shardRows: 30_000, table: true });
	}
	{
		// Inner chunks of more rows than a batch gathers: each run of them handed on as a batch of its own, whose rows in
		// a range the time filter moves in place (the bands the shard reader marks its own).
		const values = sortedTimes(700_000, 70_000);
		const dir = await make("sharded-big-inner", (d) => writeArray(d, "", { shape: [700_000], chunks: [140_000], values, dataType: ns, codecs: [sharding([70_000], [LE, ZSTD], "end")] }));
		list.push({ name: "sharded-big-inner", args: [dir], times: values, inner: 70_000, shardRows: 140_000 });
	}
	{
		// A table of 1-D columns without index columns: a sharded time coordinate and a sharded companion with NaT, the
		// time filter moving a range's rows in place in both.
		const rows = 150_000;
		const times = sortedTimes(rows, 5_000);
		const v = new BigInt64Array(rows);
		for (let i = 0; i < rows; i++) v[i] = i % 89 === 4 ? NAT : NS_2000 - BigInt(i) * 13n;
		const dir = await make("table-1d", async (d) => {
			await writeGroup(d, "");
			await writeArray(d, "time", { shape: [rows], chunks: [50_000], values: times, dataType: ns, dimensionNames: ["time"], codecs: [sharding([5_000], [LE, ZSTD], "end")] });
			await writeArray(d, "v", { shape: [rows], chunks: [30_000], values: v, dataType: ns, dimensionNames: ["time"], codecs: [sharding([5_000], [LE, BLOSC], "start")] });
		});
		list.push({ name: "table-1d", args: [dir, "--columns", "time,v"], times, inner: 5_000, shardRows: 50_000, columns: ["time", "v"] });
	}
	if (big) {
		for (const name of ["v3-sharded-zstd", "v3-zstd", "v2-blosc-lz4", "v3-gzip"]) {
			const dir = path.join(BENCH, `${name}.zarr`);
			if (!fs.existsSync(dir)) continue;
			// The bench's values: sorted, from 1970 to 2100-ish; ranges are picked from a reference export's times.
			list.push({ name, args: [dir], times: undefined, inner: name === "v3-sharded-zstd" ? 100_000 : 1_000_000, shardRows: 1_000_000, bench: true });
		}
		const dir = path.join(BENCH, "v3-3d-zstd.zarr");
		if (fs.existsSync(dir)) list.push({ name: "v3-3d-zstd", args: [dir], times: undefined, nd: true });
	}
	return list;
}

/** The ISO text of a ns count (UTC, ns digits). */
function iso(count) {
	const ms = count / 1_000_000n;
	const sub = count % 1_000_000_000n;
	const text = new Date(Number(ms)).toISOString().slice(0, 19);
	return `${text}.${String(sub < 0n ? sub + 1_000_000_000n : sub).padStart(9, "0")}`;
}

/** A random non-NaT time of `times` near row `row`. */
function timeNear(times, row) {
	for (let r = Math.max(0, Math.min(times.length - 1, row)); r < times.length; r++) if (times[r] !== NAT) return times[r];
	for (let r = times.length - 1; r >= 0; r--) if (times[r] !== NAT) return times[r];
	return NS_2000;
}

/** Random selection options for a store. */
function selection(store) {
	// A table's time is its coordinate: a range needs --index (without it the columns are the data variable's).
	const kinds = store.table ? ["whole", "part", "index", "index-chunk", "index-range", "index-range"] : ["whole", "range", "range", "head", "tail", "within-one", "part"];
	if (store.nd) {
		const nd = [["whole", []], ["index", ["--index"]], ["index-chunk", ["--index", "--order", "chunk"]]].filter(([kind]) => kindsAsked === undefined || kindsAsked.includes(kind));
		return nd.length === 0 ? undefined : pick(nd);
	}
	const allowed = kinds.filter((kind) => kindsAsked === undefined || kindsAsked.includes(kind));
	if (allowed.length === 0) return undefined;
	const kind = pick(allowed);
	const times = store.times;
	const n = times.length;
	const at = (row) => iso(timeNear(times, row));
	const row = () => Math.floor(random() * n);
	switch (kind) {
		case "whole":
			return [kind, []];
		case "range": {
			const a = row();
			const b = row();
			return [kind, ["--start", at(Math.min(a, b)), "--end", at(Math.max(a, b))]];
		}
		case "head":
			// From the first row (the first inner chunk, the search's first probe) to a random row.
			return [kind, ["--end", at(Math.floor(random() * Math.min(n, store.inner * 3)))]];
		case "tail":
			return [kind, ["--start", at(n - 1 - Math.floor(random() * Math.min(n, store.inner * 3)))]];
		case "within-one": {
			const k = Math.floor(random() * Math.floor(n / store.inner));
			const a = k * store.inner + Math.floor(random() * store.inner * 0.5);
			return [kind, ["--start", at(a), "--end", at(a + Math.floor(random() * store.inner * 0.4))]];
		}
		case "part": {
			const count = pick([2, 3, 5, 7]);
			return [kind, ["--part", `${1 + Math.floor(random() * count)}/${count}`]];
		}
		case "index":
			return [kind, ["--index"]];
		case "index-chunk":
			return [kind, ["--index", "--order", "chunk"]];
		case "index-range": {
			const a = row();
			const b = row();
			return [kind, ["--index", "--start", at(Math.min(a, b)), "--end", at(Math.max(a, b))]];
		}
	}
	throw new Error(kind);
}

/** Runs a command, resolving { status, stderr }. */
function run(command, args, env) {
	return new Promise((resolve) => {
		const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
		let stderr = "";
		child.stderr.on("data", (chunk) => (stderr += chunk));
		child.on("close", (status) => resolve({ status, stderr }));
	});
}

/** The library's exportToFile in a child process (its own decode threads, as DT64_DECODE_THREADS says). */
const LIBRARY = `
import { exportToFile, exportDataset } from ${JSON.stringify(path.join(root, "dist", "index.js"))};
const [store, out, json] = process.argv.slice(1);
const options = JSON.parse(json);
try {
	await exportToFile(store, out, options);
} catch (error) {
	// As the CLI says it, with its code: a refusal compares with the reference's by that code (the library names options its way).
	const newline = String.fromCharCode(10);
	process.stderr.write("dt64-export: " + error.message.split(newline)[0] + " [" + (error.code ?? "no code") + "]" + newline);
	process.exit(1);
}
`;

/** CLI options as library options (the few this script uses). */
function libraryOptions(args) {
	const options = {};
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (a === "--start") options.start = args[++i];
		else if (a === "--end") options.end = args[++i];
		else if (a === "--to") options.format = args[++i];
		else if (a === "--columns") options.columns = args[++i] === "all" ? "all" : args[i].split(",");
		else if (a === "--index") options.index = true;
		else if (a === "--order") options.order = args[++i];
		else if (a === "--time-column") options.timeColumn = args[++i];
		else if (a === "--no-range-search") options.rangeSearch = false;
		else if (a === "-q" || a === "--force") continue;
		else return undefined;
	}
	return options;
}

/** The values of an output (a file, or a dataset folder's files in name order): one hash per column. */
function valuesOf(out, format) {
	const files = fs.statSync(out).isDirectory() ? listFiles(out).filter((f) => /\.(arrow|parquet)$/.test(f)) : [out];
	const columns = new Map();
	let rows = 0;
	for (const file of files) {
		const bytes = fs.readFileSync(file);
		const table = tableFromIPC(format === "parquet" ? readParquet(bytes).intoIPCStream() : bytes);
		rows += table.numRows;
		for (const batch of table.batches) {
			batch.schema.fields.forEach((field, c) => {
				const hashes = columns.get(field.name) ?? [createHash("sha256"), createHash("sha256")];
				columns.set(field.name, hashes);
				for (const data of batch.getChildAt(c).data) {
					const [values, valid] = canonical(data);
					hashes[0].update(values);
					hashes[1].update(valid);
				}
			});
		}
	}
	return { rows, columns: new Map([...columns].map(([name, [values, valid]]) => [name, values.digest("hex") + valid.digest("hex")])) };
}

function listFiles(dir) {
	return fs
		.readdirSync(dir, { recursive: true })
		.map((f) => path.join(dir, String(f)))
		.filter((f) => fs.statSync(f).isFile())
		.sort();
}

/** A column's values in bytes, a null as 0, and its validity a byte a row: the same for the same values whatever the batches. */
function canonical(data) {
	const values = data.values;
	if (!ArrayBuffer.isView(values)) throw new Error(`race-stress: a column of ${data.type} is not compared`);
	const per = data.stride ?? 1;
	const copy = new Uint8Array(values.slice(0, data.length * per).buffer);
	const bytes = copy.byteLength / data.length;
	const valid = new Uint8Array(data.length);
	for (let i = 0; i < data.length; i++) {
		if (data.getValid(i)) valid[i] = 1;
		else copy.fill(0, i * bytes, (i + 1) * bytes);
	}
	return [copy, valid];
}

const references = new Map();
let counter = 0;
const tally = new Map();
const failures = [];

async function once(store) {
	const chosen = selection(store);
	if (chosen === undefined) return false;
	const [kind, chosenOptions] = chosen;
	// A table's range is of its time coordinate (its data variable is datetime64 too).
	const select = (store.table || store.columns !== undefined) && chosenOptions.some((a) => a === "--start" || a === "--end") ? [...chosenOptions, "--time-column", "time"] : chosenOptions;
	const format = pick(["arrow", "parquet"]);
	const threads = pick(["0", "1", "4"]);
	const dataset = select.includes("--part");
	const library = !dataset && random() < 0.3;
	const ext = dataset ? format : format;
	const args = [...store.args, ...select, "--to", format, "-q"];
	const key = JSON.stringify(args);
	const outOf = (tag) => path.join(work, "out", `${counter++}-${tag}${dataset ? "" : `.${ext}`}`);
	fs.mkdirSync(path.join(work, "out"), { recursive: true });
	if (!references.has(key)) {
		const out = outOf("reference");
		const refArgs = select.some((a) => a === "--start" || a === "--end") ? [...args, "--no-range-search"] : args;
		const result = await run(process.execPath, [bin, ...refArgs, "-o", out], { DT64_DECODE_THREADS: "0" });
		if (result.status !== 0) {
			references.set(key, { error: result.stderr.trim() });
		} else {
			references.set(key, { ...valuesOf(out, format), file: out });
		}
	}
	const reference = references.get(key);
	const out = outOf(library ? "library" : "cli");
	let result;
	if (library) {
		const options = libraryOptions(select.concat(["--to", format])) ?? {};
		result = await run(process.execPath, ["--input-type=module", "-e", LIBRARY, store.args[0], out, JSON.stringify({ ...options, ...(store.table ? { columns: "all" } : {}), ...(store.columns !== undefined ? { columns: store.columns } : {}) })], { DT64_DECODE_THREADS: threads });
	} else {
		result = await run(process.execPath, [bin, ...args, "-o", out], { DT64_DECODE_THREADS: threads });
	}
	const label = `${store.name} ${kind} ${format} threads=${threads} ${library ? "library" : "cli"}`;
	const tag = `${store.name}/${kind}/${library ? "library" : "cli"}`;
	const count = tally.get(tag) ?? { runs: 0, failed: 0 };
	tally.set(tag, count);
	count.runs++;
	const command = `DT64_DECODE_THREADS=${threads} ${library ? "(library) " : ""}dt64-export ${args.join(" ")}`;
	let problem;
	if (reference.error !== undefined) {
		if (result.status === 0) problem = `succeeded where the reference failed: ${reference.error}`;
		else if (library ? codeOf(result.stderr) !== codeOf(reference.error) : firstLine(result.stderr) !== firstLine(reference.error)) problem = `failed otherwise than the reference: ${firstLine(result.stderr)} / ${firstLine(reference.error)}`;
	} else if (result.status !== 0) {
		problem = `failed: ${result.stderr.trim()}`;
	} else {
		const got = valuesOf(out, format);
		if (got.rows !== reference.rows) problem = `${got.rows} rows, reference ${reference.rows}`;
		else {
			for (const [name, hash] of reference.columns) if (got.columns.get(name) !== hash) problem = `column ${name} differs (${got.rows} rows)`;
		}
	}
	if (problem === undefined) fs.rmSync(out, { recursive: true, force: true });
	else problem += ` (kept: ${out}, reference ${reference.file})`;
	if (problem !== undefined) {
		count.failed++;
		failures.push(`${command}: ${problem}`);
		console.log(`FAIL ${label}: ${command}: ${problem}`);
	} else if (verbose) console.log(`ok ${label}`);
	return true;
}

function firstLine(text) {
	return text.trim().split("\n")[0];
}

/** The error code a one-line message ends with (`... [USAGE]`), or the whole first line. */
function codeOf(text) {
	const line = firstLine(text);
	return /\[([A-Z_]+)\]$/.exec(line)?.[1] ?? line;
}

const list = (await stores()).filter((store) => only === undefined || only.includes(store.name));
if (list.length === 0) throw new Error("race-stress: no store left (--only)");
// The bench stores' sorted times for ranges: read once (threads 0) from a whole export.
for (const store of list.filter((s) => s.bench)) {
	const out = path.join(work, `${store.name}-times.arrow`);
	if (!fs.existsSync(out)) {
		const result = await run(process.execPath, [bin, ...store.args, "-o", out, "-q"], { DT64_DECODE_THREADS: "0" });
		if (result.status !== 0) throw new Error(`${store.name}: ${result.stderr}`);
	}
	const table = tableFromIPC(fs.readFileSync(out));
	const times = new BigInt64Array(table.numRows);
	let at = 0;
	for (const batch of table.batches) {
		const data = batch.getChildAt(0).data[0];
		for (let i = 0; i < data.length; i++) times[at++] = data.getValid(i) ? data.values[i] : NAT;
	}
	store.times = times;
}
console.log(`race-stress: seed ${seed}, ${minutes} min, stores ${list.map((s) => s.name).join(", ")}`);
const until = Date.now() + minutes * 60_000;
let runs = 0;
while (Date.now() < until) {
	if (await once(pick(list))) runs++;
}
console.log(`race-stress: ${runs} runs, ${failures.length} failed`);
for (const [tag, { runs: n, failed }] of [...tally].sort()) console.log(`  ${tag}: ${n} runs${failed ? `, ${failed} FAILED` : ""}`);
process.exit(failures.length > 0 ? 1 : 0);
