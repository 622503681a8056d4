// A stand-in decode thread for test/decoder-pool.test.ts: the module-echo thread, except that the first thread to
// compile dies before it has (exit code 3), as a crash during start-up would end it. "First" is remembered in the
// file DT64_TEST_MARKER names, which every thread of the test process sees.
import * as fs from "node:fs";
import { workerData } from "node:worker_threads";

if (workerData?.module === undefined && workerData?.awaitModule !== true) {
	try {
		fs.writeFileSync(process.env.DT64_TEST_MARKER, "died", { flag: "wx" });
		process.exit(3);
	} catch {
		// Not the first: compile as usual.
	}
}
await import("./module-echo-worker.mjs");
