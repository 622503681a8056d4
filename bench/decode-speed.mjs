// node bench/decode-speed.mjs [--store v3-zstd] [--runs 7] [--wasm FILE]... [--mode steps|whole|both] [--no-native]
//
// The decoders alone, one thread: every chunk of a codec store of .bench-cache/ (made by `npm run bench`; the
// 20M-value stores, 20 chunks of 8 MB) read into memory, then decoded by this package's WebAssembly decoders
// (dist/'s WasmDecoders, as a decode thread runs them: `steps`, a 512 KiB window at a time, the path of the bench's
// 8 MB chunks; `whole`, the one-shot decoder, zstd in place) and by numcodecs' native decoders (Debian's
// /usr/bin/python3, blosc with one thread), the same bytes into a buffer made once. Each pass decodes every chunk
// once; the first pass is a warm-up (V8 compiles the WebAssembly's optimized code on its first calls). Prints the
// median pass (wall and CPU time), in ms per chunk and MB/s of decoded bytes, and the ratio to native.
//
// `--wasm FILE` (repeatable) decodes with another build of decoders.wasm (say, from scripts/build-wasm-codecs.sh
// with other flags) beside the one in dist/; the builds are alternated pass by pass. `npm run build` first.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function parseArgs(argv) {
	const args = { store: "v3-zstd", runs: 7, wasm: [], mode: "steps", native: true, values: 20000000 };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--store") args.store = argv[++i];
		else if (a === "--runs") args.runs = Number(argv[++i]);
		else if (a === "--wasm") args.wasm.push(path.resolve(argv[++i]));
		else if (a === "--mode") args.mode = argv[++i];
		else if (a === "--no-native") args.native = false;
		else if (a === "--values") args.values = Number(argv[++i]);
		else throw new Error(`unknown argument ${a}`);
	}
	if (!["steps", "whole", "both"].includes(args.mode)) throw new Error(`--mode: steps, whole or both, not ${args.mode}`);
	return args;
}

/** The chunk files of a 1-D store (v2 or v3 default keys) in order, and the codec decoders.wasm names it by. */
function readStore(dir) {
	const v3 = fs.existsSync(path.join(dir, "zarr.json"));
	const meta = JSON.parse(fs.readFileSync(path.join(dir, v3 ? "zarr.json" : ".zarray"), "utf8"));
	let codec;
	if (v3) {
		const names = meta.codecs.map((c) => c.name);
		codec = names.includes("blosc") ? "blosc" : names.includes("zstd") ? "zstd" : undefined;
	} else codec = meta.compressor?.id === "blosc" ? "blosc" : meta.compressor?.id;
	if (codec !== "zstd" && codec !== "blosc" && codec !== "lz4") throw new Error(`${dir}: not a zstd, blosc or lz4 store`);
	if (meta.shape.length !== 1) throw new Error(`${dir}: a 1-D store is needed`);
	const count = Math.ceil(meta.shape[0] / meta.chunks?.[0] || meta.shape[0] / meta.chunk_grid.configuration.chunk_shape[0]);
	const files = [];
	for (let i = 0; i < count; i++) files.push(path.join(dir, v3 ? path.join("c", String(i)) : String(i)));
	const chunkValues = v3 ? meta.chunk_grid.configuration.chunk_shape[0] : meta.chunks[0];
	return { codec, files, chunkBytes: chunkValues * 8 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const dir = path.join(root, ".bench-cache", `codecs-v1-${args.values}`, `${args.store}.zarr`);
	if (!fs.existsSync(dir)) throw new Error(`${dir} does not exist: run npm run bench first`);
	const { codec, files, chunkBytes } = readStore(dir);
	const chunks = files.map((f) => new Uint8Array(fs.readFileSync(f)));
	const encoded = chunks.reduce((sum, c) => sum + c.byteLength, 0);
	const { WasmDecoders } = await import(path.join(root, "dist", "zarr", "codecs", "wasm", "decoder-module.js"));
	const builds = [{ name: "dist", file: path.join(root, "dist", "zarr", "codecs", "wasm", "decoders.wasm") }, ...args.wasm.map((file) => ({ name: path.basename(file), file }))];
	const modes = args.mode === "both" ? ["steps", "whole"] : [args.mode];
	const cases = [];
	for (const build of builds) {
		const module = new WebAssembly.Module(fs.readFileSync(build.file));
		for (const mode of modes) {
			// A window of 16 MiB: no 8 MB chunk is decoded in steps (they need four windows of output).
			const decoders = new WasmDecoders(module, mode === "whole" ? { windowBytes: 16 * 1024 * 1024 } : {});
			cases.push({ label: `${build.name} ${mode}`, decoders, times: [], cpu: [] });
		}
	}
	const output = new Uint8Array(chunkBytes);
	let decoded = 0;
	for (let run = 0; run <= args.runs; run++) {
		for (const c of cases) {
			const started = process.hrtime.bigint();
			const cpu = process.cpuUsage();
			decoded = 0;
			for (const chunk of chunks) decoded += c.decoders.decode(codec, chunk, output).length;
			const used = process.cpuUsage(cpu);
			if (run > 0) {
				c.times.push(Number(process.hrtime.bigint() - started) / 1e6);
				c.cpu.push((used.user + used.system) / 1e3);
			}
		}
	}
	console.log(`${args.store}: ${chunks.length} chunks, ${(encoded / 1e6).toFixed(1)} MB encoded, ${(decoded / 1e6).toFixed(1)} MB decoded; median of ${args.runs} passes`);
	let native;
	if (args.native) native = nativePass(codec, files, chunkBytes, args.runs);
	const rows = cases.map((c) => ({ label: c.label, ms: median(c.times), cpu: median(c.cpu) }));
	if (native !== undefined) rows.push({ label: "numcodecs (native, 1 thread)", ...native });
	console.log(`  ${"".padEnd(34)} wall: ms/chunk   MB/s  ×native | CPU: ms/chunk   MB/s  ×native`);
	for (const row of rows) {
		const figures = (ms, base) => `${(ms / chunks.length).toFixed(2).padStart(6)}  ${((decoded / 1e6) / (ms / 1e3)).toFixed(0).padStart(5)}  ${base === undefined ? "" : `${(ms / base).toFixed(2)}×`}`.padEnd(24);
		console.log(`  ${row.label.padEnd(34)} ${figures(row.ms, native?.ms)} | ${figures(row.cpu, native?.cpu)}`);
	}
}

/** numcodecs decoding the same files into a buffer made once, `runs` passes after a warm-up: the median pass, wall and CPU ms. */
function nativePass(codec, files, chunkBytes, runs) {
	const run = spawnSync("/usr/bin/python3", [path.join(root, "bench", "decode-speed-native.py"), codec, String(chunkBytes), String(runs), ...files], { encoding: "utf8" });
	if (run.status !== 0) throw new Error(`numcodecs failed: ${run.stderr}`);
	return JSON.parse(run.stdout);
}

await main();
