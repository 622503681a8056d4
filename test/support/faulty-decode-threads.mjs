// Preloaded (`node --import`) into a CLI or library run by test/decode-threads.test.ts: every worker thread the
// process starts runs a faulty decode thread instead, chosen by DT64_TEST_THREAD_FAULT:
//   exit  - the thread exits (code 3) on its first chunk, as a crash would end it;
//   throw - the thread throws outside any handler on its first chunk;
//   hang  - the thread never answers (a decode stuck in a loop).
// node:worker_threads' exports are replaced and synced into its ES module namespace, so the code under test runs
// unchanged.
import { syncBuiltinESMExports } from "node:module";
import workerThreads from "node:worker_threads";

const FAULTS = {
	exit: "process.exit(3)",
	throw: "throw new Error('decoder exploded')",
	hang: "for (;;) {}",
};
const fault = FAULTS[process.env.DT64_TEST_THREAD_FAULT];
if (fault === undefined) throw new Error(`DT64_TEST_THREAD_FAULT must be one of ${Object.keys(FAULTS).join(", ")}`);
const RealWorker = workerThreads.Worker;
workerThreads.Worker = class FaultyWorker extends RealWorker {
	constructor(_url, options) {
		super(`require("node:worker_threads").parentPort.on("message", () => { ${fault} });`, { ...options, eval: true });
	}
};
syncBuiltinESMExports();
