// The scaling-out benchmark (issue 16), run by bench/run.mjs (--no-scale leaves it out):
// - one export of a 20M-value store by 1 process, then by 2 processes in parallel (--part 0/2 and 1/2 into one
//   dataset folder), wall time to the last one's end, beside the numpy + zlib reference on the same store;
// - a one-day --start/--end range of the largest store (50M values) against its full export: the range is found
//   by binary search over the chunk boundaries, so it reads a few chunks, not the store.
import * as fs from "node:fs";
import * as path from "node:path";
import { performance } from "node:perf_hooks";

/**
 * @param {object} context what bench/run.mjs shares: its store builder, timer and printing helpers
 */
export async function scaleBench(context) {
	const { cacheDir, outDir, runs, runExporter, referenceRun, ensureStore, median, fmt, printTable, log, chunk, stores } = context;
	const results = { parts: [], range: [] };
	console.log(`\nScaling out: 1 vs 2 processes (--part K/N into one folder, --to arrow), median of ${runs}; reference = bench/reference.py, one process`);
	const store = await ensureStore(cacheDir, { ...stores.parts, chunk }, log);
	const rows = [];
	for (const processes of [1, 2]) {
		const times = [];
		const cpu = [];
		for (let r = 0; r < runs; r++) {
			const folder = path.join(outDir, `parts-${processes}`);
			fs.rmSync(folder, { recursive: true, force: true });
			const start = performance.now();
			const each = await Promise.all(
				Array.from({ length: processes }, (_, k) => runExporter([store.dir, "--to", "arrow", "--part", `${k}/${processes}`, "-o", folder, "-q"])),
			);
			times.push((performance.now() - start) / 1000);
			cpu.push(each.reduce((sum, m) => sum + m.cpuSeconds, 0));
			fs.rmSync(folder, { recursive: true, force: true });
		}
		results.parts.push({ processes, seconds: median(times), cpuSeconds: median(cpu), allSeconds: times });
	}
	const reference = [];
	if (referenceRun) for (let r = 0; r < runs; r++) reference.push((await referenceRun(store.dir, path.join(outDir, "parts.ref"))).seconds);
	const one = results.parts[0].seconds;
	for (const row of results.parts) {
		rows.push([`${row.processes}`, fmt(row.seconds, 3), fmt(row.cpuSeconds, 2), fmt(one / row.seconds), reference.length ? fmt(row.seconds / median(reference)) + "x" : "-"]);
	}
	printTable(["processes", "median s", "cpu s (sum)", "speed-up", "vs ref"], rows);
	console.log(`${stores.parts.name}: ${stores.parts.length / 1e6}M values; ref ${reference.length ? fmt(median(reference), 3) + " s" : "not run"}; 2 processes on ${context.cores} cores share them with each other (and anything else running)`);

	console.log(`\nA one-day range of the largest store (--start/--end, binary search over chunk boundaries) vs its full export, --to arrow; median of ${runs}`);
	const large = await ensureStore(cacheDir, { ...stores.range, chunk }, log);
	const out = path.join(outDir, "range.arrow");
	const day = ["--start", "2030-06-01", "--end", "2030-06-02"];
	const timed = async (extra) => {
		const times = [];
		for (let r = 0; r < runs; r++) {
			fs.rmSync(out, { force: true });
			times.push((await runExporter([large.dir, "--to", "arrow", "-o", out, "-q", "--force", ...extra])).seconds);
		}
		fs.rmSync(out, { force: true });
		return median(times);
	};
	const ranged = await timed(day);
	const full = await timed([]);
	results.range = { store: stores.range.name, values: stores.range.length, rangeSeconds: ranged, fullSeconds: full };
	printTable(["store", "values", "one day s", "full s", "full / day"], [[stores.range.name, `${stores.range.length / 1e6}M`, fmt(ranged, 3), fmt(full, 3), fmt(full / ranged, 0) + "x"]]);
	console.log(`the one-day time is that of a whole process (Node's start, the metadata, the probes: about 2 log2(chunks) chunks read, and the chunk holding the day)`);
	return results;
}
