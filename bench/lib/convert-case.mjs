// One case of the convert-only benchmark, in its own process so that each conversion plan meets a fresh JIT, as in
// a real export (one plan per process): node convert-case.mjs <dist module> <series> <target unit> <length> <runs>
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { seriesCounts, SERIES } from "./synthetic.mjs";

const [modulePath, series, unit, length, runs] = process.argv.slice(2);
const { toArrowTimestamps } = await import(pathToFileURL(modulePath).href);
const counts = seriesCounts(series, Number(length), 2);
const type = { kind: "datetime64", unit: SERIES[series].unit, scaleFactor: SERIES[series].scaleFactor };
const first = toArrowTimestamps(counts, type, { unit });
const times = [];
const cpuTimes = [];
for (let r = 0; r < Number(runs); r++) {
	const cpu = process.cpuUsage();
	const start = performance.now();
	toArrowTimestamps(counts, type, { unit });
	times.push((performance.now() - start) / 1000);
	const used = process.cpuUsage(cpu);
	cpuTimes.push((used.user + used.system) / 1e6);
}
process.stdout.write(JSON.stringify({ times, cpuTimes, nullCount: first.nullCount, zeroCopy: first.values === counts }));
