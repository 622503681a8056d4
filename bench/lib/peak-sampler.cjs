// Preloaded with `node --require` by bench/peak-breakdown.mjs into one CLI export: what the process holds at its
// peak RSS. Every 2 ms (on the main thread, so a long synchronous step is seen at its end) it reads
// /proc/self/status and, whenever RSS is the highest yet, keeps the V8 heap's spaces and the array buffers of that
// moment. Buffers of 64 KiB or more made by Buffer.allocUnsafeSlow (the export's BufferPool makes its buffers so,
// and reuses them: their sum is the pool's footprint) are counted by size and by the function that asked for them.
// The CPU time of each thread of the process is read from /proc/self/task. At exit the whole is written as JSON to
// PEAK_SAMPLER_FILE. Only the main thread is preloaded: decode threads start with execArgv [] (no --require).
const fs = require("node:fs");
const v8 = require("node:v8");

const MiB = 2 ** 20;
const status = () => {
	const text = fs.readFileSync("/proc/self/status", "utf8");
	const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
	return { rss: kib("VmRSS") / 1024, anon: kib("RssAnon") / 1024, file: kib("RssFile") / 1024 };
};

let peak = { rss: 0 };
const sample = () => {
	const now = status();
	if (now.rss <= peak.rss) return;
	const usage = process.memoryUsage();
	const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, space.space_size / MiB]));
	peak = { ...now, heapTotal: usage.heapTotal / MiB, arrayBuffers: usage.arrayBuffers / MiB, external: usage.external / MiB, spaces };
};

// Per thread: the most CPU seconds read (a thread that ended keeps its last reading).
const threadSeconds = new Map();
const readThreads = () => {
	let tasks = [];
	try {
		tasks = fs.readdirSync("/proc/self/task");
	} catch {
		return;
	}
	for (const tid of tasks) {
		try {
			const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
			threadSeconds.set(tid, Math.max(threadSeconds.get(tid) ?? 0, seconds));
		} catch {
			// The thread ended between the listing and the read.
		}
	}
};

const allocations = new Map();
const allocUnsafeSlow = Buffer.allocUnsafeSlow;
Buffer.allocUnsafeSlow = function countedAllocUnsafeSlow(size) {
	if (size >= 64 * 1024) {
		// The first function past the pool's own.
		const frames = new Error().stack.split("\n").slice(2).map((frame) => frame.trim().replace(/^at /, "").replace(/ \(.*$/, ""));
		const caller = frames.find((frame) => !frame.startsWith("BufferPool.")) ?? "?";
		const key = `${size} ${caller}`;
		allocations.set(key, (allocations.get(key) ?? 0) + 1);
	}
	return allocUnsafeSlow.call(this, size);
};

const sampler = setInterval(() => {
	sample();
	readThreads();
}, 2);
sampler.unref();

process.on("exit", () => {
	sample();
	readThreads();
	const main = String(process.pid);
	const others = [...threadSeconds].filter(([tid]) => tid !== main).map(([, seconds]) => seconds);
	const pool = [...allocations].map(([key, count]) => {
		const [size, ...caller] = key.split(" ");
		return { bytes: Number(size), count, caller: caller.join(" ") };
	});
	const result = {
		peak,
		maxRss: process.resourceUsage().maxRSS / 1024,
		pool,
		cpu: { main: threadSeconds.get(main) ?? 0, otherThreads: others.reduce((a, b) => a + b, 0), busiestOther: Math.max(0, ...others) },
	};
	if (process.env.PEAK_SAMPLER_FILE) fs.writeFileSync(process.env.PEAK_SAMPLER_FILE, JSON.stringify(result));
});
