// Preloaded with `node --import` when /usr/bin/time is missing: writes to BENCH_RSS_FILE the process's peak RSS in
// KiB and its user and system CPU seconds, as `/usr/bin/time -f "%M %U %S"` would.
import * as fs from "node:fs";

process.on("exit", () => {
	if (!process.env.BENCH_RSS_FILE) return;
	const usage = process.resourceUsage();
	fs.writeFileSync(process.env.BENCH_RSS_FILE, `${usage.maxRSS} ${usage.userCPUTime / 1e6} ${usage.systemCPUTime / 1e6}`);
});
